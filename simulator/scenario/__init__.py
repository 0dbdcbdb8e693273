"""Scenario files: a platform, an archival policy, a workload and how to run them.

The format's reference is ``docs/scenario-format.md``.

- :mod:`.document`: the versioned document, read whole (:func:`~.document.load_scenario`);
- :mod:`.platform_section`, :mod:`.workload_section`, :mod:`.run_section`: its sections,
  each value judged at its path;
- :mod:`.spec`: a scenario once read, its run settings, and whether it can run;
- :mod:`.consent`: the code a file names, imported only with the user's consent.
"""
