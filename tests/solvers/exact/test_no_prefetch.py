"""The non-anticipative problem: ``solve(..., prefetch=False)``, ``validate(..., prefetch=False)``.

Hand-made instances where prefetching pays hold every exact backend to the
optimum worked out by hand both ways (``instances/README.md``); a family of
small instances holds CP-SAT's non-anticipative optimum between the
contract's optimum and the best online heuristic, which never prefetches.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings

from tapesched import solvers
from tapesched.cli import main
from tapesched.solvers.registry import SOLVERS
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.schedule_file import load_schedule
from tapesched.toolkit.validator import validate

from ...conftest import INSTANCES
from .family import family

EXACT = ("cpsat", "milp-cbc", "milp-highs")
ONLINE = tuple(n for n in sorted(SOLVERS) if SOLVERS.entry(n).metadata.get("online"))

HAND = {
    # instance: (the contract's optimum, the non-anticipative optimum)
    "prefetch": (10.0, 25.0),
    "no-prefetch": (20.0, 85.0),
    "spec-example": (19.176666666666666, 39.0),
}


@pytest.mark.parametrize("solver", EXACT)
@pytest.mark.parametrize("name", sorted(HAND))
def test_every_exact_backend_proves_both_optima_of_the_hand_made_instances(name, solver):
    instance = load_instance(INSTANCES / f"{name}.json")
    clairvoyant, non_anticipative = HAND[name]
    free = solvers.solve(instance, solver=solver, time_limit_s=30, seed=0)
    held = solvers.solve(instance, solver=solver, time_limit_s=30, seed=0, prefetch=False)
    assert free.status is solvers.Status.OPTIMAL
    assert held.status is solvers.Status.OPTIMAL
    assert free.objective == pytest.approx(clairvoyant, abs=1e-6)
    assert held.objective == pytest.approx(non_anticipative, abs=1e-6)
    assert held.bound is not None and held.bound <= held.objective + 1e-9
    assert held.bound > clairvoyant
    strict = validate(instance, held.schedule, prefetch=False)
    assert strict.feasible, [str(v) for v in strict.violations]
    assert strict.objective == pytest.approx(non_anticipative, abs=1e-6)
    assert "prefetch" in validate(instance, free.schedule, prefetch=False).rules


def test_the_validator_names_each_prefetched_mount_and_locate():
    instance = load_instance(INSTANCES / "no-prefetch.json")
    clairvoyant = load_schedule(INSTANCES / "no-prefetch.optimum.json")
    held = load_schedule(INSTANCES / "no-prefetch.non-anticipative.optimum.json")
    assert validate(instance, clairvoyant).feasible
    report = validate(instance, clairvoyant, prefetch=False)
    assert [(v.rule, v.requests, v.operations) for v in report.violations] == [
        ("prefetch", ("far",), ()),
        ("prefetch", ("fresh",), (0,)),
    ]
    assert "locate of 50.000000 s" in str(report.violations[0])
    assert "mounted into drive 'd1' for request 'fresh' at 5.000000 s" in str(report.violations[1])
    strict = validate(instance, held, prefetch=False)
    assert strict.feasible and strict.objective == pytest.approx(85.0)


@pytest.mark.parametrize("solver", ONLINE)
@pytest.mark.parametrize("name", ["spec-example", "no-prefetch", "offset-order", "gang-two-arms"])
def test_online_heuristics_never_prefetch(name, solver):
    instance = load_instance(INSTANCES / f"{name}.json")
    result = solvers.solve(instance, solver=solver, prefetch=False)
    report = validate(instance, result.schedule, prefetch=False)
    assert report.feasible, [str(v) for v in report.violations]


def test_local_search_is_refused_without_prefetch():
    instance = load_instance(INSTANCES / "prefetch.json")
    assert not solvers.takes_prefetch("local-search")
    assert solvers.takes_prefetch("cpsat") and solvers.takes_prefetch("fifo")
    with pytest.raises(ValueError, match="may prefetch"):
        solvers.solve(instance, solver="local-search", prefetch=False)


def test_solve_and_verify_no_prefetch_on_the_command_line(tmp_path):
    runner = CliRunner()
    out = tmp_path / "held.json"
    instance = str(INSTANCES / "no-prefetch.json")
    result = runner.invoke(
        main, ["solve", instance, "--solver", "cpsat", "--no-prefetch", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "objective weighted-flow: 85.000000" in result.output
    strict = runner.invoke(main, ["verify", "--no-prefetch", instance, str(out)])
    assert strict.exit_code == 0 and "85.000000" in strict.output
    optimum = str(INSTANCES / "no-prefetch.optimum.json")
    assert runner.invoke(main, ["verify", instance, optimum]).exit_code == 0
    refused = runner.invoke(main, ["verify", "--no-prefetch", instance, optimum])
    assert refused.exit_code == 1 and "[prefetch]" in refused.output
    bad = runner.invoke(
        main,
        ["solve", instance, "--solver", "local-search", "--no-prefetch", "--out", str(out) + "2"],
    )
    assert bad.exit_code == 2
    assert bad.output.strip().splitlines() == [
        "--no-prefetch: solver 'local-search' may prefetch and has no option not to"
    ]
    assert not (tmp_path / "held.json2").exists()


PROVE_S = 60.0
"""CP-SAT's time to prove each optimum: each takes well under a second alone, at most 9 s
on the hardest instance of the family seen, and twice that on a machine shared with
another test; a failure is not shrunk (every shrinking step would solve again for up to
a minute, and starve the tests beside it)."""


@pytest.mark.paper  # 5 s alone, 11 to 86 s beside make test's other CP-SAT and process tests
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
@given(family())
def test_the_non_anticipative_optimum_lies_between_the_optimum_and_the_best_online(instance):
    free = solvers.solve(instance, solver="cpsat", time_limit_s=PROVE_S, seed=0)
    held = solvers.solve(instance, solver="cpsat", time_limit_s=PROVE_S, seed=0, prefetch=False)
    assert free.status is solvers.Status.OPTIMAL and held.status is solvers.Status.OPTIMAL
    assert validate(instance, held.schedule, prefetch=False).feasible
    best_online = min(solvers.solve(instance, solver=n).objective for n in ONLINE)
    tolerance = 1e-6 * max(1.0, abs(held.objective))
    assert free.objective <= held.objective + tolerance
    assert held.objective <= best_online + tolerance
