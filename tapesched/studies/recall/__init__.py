"""``bnl-coverage``: BNL's recall-ordering study, a share of a full tape read under each
recall order.

- :mod:`tapesched.studies.recall.study`: the tapes, the reads, each order's time;
- :mod:`tapesched.studies.recall.report`: the experiment and its files.
"""
