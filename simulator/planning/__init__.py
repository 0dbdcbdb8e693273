"""Planning an archive from its load: closed forms first, a simulation to check them.

- :mod:`.sizing`: disk cache lifetime and tape drives per service class (``tapesched plan``);
- :mod:`.sizing_check`: a generated day of that load run on the planned drives and caches;
- :mod:`.load_plan`: a load file sized, scaled and checked in one call (``tapesched plan``);
- :mod:`.striping_model`: Golubchik, Muntz and Watson's closed forms of a striped library;
- :mod:`.durability`: what whole-tape losses leave of an archive, closed form and Monte Carlo.
"""
