"""Lower bounds on the optimum of each objective, valid for every instance.

- :mod:`.bounds`: the closed-form and relaxation bounds;
- :mod:`.window_bound`: a bound from exact solves of windows of requests, each alone.
"""
