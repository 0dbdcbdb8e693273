"""One name for one quantity across ``metrics``, ``simulate`` and ``replay`` (issue 10).

On one Ampex run with fixed times, ``tapesched metrics`` of the exported
schedule and ``simulate``'s own summary give equal values for every quantity
both report, and every share of drive or arm time and every throughput the
three commands print is defined once, in ``toolkit.metrics.DEFINITIONS``.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.toolkit.metrics import DEFINITIONS
from tests.conftest import INSTANCES, ROOT

ECMWF = INSTANCES / "traces" / "ecmwf"
SHARE_OR_RATE = re.compile(r"_share_over_|^throughput_")


def _json(*args: object) -> dict:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def ampex_run(tmp_path_factory):
    """The Ampex scenario (fixed times) on a trace of 300 reads run to its end, and its export.

    A trace runs until every request is done, so nothing is in flight when
    the run ends; with no warm-up, ``simulate`` measures every request, as
    ``metrics`` does.
    """
    scenario = json.loads((INSTANCES / "scenarios" / "ampex.json").read_text())
    scenario["run"]["warmup"] = 0
    folder = tmp_path_factory.mktemp("ampex")
    path = folder / "ampex.json"
    path.write_text(json.dumps(scenario))
    trace = folder / "reads.csv"
    lines = [f"{60 * k},read,f{k * 37 % 300},1000" for k in range(300)]
    trace.write_text("\n".join(["arrival_s,kind,file,size_mb", *lines]) + "\n")
    out = folder / "out"
    summary = _json("simulate", path, "--workload", trace, "--replications", 1, "--out", out,
                    "--json")  # fmt: skip
    metrics = _json("metrics", out / "instance.json", out / "schedule.json", "--json")
    return summary["replications"][0], metrics


def test_metrics_of_the_export_and_simulate_agree_on_every_quantity_both_report(ampex_run):
    run, metrics = ampex_run
    # Nothing left in flight at the end: both measure the same requests.
    assert run["backlog"] == 0 and run["completed"] == metrics["requests"] == 300
    shared = set(run) & set(metrics)
    assert shared == {
        "mean_response_s",
        "mean_stretch",
        "makespan_s",
        "mounts",
        "drive_streaming_share_over_makespan",
        "arm_busy_share_over_makespan",
    }
    for name in shared:
        assert run[name] == pytest.approx(metrics[name], rel=1e-9), name


def test_the_names_say_why_the_ampex_figures_differ(ampex_run):
    run, metrics = ampex_run
    horizon_s, makespan_s = run["duration_s"], metrics["makespan_s"]
    assert makespan_s <= horizon_s
    # The same drive time streaming, over two spans.
    assert run["drive_streaming_share_over_horizon"] * horizon_s == pytest.approx(
        metrics["drive_streaming_share_over_makespan"] * makespan_s
    )
    assert run["arm_busy_share_over_horizon"] * horizon_s == pytest.approx(
        metrics["arm_busy_share_over_makespan"] * makespan_s
    )
    # Busy counts the switches too (mount 10 s, load 5 s, unload 17 s,
    # dismount 10 s, and waits for the one arm) beside the 80 s of streaming.
    busy, streaming = (
        run["drive_busy_share_over_horizon"],
        run["drive_streaming_share_over_horizon"],
    )
    assert busy > 1.5 * streaming > 0


def test_every_share_and_throughput_printed_is_defined_once(ampex_run):
    run, metrics = ampex_run
    replay = _json(
        "replay", ECMWF / "io_events_sample_10k.csv.bz2",
        ECMWF / "sl8500_from_snap20111001.json.bz2", "--drives", 20, "--limit", 200, "--json",
    )  # fmt: skip
    printed = {
        "metrics": {k for k in metrics if SHARE_OR_RATE.search(k)},
        "simulate": {k for k in run if SHARE_OR_RATE.search(k)},
        "replay": {k for k in replay if SHARE_OR_RATE.search(k)},
    }
    assert printed == {
        "metrics": {
            "drive_streaming_share_over_makespan",
            "arm_busy_share_over_makespan",
            "throughput_mb_s_over_makespan",
        },
        "simulate": {
            "drive_busy_share_over_horizon",
            "drive_streaming_share_over_horizon",
            "arm_busy_share_over_horizon",
            "drive_streaming_share_over_makespan",
            "arm_busy_share_over_makespan",
            "throughput_mb_s_over_window",
        },
        "replay": {
            "drive_busy_share_over_horizon",
            "drive_in_use_share_over_horizon",
            "arm_busy_share_over_horizon",
        },
    }
    every = set().union(*printed.values())
    assert every <= set(DEFINITIONS)
    pages = [p.read_text() for p in (ROOT / "README.md", *(ROOT / "docs").rglob("*.md"))]
    for name in DEFINITIONS:
        entry = re.compile(rf"^ *- `{name}`( \([^)]*\))?:", re.MULTILINE)
        found = sum(len(entry.findall(page)) for page in pages)
        assert found == 1, f"the documentation defines {name} {found} times, not once"
