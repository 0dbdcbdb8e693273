"""The tape platform in time: technologies, libraries with arms, drives, movers, faults.

- :mod:`.technology`: drive technologies and the random or fixed times of a platform;
- :mod:`.spec`: what a platform is (libraries, drives, movers, tapes), as given before a run;
- :mod:`.platform`: the platform during a run, carrying jobs out on its drives;
- :mod:`.handling`: its drives and the arms that move their tapes, and the faults of both;
- :mod:`.state`: what it keeps of each drive, mover, job and transfer during a run;
- :mod:`.library_complex`: libraries joined by elevators and pass-through ports (the SL8500's);
- :mod:`.faults`: what goes wrong (drives, movers, tapes), how often, and its seeded draws.
"""
