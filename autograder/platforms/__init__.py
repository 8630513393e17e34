"""The platforms a grade is computed on: Gradescope, PrairieLearn, and the code they share."""
