"""Code similarity across a batch (batch-only, never on the platforms' graders): fingerprints of graded files and
where they match."""
