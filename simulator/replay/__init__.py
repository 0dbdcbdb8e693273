"""A cartridge trace replayed on its library complex (the ECMWF trace on its SL8500s).

- :mod:`.trace`: the trace's requests, its library layout and home map, as files;
- :mod:`.replay`: the replay in the one simulator, under any scheduler and mount policy.
"""
