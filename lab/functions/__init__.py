"""The graded functions of the lab, one record each: ``<function>.py`` holds its ``RECORD`` (file,
parameters, what it returns, the notes' part, its kinds of check, its features, its ir_measures
mapping, its random cases and how their answers are computed), ``registry.py`` lists them."""
