"""Discrete-event simulator of a tape platform, its archival policies and its workloads.

- :mod:`simulator.engine` and :mod:`simulator.resource`: the core, which
  knows nothing of tapes (a heap of time, sequence number and callback;
  servers with priority classes, FIFO within each).
- :mod:`simulator.technology` and :mod:`simulator.platform`: drive
  technologies and random or fixed times; libraries with arms, drives,
  movers, pass-through ports, and the jobs they carry out in time.
- :mod:`simulator.files`, :mod:`simulator.catalogue`, :mod:`simulator.policy`
  and the policies :mod:`simulator.rait`, :mod:`simulator.parallel`,
  :mod:`simulator.vertical`, :mod:`simulator.hetero`: where every data and
  parity block of every file lies.
- :mod:`simulator.workload` and :mod:`simulator.requests_csv`: generated and
  traced file requests; :mod:`simulator.trace` and :mod:`simulator.replay`:
  the ECMWF cartridge trace replayed on its SL8500 layout.
- :mod:`simulator.simulation`: a run, in which a scheduler of
  :mod:`solvers.online` decides through
  :class:`solvers.online.protocol.PlatformState`;
  :mod:`simulator.results`, :mod:`simulator.export`,
  :mod:`simulator.experiment` and :mod:`simulator.scenario`: what a run
  measured, its schedule for the validator, replications, scenario files.
- :mod:`simulator.instance_run`: a core-problem instance run as it is.
- :mod:`simulator.durability` and :mod:`simulator.durability_study`: what
  tape losses leave of the archive (each file readable, rebuilt or lost),
  the closed forms, and ``tapesched experiment durability``.
"""
