"""``tapesched stripe``: a stripe width per request class, by the closed forms and by simulation.

For a scenario with request classes (Golubchik et al.'s Ampex library by
default) and one or more arrival rates, prints the paper's fast answers
(the no-load width of each class, the vector of highest stability limit),
then the best vector of the full search and the best equi-striped vector
found on the simulator, each with its 95 % interval, and the gap between
them (:mod:`tapesched.studies.stripe_search`). ``--equi-only`` runs equi-striping
alone (``K`` vectors instead of ``K ** J``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import (
    DurationType,
    RateType,
    allow_plugins_option,
    check_named_code,
    fail,
    reports_bad_input,
)
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.runtime.limits import MAX_WORKERS
from tapesched.toolkit.units import MAX_ARRIVALS, MAX_SIZE_MB

if TYPE_CHECKING:
    from tapesched.studies.stripe_search import Candidate, Selection

WORKLOADS_GB = {"small": (1.0, 2.0, 3.0), "medium": (2.0, 4.0, 6.0), "large": (4.0, 8.0, 12.0)}
"""The paper's three class mixes (Section 5, Figures 8, 10 and 12), in GB."""

QUICK_DURATION_S = 4 * 86400.0
"""The simulated time of a replication with ``--quick`` (the gol- experiments' quick horizon)."""


def _parse_sizes(text: str) -> tuple[float, ...]:
    sizes = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"{part.strip()!r} is not a size in GB") from None
        if not 0 < value * 1000 <= MAX_SIZE_MB:
            raise ValueError(
                f"sizes are positive GB up to {MAX_SIZE_MB / 1000:g}, got {part.strip()!r}"
            )
        sizes.append(value)
    return tuple(sizes)


def _cell(c: Candidate | None) -> str:
    if c is None or c.measured is None or c.measured.mean_s is None:
        return "every vector saturated"
    half = c.measured.half_width_s
    return f"{c.label}: {c.measured.mean_s:.1f}" + ("" if half is None else f" ± {half:.1f}")


def _gap(selection: Selection) -> str:
    gap = selection.gap
    if gap is None:
        return "-"
    value, half = gap
    return f"{100 * value:.1f} %" + ("" if half is None else f" ± {100 * half:.1f}")


def _document(selection: Selection) -> dict[str, object]:
    def one(c: Candidate | None) -> dict[str, object] | None:
        if c is None or c.measured is None:
            return None
        m = c.measured
        return {"vector": c.label, "widths": list(c.widths), "mean_response_s": m.mean_s,
                "half_width_s": m.half_width_s, "replications": m.replications}  # fmt: skip

    gap = selection.gap
    return {
        "rate_per_min": selection.rate_per_s * 60,
        "closed_form_no_load": list(selection.closed_form_no_load),  # widths, class order
        "closed_form_heavy_load": list(selection.closed_form_heavy_load),
        "best": one(selection.best),
        "best_equi": one(selection.best_equi),
        "gap": None if gap is None else {"value": gap[0], "half_width": gap[1]},
        "evaluated": selection.evaluated,
        "pruned": selection.pruned,
        "vectors": [
            {
                "vector": c.label,
                "response_bound_s": c.response_bound_s,
                "occupancy_limit_per_min": c.occupancy_limit_per_s * 60,
                "no_load_response_s": c.no_load_response_s,
                "stability_limit_per_min": c.stability_limit_per_s * 60,
                "mean_response_s": None if c.measured is None else c.measured.mean_s,
                "half_width_s": None if c.measured is None else c.measured.half_width_s,
                "pruned": c.pruned,
            }
            for c in selection.candidates
        ],
    }


@click.command()
@click.argument("scenario_file", required=False)
@click.option(
    "--rate",
    "rates",
    type=RateType(),
    multiple=True,
    required=True,
    help="Arrival rate, e.g. 0.3/min; repeat for several.",
)
@click.option(
    "--workload",
    type=click.Choice(sorted(WORKLOADS_GB)),
    default=None,
    help="The paper's class sizes: small 1/2/3 GB, medium 2/4/6, large 4/8/12.",
)
@click.option(
    "--sizes", default=None, metavar="GB,GB,...", help="Class sizes in GB, one per class."
)
@click.option("--equi-only", is_flag=True, help="Equi-striping alone: K vectors, not K^J.")
@click.option("--quick", is_flag=True, help="4-day replications, at most 3 a vector.")
@click.option("--duration", type=DurationType(), default=None, help="Simulated time of a run.")
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=MAX_WORKERS),
    default=2,
    help="Local worker processes (1 runs in this process).",
)
@click.option("--seed", type=int, default=1, help="The search's seed.")
@click.option(
    "--max-replications",
    type=click.IntRange(min=2, max=1000),
    default=None,
    help="Replications a vector at most (default 10; 3 with --quick).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@allow_plugins_option
@reports_bad_input
def stripe(
    scenario_file: str | None,
    rates: tuple[float, ...],
    workload: str | None,
    sizes: str | None,
    equi_only: bool,
    quick: bool,
    duration: float | None,
    workers: int,
    seed: int,
    max_replications: int | None,
    as_json: bool,
    allow_plugins: bool,
) -> None:
    """Choose a stripe width per request class of SCENARIO_FILE at each --rate.

    SCENARIO_FILE has request classes (workload.request_classes); the
    default is Golubchik et al.'s Ampex library
    (instances/scenarios/golubchik/ampex.json). Prints the closed forms'
    answers, then the best vector and the best equi-striped vector on the
    simulator (mean response time, 95 % interval) and the gap between them.
    """
    from attrs import evolve

    from tapesched.simulator.run.experiment import override
    from tapesched.simulator.scenario.document import load_scenario
    from tapesched.simulator.scenario.workload_section import arrivals_message
    from tapesched.simulator.workload.workload import with_class_sizes
    from tapesched.studies.golubchik_studies import SCENARIO_FILE
    from tapesched.studies.stripe_search import (
        METRIC,
        SweepEvaluate,
        label,
        library_times,
        mix_of,
        select,
    )
    from tapesched.studies.sweep import Precision, executor

    if workload is not None and sizes is not None:
        fail(["--sizes: not with --workload (both set the class sizes)"])
    given = scenario_file or str(SCENARIO_FILE)
    scenario = load_scenario(given)
    check_named_code(scenario, given, allow_plugins)
    if not scenario.workload.classes:
        fail([f"{given}: workload.request_classes: missing; the search needs request classes"])
    if workload is not None or sizes is not None:
        try:
            gb = WORKLOADS_GB[workload] if workload is not None else _parse_sizes(sizes or "")
            resized = with_class_sizes(scenario.workload, [g * 1000.0 for g in gb])
            scenario = evolve(scenario, workload=resized)
        except ValueError as exc:
            fail([f"{'--workload' if workload is not None else '--sizes'}: {exc}"])
    if duration is not None or quick:
        scenario = override(scenario, duration_s=duration or QUICK_DURATION_S)
    span_s = scenario.workload.duration_s
    too_many = [rate for rate in rates if rate * span_s > MAX_ARRIVALS]
    if too_many:
        fail([f"--rate: {arrivals_message(max(too_many), span_s)}"])
    try:
        times, mix = library_times(scenario), mix_of(scenario)
    except ValueError as exc:
        fail([f"{given}: platform: {exc}"])
    cap = max_replications or (3 if quick else 10)
    precision = Precision(share=0.05, min_replications=2, max_replications=cap, metric=METRIC)
    selections = []
    with executor(workers) as pool:
        for rate in rates:
            began = time.perf_counter()
            evaluate = SweepEvaluate(scenario, rate, pool=pool, precision=precision, seed=seed)
            selection = select(times, mix, rate, evaluate, batch=2 * workers, equi_only=equi_only)
            selections.append((selection, evaluate.replications, time.perf_counter() - began))
    if as_json:
        click.echo(dumps({"scenario_file": given, "seed": seed, "equi_only": equi_only,
                          "rates": [_document(s) for s, _, _ in selections]}))  # fmt: skip
        return
    table = Table(title=f"{scenario.name}: stripe widths, mean response time (s)")
    for heading in ("rate (/min)", "closed form no load / heavy", "best", "best equi-striped",
                    "gap", "run / pruned", "replications", "time (s)"):  # fmt: skip
        table.add_column(heading)
    for selection, replications, elapsed in selections:
        table.add_row(
            f"{selection.rate_per_s * 60:g}",
            f"{label(selection.closed_form_no_load)} / {label(selection.closed_form_heavy_load)}",
            "-" if equi_only else _cell(selection.best),
            _cell(selection.best_equi),
            "-" if equi_only else _gap(selection),
            f"{selection.evaluated} / {selection.pruned}",
            str(replications),
            f"{elapsed:.1f}",
        )
    Console(width=160).print(table)
