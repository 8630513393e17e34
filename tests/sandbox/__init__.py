"""Tests of autograder/sandbox/: the jail and uid modes, the child and what it may reach."""
