"""A site (:mod:`toolkit.site`) in the simulator: its replay's inputs, its request log read
against it, and the core-problem instance of that log.

- :mod:`.layout`: a site as a replay's layout, timings and homes;
- :mod:`.reads`: a request log's rows resolved against a site (tape, offset, size, time);
- :mod:`.instance`: a site and its log as an instance of the core problem;
- :mod:`.runs`: both from their files, as ``tapesched instance`` and ``replay --site`` run them.
"""
