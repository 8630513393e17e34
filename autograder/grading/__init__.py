"""The grading engine: rubric, plan, intake, one grading session, judging, scoring, diagnosis and
the result model. It knows nothing of platforms and writes no files."""
