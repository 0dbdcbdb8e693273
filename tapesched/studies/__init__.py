"""The studies: each paper's questions as experiments that run, replicate and draw.

They stand on the simulator and the solvers and under the command line.
Every study is one plug-in, an :class:`~.experiment.Experiment`:

- :mod:`.experiment`: what an experiment declares (its parameters, its points,
  how one runs, its figure) and what a run gives (:class:`~.experiment.Results`);
- :mod:`.registry`: every experiment by name, one registry (entry points of
  ``tapesched.experiments``, ``module.path:Class``);
- :mod:`.runner`: :func:`~.runner.run_experiment`, and the one writer of every
  experiment's directory; :mod:`.results_file`: ``results.csv``, written and read;
  :mod:`.lines_figure`: a metric against x, a line per series;
- :mod:`.sweep`: the points of a swept study run in parallel (processes or a
  Dask cluster), cached, replicated to a precision;
- :mod:`.studies`, :mod:`.swept_study`: a swept study (base scenario, x values,
  series) and how it runs; :mod:`.blue_waters` and :mod:`.golubchik_studies`: the
  Blue Waters and the Golubchik papers' figures; :mod:`.study_report`,
  :mod:`.study_figure`: what they report and draw;
- :mod:`.stripe_search`: a stripe width per request class, searched by simulation;
- :mod:`.windows`, :mod:`.window_report`: online schedulers against offline optima;
- :mod:`.recall_study`, :mod:`.recall_report`: BNL's recall orders;
- :mod:`.defer_study`, :mod:`.defer_report`: ECMWF's dismount delay;
- :mod:`.cnaf_study`, :mod:`.cnaf_report`: CNAF's drive allocation;
  :mod:`.durability_study`, :mod:`.durability_report`: tape losses.

Each ``*_report`` module is its study's experiment: its options, its points,
what it writes.
"""
