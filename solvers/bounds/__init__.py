"""Lower bounds on the optimum of each objective, valid for every instance.

- :mod:`.bounds`: the closed-form and relaxation bounds, (a) to (e), and their best;
- :mod:`.earliest`: what each request and piece can do alone (earliest times, locate floors);
- :mod:`.machine`: single-machine relaxations (makespan, mean busy time, EDF bisection);
- :mod:`.window_bound`: a bound from exact solves of windows of requests, each alone.
"""
