"""``cnaf-bulk-recall``: CNAF's CMS bulk recall on shared drives under static caps, the
Orchestrator and the offline optimum.

- :mod:`tapesched.studies.drive_allocation.study`: the recall under each allocation;
- :mod:`tapesched.studies.drive_allocation.report`: the experiment and its files.
"""
