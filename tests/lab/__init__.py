"""Tests of lab/ (Lab 05's package): the lab's records, reference, cases and data."""
