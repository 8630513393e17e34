"""Hostile submissions graded end to end, on every platform: outcomes, leaks, table attacks."""
