"""Running untrusted code: the parent side (starting, reading, limiting and killing children,
choosing the isolation) and, in ``child/``, the standard-library programs that run inside."""
