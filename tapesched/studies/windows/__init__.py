"""``online-vs-offline``: a simulated run cut into windows, each online scheduler against the
clairvoyant and the non-anticipative optimum.

- :mod:`tapesched.studies.windows.study`: the run, its windows, each solved both ways;
- :mod:`tapesched.studies.windows.report`: the experiment and its files.
"""
