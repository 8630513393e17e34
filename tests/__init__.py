"""The test suite, laid out like the package: tests/<package>/ tests autograder/<package>/."""
