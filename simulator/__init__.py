"""The discrete-event simulator of a whole tape platform, in rooms from the bottom up.

- :mod:`.kernel`: the event engine and servers with queues, which know nothing of tapes;
- :mod:`.platform`: technologies, libraries with arms, drives, movers, library complexes, faults;
- :mod:`.storage`: files, the tape catalogue, the archival policies (RAIT, PARALLEL,
  VERTICAL, HETERO), the archive at time 0, the disk cache, the data account;
- :mod:`.workload`: generated and CSV-traced file requests;
- :mod:`.schedulers`: the simulator's own schedulers (the Blue Waters MAIN-SCHEDULER, Golubchik's);
- :mod:`.scenario`: scenario files (docs/scenario-format.md), read section by section;
- :mod:`.run`: the simulation, replications, what a run measured, the run directory, its export;
- :mod:`.sharing`: drives shared by groups, their allocators, the GEMSS-like HSM run;
- :mod:`.replay`: a cartridge trace replayed on its library complex;
- :mod:`.planning`: closed forms for sizing, striping and durability, and their check by simulation.

A run's scheduler is any online scheduler of :mod:`tapesched.solvers.online`,
deciding through :class:`tapesched.solvers.online.protocol.PlatformState`:
the platform knows nothing of which scheduler runs.
"""
