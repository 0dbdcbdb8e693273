"""The hardware: the one sourced table of drive and library technologies, and tape geometry.

- :mod:`.technology`: drive and library technologies, each figure with its source;
- :mod:`.tape_geometry`: where a block lies on a serpentine tape and what a locate to it costs.
"""
