"""The studies: each paper's questions as experiments that run, replicate and draw.

They stand on the simulator and the solvers and under the command line.
Every study is one plug-in, an :class:`~tapesched.studies.experiment.Experiment`. The
modules here are what every experiment shares, the project's and a user's:

- :mod:`tapesched.studies.experiment`: what an experiment declares (its parameters, its
  points, how one runs, its figure) and what a run gives
  (:class:`~tapesched.studies.experiment.Results`);
- :mod:`tapesched.studies.registry`: every experiment by name, one registry (entry points
  of ``tapesched.experiments``, ``module.path:Class``);
- :mod:`tapesched.studies.runner`: :func:`~tapesched.studies.runner.run_experiment`, and
  the one writer of every experiment's directory;
- :mod:`tapesched.studies.results_file`: ``results.csv``, written and read;
- :mod:`tapesched.studies.lines_figure`: a metric against x, a line per series.

The rooms below hold the studies themselves:

- :mod:`tapesched.studies.sweeps`: the swept studies' machinery (a base scenario, x
  values, series; run in parallel, cached, replicated to a precision);
- :mod:`tapesched.studies.blue_waters`, :mod:`tapesched.studies.golubchik`: the Blue
  Waters and the Golubchik papers' figures (and Golubchik's stripe-width search);
- :mod:`tapesched.studies.windows`: online schedulers against offline optima;
- :mod:`tapesched.studies.recall`: BNL's recall orders;
- :mod:`tapesched.studies.dismount_delay`: ECMWF's dismount delay;
- :mod:`tapesched.studies.drive_allocation`: CNAF's drive allocation;
- :mod:`tapesched.studies.durability`: tape losses.

In a study's room, ``study`` computes it and ``report`` is its experiment (its options,
its points, what it writes).
"""
