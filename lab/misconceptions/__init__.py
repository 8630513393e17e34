"""The library of known misconceptions: wrong variants of the graded functions, as data (see ``model``)."""
