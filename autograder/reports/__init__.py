"""Renderers of the result model: student feedback (text, Markdown, HTML), Gradescope's
results.json, the class report and grades.csv. They return text; callers write it."""
