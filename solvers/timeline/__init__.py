"""The platform state of the core problem in time, and list scheduling on it.

- :mod:`.state`: where the platform stands while requests are placed (drives, tapes, arms);
- :mod:`.pieces`: how a drive gets one piece ready, and which drive does it first;
- :mod:`.timeline`: requests placed one at a time (plans, commits), and list scheduling;
- :mod:`.trials`: the undo log that takes back what a trial placed;
- :mod:`.arms`: one library's arm timeline (where the next mount or dismount fits).
"""
