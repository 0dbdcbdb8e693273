"""Drives shared by groups (experiments, HSM servers): queues, allocators, the HSM run.

- :mod:`.groups`: groups with their queues, drive sets and tape batches;
- :mod:`.allocator`: who may start recall threads on which drives, decided every period;
- :mod:`.hsm_run`: a GEMSS-like HSM on the one simulation;
- :mod:`.offline_allocation`: the offline optimum of the allocation, the allocators' yardstick.
"""
