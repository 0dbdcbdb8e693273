"""A run of the platform: the simulation, what it measured, its replications.

- :mod:`.simulation`: the run itself, a scheduler deciding through its state
  (:mod:`.simulation_state`), with its parts: :mod:`.admission`, :mod:`.placement`,
  :mod:`.streams`, :mod:`.gangs`, :mod:`.fault_processes`, :mod:`.repacking` and
  :mod:`.event_log`;
- :mod:`.experiment`: replications of a scenario with their seeds;
- :mod:`.results`: a record per request, the metrics, replications and their intervals;
- :mod:`.run_directory`: a scenario's run and the directory ``simulate --out`` writes;
- :mod:`.export`: the realised run as a core-problem instance and schedule, for the validator;
- :mod:`.instance_run`: a core-problem instance run as it is, no policy layer.
"""
