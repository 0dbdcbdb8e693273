"""``durability``: files and groups lost against tape losses, per policy and scheme, and
the time failed tape handling costs.

- :mod:`tapesched.studies.durability.study`: the Monte Carlo draws and the closed form;
- :mod:`tapesched.studies.durability.report`: the experiment and its files.
"""
