"""The repository's own rules: architecture, generated documents, the tests' layout, the benchmark."""
