"""Tests of autograder/similarity/: pairs of submissions, their bounds and evasions."""
