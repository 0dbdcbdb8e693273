"""What a run of the platform gives back, and the runs a user asks for.

- :mod:`.records`: a record per request, a run's summary and metrics, replications
  combined into estimates with their 95 % intervals (:class:`~.records.Estimate`);
- :mod:`.replications`: a scenario run in replications with their seeds
  (:func:`~.replications.run_scenario`), and a user's overrides of its settings;
- :mod:`.run_directory`: a scenario's run and the directory ``simulate --out`` writes;
- :mod:`.export`: the realised run as a core-problem instance and schedule, for the validator;
- :mod:`.instance_run`: a core-problem instance run as it is, no policy layer.

Each sits above the simulation loop of :mod:`tapesched.simulator.run`, which imports none
of them.
"""
