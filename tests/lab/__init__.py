"""Tests of autograder/lab/: the lab's records, reference, cases and data."""
