"""Tests of autograder/labkit: a lab loaded as a value."""
