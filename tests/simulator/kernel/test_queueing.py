"""The engine and its servers reproduce queueing theory: M/M/c waits against Erlang C.

Poisson arrivals, exponential service, ``c`` identical servers (drives whose
arms never bind): the mean wait in queue is Erlang C's. Ten replications
with seeds 0-9, the first tenth of each run dropped as warm-up, and a 95 %
confidence interval (Student's t, 9 degrees of freedom) on the mean of the
replications' mean waits, which must hold the formula.
"""

from __future__ import annotations

import math
import random
import statistics

import pytest

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.kernel.resource import Resource

T_975_9 = 2.262
"""Student's t quantile for a two-sided 95 % interval with 9 degrees of freedom."""


def erlang_c_wait(arrival_rate: float, service_rate: float, servers: int) -> float:
    """Mean wait in queue of an M/M/c queue (Erlang C), for load below 1."""
    offered = arrival_rate / service_rate
    rho = offered / servers
    top = offered**servers / math.factorial(servers) / (1 - rho)
    waiting = top / (sum(offered**k / math.factorial(k) for k in range(servers)) + top)
    return waiting / (servers * service_rate - arrival_rate)


def mean_wait(arrival_rate: float, service_rate: float, servers: int, n: int, seed: int) -> float:
    """Mean wait of customers ``n // 10 .. n`` of one seeded M/M/c run on the engine."""
    rng = random.Random(seed)
    engine = Engine()
    drives = Resource(engine, servers)
    waits: list[float] = []

    def arrive(k: int) -> None:
        if k + 1 < n:
            engine.after(rng.expovariate(arrival_rate), arrive, k + 1)
        drives.request(0, start, engine.now_s, k)

    def start(arrived_s: float, k: int) -> None:
        if k >= n // 10:
            waits.append(engine.now_s - arrived_s)
        engine.after(rng.expovariate(service_rate), drives.release)

    engine.at(0.0, arrive, 0)
    engine.run()
    return statistics.fmean(waits)


@pytest.mark.parametrize(("servers", "load"), [(1, 0.7), (4, 0.8), (10, 0.9)])
def test_mm_c_mean_wait_matches_erlang_c_within_the_confidence_interval(servers, load):
    service_rate = 1 / 60.0
    arrival_rate = load * servers * service_rate
    means = [mean_wait(arrival_rate, service_rate, servers, 20_000, seed) for seed in range(10)]
    centre = statistics.fmean(means)
    half_width = T_975_9 * statistics.stdev(means) / math.sqrt(len(means))
    expected = erlang_c_wait(arrival_rate, service_rate, servers)
    assert abs(centre - expected) <= half_width, (centre, half_width, expected)
    assert half_width < 0.2 * expected


def test_erlang_c_formula_on_known_values():
    # M/M/1: Wq = rho / (mu - lambda); rho 0.5, mu 1: 1.0.
    assert erlang_c_wait(0.5, 1.0, 1) == pytest.approx(1.0)
    # M/M/2 at lambda 1, mu 1: P(wait) = 1/3, Wq = (1/3) / (2 - 1).
    assert erlang_c_wait(1.0, 1.0, 2) == pytest.approx(1 / 3)
