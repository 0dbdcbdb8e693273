"""The simulator's own schedulers, which need more of the platform than the core problem shows.

- :mod:`.bw_main`: the Blue Waters paper's MAIN-SCHEDULER and LOAD-BALANCER;
- :mod:`.golubchik`: the service discipline of Golubchik, Muntz and Watson (1994);
- :mod:`.registry`: their names, and those installed packages add (entry points of
  ``tapesched.simulator_schedulers``), with :class:`~.registry.SimulatorState`, what they read.

Both decide through :class:`tapesched.solvers.online.protocol.PlatformState`
like every online scheduler of :mod:`tapesched.solvers.online`.
"""
