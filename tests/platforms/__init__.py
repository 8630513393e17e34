"""Tests of autograder/platforms/: Gradescope, PrairieLearn, containers and their builds."""
