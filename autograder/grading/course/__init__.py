"""The course around a grade: students, deadlines, extensions, attempt limits, who made each submission."""
