"""A cartridge trace replayed on its library complex (the ECMWF trace on its SL8500s).

- :mod:`.trace`: the trace's requests, its library layout and home map, as files;
- :mod:`.sl8500`: the SL8500 complex as a platform (its times, its levels as libraries);
- :mod:`.trace_archive`: the trace as the archive the simulator reads, a file per request;
- :mod:`.replay`: the replay in the one simulator, under any scheduler and mount policy;
- :mod:`.trace_replay`: a replay from the files, checked, and its result document.
"""
