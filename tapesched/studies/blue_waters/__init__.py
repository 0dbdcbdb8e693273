"""The Blue Waters paper's figures (Section 6, Figures 5-11) as swept studies.

- :mod:`tapesched.studies.blue_waters.figures`: ``bw-fig5`` ... ``bw-fig11``, each a
  :class:`~tapesched.studies.sweeps.study.Study`.
"""
