"""The written analysis: a student's claims about two systems' rankings (``analysis.yml``), read
without trusting the file and checked against the reference collection's data."""
