"""The commands on a whole archive in time: the simulator's and the studies' questions.

``simulate`` (a scenario or instance file, one run and its run directory), ``replay``
(a cartridge trace on its SL8500 complex), ``plan`` (drives and disk cache, closed forms
checked by simulation), ``site`` (site files: ``site new``) and ``experiment`` (every
study of the registry, one command each, its options its declared parameters), ``sweep``
(the ``site-sweep`` experiment from its options or a sweep file);
:mod:`.bw_main_options` holds the options of the Blue Waters MAIN-SCHEDULER that
``simulate`` and the swept experiments share. Each module parses its options, calls one
library function and prints.
"""
