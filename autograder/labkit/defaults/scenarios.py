"""No run writer, so no scenarios (``EXAMPLE = ""``: no example scenario)."""

EXAMPLE = ""
