"""The event kernel: a clock, a heap of callbacks and servers with queues; nothing of tapes.

- :mod:`.engine`: the heap of (time, sequence number, callback) and the clock;
- :mod:`.resource`: a server of identical units with priority classes, FIFO
  within each.
"""
