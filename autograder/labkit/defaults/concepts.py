"""No concepts stated: diagnoses name separating features only."""

from typing import Any

CONCEPTS: dict[str, Any] = {}
