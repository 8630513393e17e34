"""Tests of autograder/lms/: rosters and gradebook exports."""
