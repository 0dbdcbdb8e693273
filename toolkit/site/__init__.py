"""The site file, ``tapesched.site/1``: a storage engineer's libraries, drives and cartridges.

A site is described once and read by every command that runs on it:

- :mod:`.model`: the :class:`~.model.Site` and its parts, every figure resolved;
- :mod:`.document`: the file's keys as the reader structures them, each checked at its path;
- :mod:`.reader`: :func:`~.reader.read_site`, :func:`~.reader.site_from_dict`,
  :func:`~.reader.site_to_dict` and :func:`~.reader.write_site`;
- :mod:`.new`: :func:`~.new.new_site`, a site of one library from a few figures
  (``tapesched site new``);
- :mod:`.summary`: what a site holds, in one line or as a document (``tapesched check``).

The format: ``docs/reference/formats.md`` (Site).
"""
