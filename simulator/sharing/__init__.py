"""Drives shared by groups (experiments, HSM servers): queues, allocators, the HSM run.

- :mod:`.groups`: groups with their queues, drive sets and tape batches;
- :mod:`.allocator`: who may start recall threads on which drives, decided every period;
- :mod:`.hsm_run`: a GEMSS-like HSM on the one simulation, what it measures;
- :mod:`.hsm_archive`: the HSM's files as the archive at time 0, and the policy reading them;
- :mod:`.hsm_admission`: the HSM's admission of threads around any online scheduler;
- :mod:`.offline_allocation`: the offline optimum of the allocation, the allocators' yardstick.
"""
