"""Golubchik, Muntz and Watson's striping study: request classes, the golubchik discipline,
``--striping``, and what ``gol-fig8 --quick`` shows (seed 1)."""

from __future__ import annotations

import io
import itertools
import json
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.results.replications import override, run_once
from tapesched.simulator.scenario.document import load_scenario, scenario_from_dict
from tapesched.simulator.workload.workload import generate, with_striping
from tapesched.studies.golubchik.figures import GOL_FIG8, SCENARIO_FILE
from tapesched.studies.sweeps.report import best_by_x, best_map
from tapesched.studies.sweeps.study import points
from tapesched.studies.sweeps.sweep import InProcess, Precision, run_sweep
from tapesched.toolkit.errors import InputError

SOURCE = "g.json"
GOL = str(SCENARIO_FILE)


def _document() -> dict[str, Any]:
    return json.loads(SCENARIO_FILE.read_text())


def _problems(doc: Any) -> list[str]:
    with pytest.raises(InputError) as caught:
        scenario_from_dict(doc, SOURCE)
    return caught.value.lines()


def _classes(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc["workload"]["request_classes"]  # type: ignore[no-any-return]


def _set_width(width: Any) -> Any:
    def mutate(doc: dict[str, Any]) -> None:
        _classes(doc)[1]["width"] = width

    return mutate


def _shares(doc: dict[str, Any]) -> None:
    _classes(doc)[0]["share"] = 0.5


def _with_sizes(doc: dict[str, Any]) -> None:
    doc["workload"]["sizes"] = [1000, 3000]


def _no_classes(doc: dict[str, Any]) -> None:
    del doc["workload"]["request_classes"]


def _no_size(doc: dict[str, Any]) -> None:
    del _classes(doc)[2]["size_mb"]


def _transfer(doc: dict[str, Any]) -> None:
    doc["platform"]["drives"][0]["model"]["transfer"] = "gamma"


def _on_demand(doc: dict[str, Any]) -> None:
    doc["platform"]["dismount"] = "on-demand"


BAD = [
    ("shares not summing to 1", _shares, "workload.request_classes", "shares must sum to 1"),
    ("width 0", _set_width(0), "workload.request_classes[1].width", "must be >= 1, got 0"),
    ("width 1.5", _set_width(1.5), "workload.request_classes[1].width", "expected an integer"),
    ("width past the drives", _set_width(5), "workload.request_classes[1].width",
     "needs 5 drives of one library; the most one has is 4"),
    ("sizes beside classes", _with_sizes, "workload.sizes", "not with workload.request_classes"),
    ("neither sizes nor classes", _no_classes, "workload.sizes", "missing key"),
    ("class without size", _no_size, "workload.request_classes[2].size_mb", "missing key"),
    ("unknown transfer", _transfer, "platform.drives[0].model",
     "transfer is fixed or exponential, got 'gamma'"),
    ("golubchik on demand", _on_demand, "platform.dismount", "the golubchik scheduler needs"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "path", "fragment"), [c[1:] for c in BAD], ids=[c[0] for c in BAD]
)
def test_a_bad_class_or_discipline_is_named_at_its_path(mutate, path, fragment):
    doc = _document()
    mutate(doc)
    lines = [line for line in _problems(doc) if line.startswith(f"{SOURCE}: {path}: ")]
    assert lines, _problems(doc)
    assert fragment in lines[0], lines


@pytest.mark.parametrize(
    ("vector", "line"),
    [
        ("1,2", "--striping: expected 3 widths, one per request class, got 2"),
        ("1,5,2", "--striping: width 5 is more than the 4 drives of a library"),
        ("1,0,2", "--striping: '1,0,2' is not a striping vector"),
        ("1,x,2", "--striping: '1,x,2' is not a striping vector"),
    ],
)
def test_a_bad_striping_vector_is_one_line_and_exit_2(tmp_path, vector, line):
    result = CliRunner().invoke(
        main, ["simulate", GOL, "--striping", vector, "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(line)
    assert "Traceback" not in result.stderr and not (tmp_path / "o").exists()


def test_striping_a_scenario_without_classes_is_refused_in_one_line():
    from tests.conftest import INSTANCES

    result = CliRunner().invoke(
        main, ["simulate", str(INSTANCES / "scenarios" / "ampex.json"), "--striping", "1"]
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "--striping: the scenario has no request classes (workload.request_classes) to stripe"
    ]


def test_the_striping_option_changes_the_widths_and_not_the_requests():
    base = load_scenario(SCENARIO_FILE)
    striped = override(base, striping=(1, 2, 4))
    assert [c.width for c in striped.workload.classes] == [1, 2, 4]
    assert [c.size_mb for c in striped.workload.classes] == [1000.0, 2000.0, 3000.0]
    plain = generate(override(base, duration_s=3600.0).workload, 7)
    wide = generate(override(striped, duration_s=3600.0).workload, 7)
    assert [(r.arrival_s, r.file.id, r.file.size_mb) for r in plain.requests] == [
        (r.arrival_s, r.file.id, r.file.size_mb) for r in wide.requests
    ]
    assert {str(f.scheme) for f in wide.initial} == {"1+0", "2+0", "4+0"}
    with pytest.raises(ValueError, match="one per class"):
        with_striping(base.workload, (1, 2))


def test_simulate_with_striping_reads_each_class_on_its_width_of_drives(tmp_path):
    out = tmp_path / "o"
    result = CliRunner().invoke(
        main,
        ["simulate", GOL, "--striping", "1,2,4", "--duration", "1d", "--replications", "1",
         "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "no schedule exported" in result.output
    assert json.loads((out / "summary.json").read_text())["striping"] == "124"
    rows = (out / "requests.csv").read_text().splitlines()[1:]
    widths = {}
    for row in rows:
        fields = row.split(",")
        size, drives = float(fields[3]), fields[8].split()
        widths.setdefault(size, set()).add(len(drives))
        assert len(set(drives)) == len(drives)
    assert widths == {1000.0: {1}, 2000.0: {2}, 3000.0: {4}}


def _events(scenario: Any, seed: int) -> list[dict[str, Any]]:
    log = io.BytesIO()
    run_once(scenario, seed, log=log)
    return [orjson.loads(line) for line in log.getvalue().splitlines()]


def test_drives_go_one_at_a_time_to_the_front_request_which_holds_them():
    scenario = override(
        load_scenario(SCENARIO_FILE), striping=(4, 4, 4), rate_per_s=0.3 / 60, duration_s=86400.0
    )
    events = _events(scenario, 3)
    queued = [e["request"] for e in events if e["event"] == "queue"]
    grants: dict[str, list[float]] = {}
    order: list[str] = []
    for e in events:
        if e["event"] == "grant":
            grants.setdefault(e["request"], []).append(e["t"])
            if not order or order[-1] != e["request"]:
                order.append(e["request"])
    # Granted in the order queued, each request's four drives before the next gets one.
    assert order == queued[: len(order)]
    assert all(len(ts) == 4 for r, ts in grants.items() if r != order[-1])
    # Partial holding: many requests got their drives at different times.
    spread = [r for r, ts in grants.items() if max(ts) > min(ts)]
    assert len(spread) > len(grants) // 4


def test_each_drive_is_let_go_at_its_own_end_not_with_its_buddies():
    scenario = override(
        load_scenario(SCENARIO_FILE), striping=(4, 4, 4), rate_per_s=0.1 / 60, duration_s=86400.0
    )
    replication = run_once(scenario, 5)
    platform = replication.simulation.platform
    dismounts: dict[str, list[float]] = {}
    for op, tape, _, _, end, _ in platform.arm_log:
        if op == "dismount":
            dismounts.setdefault(tape, []).append(end)
    for record in replication.records:
        # Each tape's dismount after the data is done; the request is over with the last one.
        ends = sorted(min(t for t in dismounts[tape] if t >= record.end_s) for tape in record.tapes)
        assert ends[-1] == pytest.approx(record.free_s)
        # One arm puts the four tapes away in turn, as each drive ends: four times.
        assert len(set(ends)) == 4


@pytest.fixture(scope="module")
def fig8():
    """``gol-fig8 --quick`` with seed 1, two replications a point, in this process."""
    study = GOL_FIG8.study
    swept = points(study, load_scenario(SCENARIO_FILE), quick=True)
    precision = Precision(max_replications=2, metric=study.metrics[0])
    outcome = run_sweep(swept, seed=1, precision=precision, pool=InProcess())
    return study, outcome.results


@pytest.mark.paper
def test_plot_results_redraws_fig8s_own_figure_from_its_results_csv(fig8, tmp_path):
    from tapesched.studies.results_file import results_csv
    from tapesched.studies.sweeps.figure import study_figure
    from tapesched.studies.sweeps.report import result_rows
    from tapesched.toolkit.plots.figures import render
    from tests.conftest import redraws

    study, results = fig8
    rows = result_rows(study, results)
    (tmp_path / "results.csv").write_text(results_csv(rows))
    printed = redraws(tmp_path / "results.csv", tmp_path / "again.png")
    assert "gol-fig8's own figure" in printed
    assert (tmp_path / "again.png").read_bytes() == render(study_figure(study, rows), "png")


@pytest.mark.paper
def test_fig8_a_striped_vector_is_best_at_the_lowest_rate_and_111_at_the_highest(fig8):
    study, results = fig8
    best = best_by_x(results, study.metrics[0])
    rates = sorted(best)
    assert rates == sorted(study.quick_x_values)
    assert max(int(w) for w in best[rates[0]]) > 1
    assert best[rates[-1]] == "111"


@pytest.mark.paper
def test_fig8_the_best_vectors_widths_do_not_increase_with_the_rate(fig8):
    study, results = fig8
    best = list(best_by_x(results, study.metrics[0]).values())
    for before, after in itertools.pairwise(best):
        assert all(int(a) <= int(b) for a, b in zip(after, before, strict=True)), best


@pytest.mark.paper
def test_fig8_unstriped_drives_are_the_least_busy_at_every_rate(fig8):
    _, results = fig8
    busy: dict[float, dict[str, float]] = {}
    for r in results:
        mean = r.estimates["drive_busy_share_over_horizon"].mean
        if mean is not None and not r.saturated:
            busy.setdefault(r.point.x, {})[r.point.series] = mean
    for x, shares in busy.items():
        assert min(shares, key=shares.__getitem__) == "111", (x, shares)


@pytest.mark.paper
def test_a_map_row_is_the_best_vector_at_each_rate(fig8):
    study, results = fig8
    cells = best_map(results, study.metrics[0])
    assert {scale for scale, _ in cells} == {1.0}
    assert [cells[(1.0, x)] for x in sorted(study.quick_x_values)] == list(
        best_by_x(results, study.metrics[0]).values()
    )


def test_the_listing_names_the_striping_experiments_and_an_unknown_one_every_experiment():
    runner = CliRunner()
    listing = runner.invoke(main, ["experiment", "--list"])
    assert listing.exit_code == 0
    for name in ("gol-fig8", "gol-fig10", "gol-fig12", "gol-fig14"):
        assert f"\n{name}: Figure" in f"\n{listing.stdout}"
    assert "(--quick: 111, 112, 122, 222, 333, 444)" in listing.stdout
    unknown = runner.invoke(main, ["experiment", "gol-fig9", "--out", "x"])
    assert unknown.exit_code == 2
    assert unknown.stderr.splitlines() == [
        "unknown experiment 'gol-fig9'; known: bw-fig5, bw-fig6, bw-fig7, bw-fig8, bw-fig9, "
        "bw-fig10, bw-fig11, gol-fig8, gol-fig10, gol-fig12, gol-fig14, gol-stripe-search, "
        "online-vs-offline, bnl-coverage, ecmwf-defer-dismount, cnaf-bulk-recall, durability, "
        "site-sweep"
    ]
