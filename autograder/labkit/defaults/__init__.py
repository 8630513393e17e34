"""What a lab without a reference collection or a run writer need not write: the modules
``labkit.load`` uses where the lab's package has none of that name."""
