"""What the graded files' code is made of, read and never run: answers without computation, evaluation libraries."""
