"""Benchmarks (`make bench`): each module prints a table."""
