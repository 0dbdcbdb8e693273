"""Figures drawn with matplotlib, the same bytes from the same input.

- :mod:`.figures`: how every figure is rendered;
- :mod:`.gantt`: the Gantt chart of a feasible schedule;
- :mod:`.trajectory`: a solver's trajectory and its figure.
"""
