"""Lab 05's content: the API, its cases and measures, Cranfield, the misconceptions and the reference
solution. What a Lab 06 would replace; it never imports the engine."""
