"""No run writer, so no wrong writers' rows."""
