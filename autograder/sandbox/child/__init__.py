"""The programs that run inside the sandbox: standard library only, nothing of the grader."""
