"""``golubchik``: the service discipline of Golubchik, Muntz and Watson (1994), Section 4.

Their queueing model (Figure 7) serves an input queue of requests in
arrival order: as drives free up, one at a time, each is given to the
request at the front of the queue, which holds the drives it got while it
waits for the rest; once a drive is given, the arm loads its tape and the
drive loads it and searches, then waits for its "buddies"; all transmit
together; each drive rewinds and ejects as soon as its own transfer ends,
and the arm, serving loads before unloads (FIFO within each), puts the tape
back. No tape stays mounted for a later request.

A scheduler of the simulator only, selected by name (``--scheduler
golubchik``, or ``"scheduler": "golubchik"`` in a scenario's ``run``): it
starts every waiting request at once, oldest first (:class:`Golubchik`),
and tells the simulation, by its ``drives_one_at_a_time``, to give the
drives to the started requests one at a time in that order
(:mod:`simulator.run.gangs`; the platform's
:meth:`~simulator.platform.platform.Platform.begin` and
:meth:`~simulator.platform.platform.Platform.grant`). The platform must put tapes
away at once (``"dismount": "at-once"``) and have no movers; the rest of
the model (one arm with priorities, the times and their distributions) is
the scenario's (``instances/scenarios/golubchik/ampex.json``: the paper's
Section 5 table). ``tapesched solve`` and ``compare`` do not offer it: the
solvers' dispatcher gives a request all its drives at once.
"""

from __future__ import annotations

from typing import ClassVar

from tapesched.solvers.online.heuristics import ReleaseOrder


class Golubchik(ReleaseOrder):
    """Every waiting request started at once, oldest first (as ``greedy``'s
    :class:`~solvers.online.heuristics.ReleaseOrder`); the drives then come one at a time."""

    drives_one_at_a_time: ClassVar[bool] = True
    """Read by the simulation: started requests get their drives one at a time, in order."""
