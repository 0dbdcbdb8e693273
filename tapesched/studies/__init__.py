"""The studies: each paper's questions as experiments that sweep, replicate and draw.

They stand on the simulator and the solvers and under the command line:

- :mod:`.sweep`: the points of an experiment run in parallel (processes or a
  Dask cluster), cached, replicated to a precision;
- :mod:`.studies` and :mod:`.golubchik_studies`: the Blue Waters and the
  Golubchik papers' figures as data (base scenario, x values, series);
  :mod:`.study_report` writes what they measured;
- :mod:`.stripe_search`: a stripe width per request class, searched by simulation;
- :mod:`.windows`, :mod:`.window_report`: online schedulers against offline optima;
- :mod:`.recall_study`, :mod:`.recall_report`: BNL's recall orders;
- :mod:`.defer_study`, :mod:`.defer_report`: ECMWF's dismount delay;
- :mod:`.cnaf_study`: CNAF's drive allocation; :mod:`.durability_study`: tape losses.
"""
