"""The platform state of the core problem in time, and list scheduling on it.

- :mod:`.timeline`: drives, tapes and requests in time; list scheduling;
- :mod:`.arms`: one library's arm timeline (where the next mount or dismount fits).
"""
