"""Golubchik, Muntz and Watson's striping study (1994, Section 5).

- :mod:`tapesched.studies.golubchik.figures`: ``gol-fig8`` ... ``gol-fig14``, response time
  per striping vector, each a :class:`~tapesched.studies.sweeps.study.Study`;
- :mod:`tapesched.studies.golubchik.stripe_search`: a stripe width per request class,
  searched on the simulator (equi-striping, the full search, the pruning bounds);
- :mod:`tapesched.studies.golubchik.stripe_report`: that search as the experiment
  ``gol-stripe-search``, a point per arrival rate, and its files.
"""
