"""Building the students' handout: its stubs, its requirements.txt and handout.zip (build-time tools, not lab
content)."""
