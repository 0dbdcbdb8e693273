"""The commands on instance and schedule files: the toolkit's and the solvers' questions.

``check`` (an instance or schedule file against the contract), ``verify`` (a schedule
by the independent validator), ``metrics``, ``plot`` (a Gantt chart, a trajectory, an
experiment's figure again), ``order`` (a recall order on serpentine tapes), ``generate``
(random and Golubchik instances), ``solve``, ``compare``, ``bound``, ``solvers`` (the
list of solvers) and ``catalogue`` (the drives, libraries and tape formats of the
technology table). Each module parses its options, calls one library function and prints.
"""
