"""Discrete-event simulator of a tape platform (issue 4, in progress).

So far the core that knows nothing of tapes: :mod:`simulator.engine` (a
heap of time, sequence number and callback) and :mod:`simulator.resource`
(servers with priority classes, FIFO within each, for robot arms and the
like). The platform, the archival policies and the workloads come next.
"""
