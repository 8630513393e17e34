"""The Gradescope platform: the autograder.zip build and the entry point run_autograder calls."""
