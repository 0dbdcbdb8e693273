"""What is stored where: files, the tape catalogue, the archival policies, the disk cache.

- :mod:`.files`: the files and what an archival policy tells the platform to do;
- :mod:`.catalogue`: the tapes, what was appended to them, where each file's stripes lie;
- :mod:`.catalogue_records`: the values it records (tapes, pieces, stripe members, rows, layouts);
- :mod:`.cold_store`: what the catalogue seldom reads again, on disk (a long run's archive);
- :mod:`.lazy_archive`: the archive at time 0 as the catalogue asks it;
- :mod:`.policies`: the archival policies (RAIT, PARALLEL, VERTICAL, HETERO), what every
  one offers the platform, and their registry;
- :mod:`.archive`: the archive at time 0, laid out lazily from the seed, as each policy says
  through :mod:`.archive_layout`;
- :mod:`.disk_cache`: an LRU disk cache per service class in front of the tapes;
- :mod:`.data_account`: every file readable, readable after a rebuild, or lost.
"""
