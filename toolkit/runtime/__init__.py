"""What keeps a run bounded and its plug-ins answerable: limits, signals, plug-in calls.

- :mod:`.limits`: limits on the work and the memory of a run, each with why that number;
- :mod:`.signals`: signals held or deferred around code an exception cannot stop;
- :mod:`.plugin_calls`: calls into plug-ins, a misbehaving one named in one line;
- :mod:`.gc_pause`: the cyclic garbage collector paused while bulk data is built.
"""
