"""Tests of autograder/reports/: feedback pages, the class report, charts and untrusted text."""
