"""The Lab 05 autograder: grades submissions of the handout in a sandbox (see docs/ARCHITECTURE.md)."""
