"""The archival policies: how a file is striped, coded and placed on tapes, and read back.

- :mod:`.policy`: what every archival policy offers the platform (plans of writes and
  reads, the catalogue they go through), and :class:`~.policy.Unrecoverable`;
- :mod:`.single`: SINGLE, one copy of each file on one tape (a plain recall site's, the
  scenarios' default);
- :mod:`.rait`, :mod:`.parallel`, :mod:`.vertical`: the Blue Waters paper's three
  erasure-coded policies; :mod:`.hetero`: HETERO, a policy per file size;
- :mod:`.policy_registry`: their names, ``module:Class`` and the entry points of
  ``tapesched.policies``.
"""
