"""The tape platform in time: technologies, libraries with arms, drives, movers, faults.

- :mod:`.technology`: drive technologies and the random or fixed times of a platform;
- :mod:`.platform`: libraries, arms, drives, movers and the jobs they carry out;
- :mod:`.library_complex`: libraries joined by elevators and pass-through ports (the SL8500's);
- :mod:`.faults`: what goes wrong (drives, movers, tapes), how often, and its seeded draws.
"""
