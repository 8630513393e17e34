"""PrairieLearn: the question folder and the grader image (``build.py``, ``templates/``), and
the entry point the image runs for each submission (``entry.py``)."""
