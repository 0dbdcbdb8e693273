"""Discrete-event simulator of a tape platform (issue 4; only the package marker so far)."""
