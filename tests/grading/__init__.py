"""Tests of autograder/grading/: the engine, its checks, diagnoses, scoring and integrity scans."""
