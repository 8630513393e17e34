"""The local platform: a batch of submissions graded on this machine into an output folder."""
