"""The hardware: the one sourced table of drive and library technologies, the servers in
front of the tapes as files give them, and tape geometry.

- :mod:`.technology`: drive and library technologies, each figure with its source;
- :mod:`.catalogue`: that table as one document, each figure's source and estimates named
  (what ``tapesched catalogue`` prints);
- :mod:`.servers`: mover limits and disk-cache classes as scenario and site files give them;
- :mod:`.tape_geometry`: where a block lies on a serpentine tape and what a locate to it costs.
"""
