"""Swept studies: a base scenario, the setting x changes, the series, run as one sweep.

- :mod:`tapesched.studies.sweeps.study`: a swept study as data
  (:class:`~tapesched.studies.sweeps.study.Study`) and the points it sweeps;
- :mod:`tapesched.studies.sweeps.sweep`: points run in parallel (processes or a Dask
  cluster), cached, replicated to a precision;
- :mod:`tapesched.studies.sweeps.swept_study`: a study as an experiment (its options, its
  checks, the sweep);
- :mod:`tapesched.studies.sweeps.report`, :mod:`tapesched.studies.sweeps.figure`: what a
  swept study reports and draws;
- :mod:`tapesched.studies.sweeps.redraw`: any experiment's ``results.csv`` drawn again
  (``tapesched plot results``), in the experiment's own figure or a panel per metric.

The Blue Waters and Golubchik figures (:mod:`tapesched.studies.blue_waters`,
:mod:`tapesched.studies.golubchik`) are studies of this room.
"""
