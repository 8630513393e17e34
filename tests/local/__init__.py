"""Tests of autograder/local/ and the command line: batches, classes, shards and regrades."""
