"""Limits on the work and the memory of a run, each declared once, with why that number.

:mod:`toolkit.units` bounds the magnitudes a file or an option may give (times,
sizes, rates, counts, expected requests, replications); this module bounds
what reading and computing may take: the bytes of an input (as stored and as
decompressed), the length of a line of a CSV-like input, the draws of the
durability experiment, the files of a recall and those whose locate matrix
is built whole, and the characters of a name drawn in a figure. Every
command checks them before its run starts (or while reading, for the size of
a stream) and refuses what is beyond them in one line, naming the file or
the option.
"""

from __future__ import annotations

MiB = 2**20
"""Bytes in a mebibyte (the unit the reading limits are stated in)."""

MAX_INPUT_BYTES = 256 * MiB
"""Most bytes an input file may hold, as stored or decompressed (``.bz2``, ``.gz``, ``.zst``).

The largest input the toolkit ships or benchmarks is a 100,000-request
schedule of 40 MB (``benchmarks/validation.py``); a million-request instance
(:data:`~toolkit.units.MAX_COUNT`) is about 250 MB. Parsed JSON takes some
five to ten times its text in memory, so this keeps a run's memory in a few
GB, and a compressed stream of a few kB that would decompress to gigabytes
is refused after 256 MiB (about a second of bzip2) instead of filling memory.
"""

MAX_LINE_BYTES = 1 * MiB
"""Longest line of a CSV-like input (a trace, a requests workload, a ``results.csv``).

Their lines are tens to hundreds of bytes; a line of a megabyte is no row of
theirs but a file of something else (or of NULs), refused before the CSV
reader builds a cell of it.
"""

MAX_DRAWS = 100_000_000
"""Most file draws of the durability experiment's tape-loss sweep: ``--files`` x
``--replications``.

Every replication draws every tape and accounts for every file, at every ``q``
of every policy and scheme. The full run draws 8,000 files 1,000 times
(8 million); this allows runs about ten times longer, and refuses the 10^12
draws of a million files a million times, which would neither finish nor
fit in memory.
"""

MAX_DENSE_FILES = 2_000
"""Most files of a recall whose ``(n + 1) x (n + 1)`` locate matrix is built whole.

``tapesched order``'s ``exact`` orderer (and ``sltf`` up to this size) works on
the dense matrix: at 2,000 files it is 32 MB of floats and as much of
integer ticks, and its assignment bound takes about a second. The matrix
grows as n^2 (10,000 files: 800 MB each, 100,000: 80 GB), so ``exact``
refuses more files and ``sltf`` computes each row when it needs it.
"""

MAX_RECALL_FILES = 5_000
"""Most files a recall file (``tapesched order``) may list.

``sltf`` beyond :data:`MAX_DENSE_FILES` computes a row of locates at every
step, from the head to every file not read yet: n^2 / 2 locates and n rows,
about three seconds at 5,000 files. A mount's recall queue in CTA is of
hundreds to thousands of files.
"""

MAX_WORKERS = 1024
"""Most worker processes (``stripe``, ``experiment``) or search threads (``solve --workers``).

Far more than the cores of any machine the toolkit runs on (a worker beyond
them only shares a core), and within what CP-SAT accepts: ``--workers
100000`` made it reject the model with a traceback.
"""

MAX_NAME_CHARS = 1_000
"""Longest name a solver's result gives its solver, instance and status
(``tapesched plot trajectory`` draws them in the figure's title).

A name of megabytes is no name, and drawing one in a title takes gigabytes.
"""
