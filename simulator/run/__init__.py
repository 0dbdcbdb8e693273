"""A run of the platform: the simulation loop and its parts.

- :mod:`.simulation`: the run itself, a scheduler deciding through its state
  (:mod:`.simulation_state`), with its parts: :mod:`.admission`, :mod:`.placement`,
  :mod:`.streams`, :mod:`.gangs`, :mod:`.fault_processes`, :mod:`.repacking` and
  :mod:`.event_log`.

What a run gives back (records, summaries, replications, its directory, the exported
schedule) is the room above, :mod:`tapesched.simulator.results`.
"""
