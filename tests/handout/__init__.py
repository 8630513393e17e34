"""Tests of autograder/handout/: the students' handout, its checks, notebook and install."""
