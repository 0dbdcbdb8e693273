"""What the exact backends share: the formulation, its plan, and how a solve is bounded.

- :mod:`.formulation`: the data of the exact formulation (``formulation.md``);
- :mod:`.plan`: what an exact solver decides, converted to a schedule;
- :mod:`.retiming`: earliest event times under precedences (the plan's times, tightened);
- :mod:`.model_size`: whether a model can be built in the time given;
- :mod:`.deadline` and :mod:`.stoppable`: a wall-clock deadline, and runs Ctrl-C stops at once.

The backends themselves are :mod:`tapesched.solvers.cpsat` and :mod:`tapesched.solvers.milp`.
"""
