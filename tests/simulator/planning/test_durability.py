"""Tape losses: the closed form, each file's state, the data account, the Monte Carlo, the study."""

from __future__ import annotations

import json
import math
from random import Random

import pytest
from attrs import evolve
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.cli import main
from tapesched.simulator.planning.durability import (
    draw_lost_tapes,
    group_loss_probability,
    lay_out,
    proportion,
    simulate_losses,
    tape_groups,
    tape_loss_probability,
    tape_loss_rate,
)
from tapesched.simulator.storage.archive import Archive, ArchiveParams
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import FileLayout
from tapesched.simulator.storage.data_account import DataAccount, account
from tapesched.simulator.storage.files import FileSpec, Scheme
from tapesched.simulator.storage.policies.policy import Policy, preload
from tapesched.simulator.storage.policies.policy_registry import make_policy
from tapesched.simulator.workload.workload import SIZE_CLASSES_MB
from tapesched.studies.durability.report import panels_of, result_rows
from tapesched.studies.durability.study import (
    HANDLING_X,
    QUICK,
    QUICK_HANDLING,
    SCHEMES,
    TAPE_LOSS_X,
    HandlingConfig,
    handling_panel,
    tape_loss_panel,
)
from tapesched.studies.results_file import COLUMNS, read_results_csv, results_csv
from tests.studies import assert_redraws_its_own_figure

BLOCK_MB = 16.0
POLICIES = ("rait", "parallel", "vertical")


def policy(name: str) -> Policy:
    return make_policy(name, block_mb=BLOCK_MB)


# The closed form.


@pytest.mark.parametrize(
    ("scheme", "q", "expected"),
    [
        # 1 - 0.9^5 - 5 (0.1) 0.9^4
        (Scheme(4, 1), 0.1, 1 - 0.59049 - 0.32805),
        # 1 - 0.9^6 - 6 (0.1) 0.9^5 - 15 (0.01) 0.9^4
        (Scheme(4, 2), 0.1, 1 - 0.531441 - 0.354294 - 0.098415),
        # 1 - 0.9^10 - 10 (0.1) 0.9^9 - 45 (0.01) 0.9^8
        (Scheme(8, 2), 0.1, 1 - 0.3486784401 - 0.387420489 - 0.1937102445),
        # 4+2 at q = 1/2: (C(6,3) + C(6,4) + C(6,5) + C(6,6)) / 64 = 42 / 64
        (Scheme(4, 2), 0.5, 42 / 64),
        # No parity: any of X tapes.
        (Scheme(3, 0), 0.2, 1 - 0.8**3),
        (Scheme(4, 1), 0.0, 0.0),
        (Scheme(4, 1), 1.0, 1.0),
    ],
)
def test_a_group_is_lost_when_more_than_y_of_its_tapes_are(scheme, q, expected):
    assert group_loss_probability(scheme, q) == pytest.approx(expected, abs=1e-12)


def test_a_rate_per_tape_year_and_a_horizon_give_q_and_back():
    assert tape_loss_probability(0.01, 5.0) == pytest.approx(1 - math.exp(-0.05))
    assert tape_loss_rate(tape_loss_probability(0.01, 5.0), 5.0) == pytest.approx(0.01)
    assert tape_loss_probability(0.0, 3.0) == 0.0
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="within \\[0, 1\\]"):
            group_loss_probability(Scheme(4, 1), bad)
    with pytest.raises(ValueError, match="years must be > 0"):
        tape_loss_probability(0.01, 0.0)


# Each file's state, on archives of one file or two written by each policy.


def write(name: str, files: list[FileSpec], capacity_mb: float = 1000.0) -> Catalogue:
    cat = Catalogue(capacity_mb, ["L0"])
    preload(cat, policy(name), files, "L0")
    return cat


def member_tapes(layout: FileLayout) -> list[str]:
    """The one tape of each member of the file's one row ('' when none)."""
    (row,) = layout.rows
    return [m.tapes[0] if m.tapes else "" for m in row.members]


@pytest.mark.parametrize("name", ["rait", "parallel"])
def test_a_striped_file_of_one_row(name):
    # 4 blocks of a 4+1 file: one row, a data block on each of 4 tapes, parity on the fifth.
    cat = write(name, [FileSpec("f", 4 * BLOCK_MB, Scheme(4, 1), 1.0, 1.0)])
    tapes = member_tapes(cat.layout("f"))
    d0, d1, parity = tapes[0], tapes[1], tapes[4]
    assert cat.layout("f").rows[0].members[4].kind == "ec"
    assert cat.file_state("f", ()) == "readable"
    assert cat.file_state("f", {parity}) == "readable"  # parity is not read
    assert cat.file_state("f", {"T999999"}) == "readable"
    assert cat.file_state("f", {d0}) == "rebuilt"
    assert cat.file_state("f", {d0, parity}) == "lost"
    assert cat.file_state("f", [d0, d1]) == "lost"
    for lost in ({parity}, {d0}, {d0, parity}):
        assert cat.recoverable("f", lost) == (cat.file_state("f", lost) != "lost")


def test_a_rait_file_of_many_rows_has_data_on_every_tape():
    # Rows rotate over the tapes: every tape holds some of the file's data.
    cat = write("rait", [FileSpec("f", 40 * BLOCK_MB, Scheme(4, 2), 1.0, 1.0)])
    tapes = member_tapes(cat.layout("f"))
    assert all(cat.file_state("f", {t}) == "rebuilt" for t in tapes)
    assert cat.file_state("f", tapes[:2]) == "rebuilt"
    assert cat.file_state("f", tapes[:3]) == "lost"


def test_a_vertical_file_is_read_from_its_own_data_tape_and_rebuilt_from_its_group():
    # Two files fill two data tapes of a 4+1 parity group; the parity tape is written at close.
    cat = write(
        "vertical",
        [FileSpec("a", 1000.0, Scheme(4, 1), 1.0, 1.0), FileSpec("b", 1000.0, Scheme(4, 1))],
    )
    d0, d1, none2, none3, parity = member_tapes(cat.layout("a"))
    assert (none2, none3) == ("", "")  # the group's other data tapes were never reached
    assert member_tapes(cat.layout("b"))[:2] == [d0, d1]
    assert cat.file_state("a", {parity}) == "readable"
    assert cat.file_state("a", {d1}) == "readable"  # b's data tape: a is not on it
    assert cat.file_state("a", {d0}) == "rebuilt"
    assert cat.file_state("a", {d0, parity}) == "lost"
    assert cat.file_state("a", {d0, d1}) == "lost"
    # Its row has lost two members: lost, as the degraded read plans refuse it, though its
    # own tape is whole.
    assert cat.file_state("a", {d1, parity}) == "lost"
    assert cat.file_state("b", {d0}) == "readable"


def test_parity_held_on_a_movers_disk_survives():
    # A VERTICAL group not yet closed: its parity is on disk, on no tape.
    cat = Catalogue(1000.0, ["L0"])
    vertical = policy("vertical")
    _, group = vertical.plan_write(cat, FileSpec("a", 300.0, Scheme(2, 1)), None, "L0")
    vertical.plan_write(cat, FileSpec("b", 1000.0, Scheme(2, 1)), group, "L0")
    d0 = member_tapes(cat.layout("a"))[0]
    assert cat.layout("a").rows[0].members[2].held_mb > 0
    assert cat.file_state("a", {d0}) == "rebuilt"


@pytest.mark.parametrize("name", POLICIES)
def test_the_lazy_archives_files_have_states_too(name):
    archive = Archive(
        ArchiveParams(50_000),
        policy(name),
        sizes_mb=SIZE_CLASSES_MB["small"],
        schemes=((Scheme(4, 2), 1.0),),
        data_ratio=(1.0, 3.0),
        ec_ratio=None,
        capacity_mb=1_000_000.0,
        libraries=("L0",),
        seed=3,
    )
    cat = Catalogue(1_000_000.0, ["L0"], archive)
    for k in range(0, archive.count, archive.count // 7):
        file_id = f"a{k}"
        (row, *_) = cat.layout(file_id).rows
        own = [row.members[i] for i in row.own]
        data = [m.tapes[0] for m in own if any(p.data_host_mb > 0 for p in m.pieces)]
        parity = [m.tapes[0] for m in row.members if m.kind == "ec" and m.pieces]
        others = [t for t in row.tapes if t != data[0]]
        assert cat.file_state(file_id, ()) == "readable"
        assert cat.file_state(file_id, {data[0]}) == "rebuilt"
        assert cat.file_state(file_id, others[:2]) in ("readable", "rebuilt")
        assert cat.file_state(file_id, [data[0], *others[:2]]) == "lost"
        if name != "rait":  # RAIT rotates parity over every tape: none is parity only
            assert parity and cat.file_state(file_id, parity) == "readable"


def test_the_account_counts_and_weighs_each_state():
    files = [FileSpec(f"f{k}", 4 * BLOCK_MB * (k + 1), Scheme(4, 1), 1.0, 1.0) for k in range(3)]
    cat = write("parallel", files, capacity_mb=10_000.0)
    tapes = member_tapes(cat.layout("f0"))  # one group: every file on the same five tapes
    assert account(cat, ["f0", "f1", "f2"], ()) == DataAccount(3, 0, 0, 384.0, 0.0, 0.0)
    assert account(cat, ["f0", "f1", "f2"], {tapes[4]}) == DataAccount(3, 0, 0, 384.0, 0.0, 0.0)
    assert account(cat, ["f0", "f1", "f2"], {tapes[0]}) == DataAccount(0, 3, 0, 0.0, 384.0, 0.0)
    lost = account(cat, ["f0", "f2"], {tapes[0], tapes[4]})
    assert lost == DataAccount(0, 0, 2, 0.0, 0.0, 256.0)
    assert (lost.files, lost.total_mb) == (2, 256.0)


# The states against the layout, under random losses.


@st.composite
def archives(draw: st.DrawFn) -> tuple[Catalogue, list[FileSpec], frozenset[str]]:
    name = draw(st.sampled_from(POLICIES))
    scheme = draw(st.sampled_from([Scheme(2, 1), Scheme(4, 1), Scheme(4, 2), Scheme(3, 0)]))
    sizes = draw(st.lists(st.floats(1.0, 900.0), min_size=1, max_size=12))
    ratio = draw(st.sampled_from([1.0, 2.0]))
    files = [FileSpec(f"f{k}", s, scheme, ratio, 1.0) for k, s in enumerate(sizes)]
    cat = write(name, files, capacity_mb=300.0)
    tapes = [t.id for t in cat.tapes()]
    lost = draw(st.sets(st.sampled_from(tapes), max_size=len(tapes)))
    return cat, files, frozenset(lost)


@settings(derandomize=True, max_examples=120, deadline=None)
@given(archives())
def test_a_file_is_lost_exactly_when_a_row_has_more_than_y_lost_members(case):
    """Against the layout's rows, read afresh: lost exactly when some row has more than Y
    members on lost tapes (so never readable then, and never lost while every row keeps all
    but Y); otherwise readable exactly when no tape holding its own data is lost."""
    cat, files, lost = case
    for f in files:
        layout = cat.layout(f.id)
        y = f.scheme.parity
        state = cat.file_state(f.id, lost)
        beyond = any(
            sum(1 for m in row.members if any(p.tape in lost for p in m.pieces)) > y
            for row in layout.rows
        )
        data_lost = any(
            p.tape in lost and p.data_host_mb > 0
            for row in layout.rows
            for i in row.own
            for p in row.members[i].pieces
        )
        assert (state == "lost") == beyond
        if beyond:
            assert state != "readable"
        else:
            assert state == ("rebuilt" if data_lost else "readable")
        if all(sum(1 for t in row.tapes if t in lost) <= y for row in layout.rows):
            assert state != "lost"  # none lost while at most Y of each row's tapes are
        assert cat.recoverable(f.id, lost) == (state != "lost")
    total = account(cat, [f.id for f in files], lost)
    assert total.files == len(files)
    assert total.total_mb == pytest.approx(sum(f.size_mb for f in files))


# The Monte Carlo.


def test_draws_lose_each_tape_with_probability_q_and_repeat_with_the_seed():
    tapes = [f"T{k:06d}" for k in range(2000)]
    assert draw_lost_tapes(tapes, 0.0, Random(1)) == frozenset()
    assert draw_lost_tapes(tapes, 1.0, Random(1)) == frozenset(tapes)
    lost = sum(len(draw_lost_tapes(tapes, 0.03, Random(seed))) for seed in range(20))
    assert proportion(lost, 20 * len(tapes)).covers(0.03)
    assert draw_lost_tapes(tapes, 0.03, Random(7)) == draw_lost_tapes(tapes, 0.03, Random(7))


def test_groups_are_the_tapes_written_together():
    files = [FileSpec(f"f{k}", 300.0, Scheme(4, 1), 1.0, 1.0) for k in range(20)]
    for name in POLICIES:
        cat = write(name, files)
        groups = tape_groups(cat, 1)
        tapes = [t for g in groups for m in g.members for t in m]
        assert sorted(tapes) == sorted(t.id for t in cat.tapes())  # each tape in one group
        assert all(len(g.members) == 5 for g in groups)
        assert sum(g.complete for g in groups) >= len(groups) - 1  # VERTICAL's last may be short


@pytest.mark.parametrize(
    ("name", "scheme"),
    [("rait", Scheme(4, 1)), ("parallel", Scheme(4, 2)), ("vertical", SCHEMES[2])],
)
def test_the_simulated_share_of_lost_groups_agrees_with_the_binomial_closed_form(name, scheme):
    rng = Random(f"groups {scheme}")
    files = [FileSpec(f"f{k}", 10.0 * 20.0 ** rng.random(), scheme, 1.0, 1.0) for k in range(800)]
    laid_out = lay_out(Catalogue(250.0, ["L0"]), policy(name), files, "L0")
    assert len(laid_out.complete_groups) >= 20
    q = 0.15
    result = simulate_losses(laid_out, q, 400, Random(3))
    exact = group_loss_probability(scheme, q)
    assert result.groups.trials >= 8000
    assert result.groups.covers(exact)
    # The interval is narrow enough to tell q from a neighbour: the check can fail.
    assert not result.groups.covers(group_loss_probability(scheme, q * 1.25))
    assert not result.groups.covers(group_loss_probability(scheme, q / 1.25))


def test_files_filling_their_vertical_groups_are_lost_with_their_group():
    # Each file fills a data tape: 25 whole 4+1 parity groups, every window over all four.
    files = [FileSpec(f"f{k}", 250.0, Scheme(4, 1), 1.0, 1.0) for k in range(100)]
    laid_out = lay_out(Catalogue(250.0, ["L0"]), policy("vertical"), files, "L0")
    assert len(laid_out.complete_groups) == len(laid_out.groups) == 25
    for q in (0.05, 0.15):
        result = simulate_losses(laid_out, q, 200, Random(11))
        # Every file of a lost group is lost, and no other: the shares are the same draws'.
        assert result.files_lost_share.mean == pytest.approx(result.groups.share)
        assert result.groups.covers(group_loss_probability(Scheme(4, 1), q))


def test_the_monte_carlo_repeats_with_its_seed_and_its_account_adds_up():
    files = [FileSpec(f"f{k}", 50.0 + 7 * k, Scheme(4, 2), 1.0, 1.0) for k in range(60)]
    laid_out = lay_out(Catalogue(500.0, ["L0"]), policy("vertical"), files, "L0")
    one = simulate_losses(laid_out, 0.1, 30, Random(5))
    assert one == simulate_losses(laid_out, 0.1, 30, Random(5))
    mean = one.mean_account
    assert mean["files_readable"] + mean["files_rebuilt"] + mean["files_lost"] == pytest.approx(60)
    assert one.files_lost_share.mean == pytest.approx(mean["files_lost"] / 60)
    with pytest.raises(ValueError, match="one scheme"):
        lay_out(
            Catalogue(500.0, ["L0"]),
            policy("rait"),
            [*files, FileSpec("g", 1.0, Scheme(4, 1))],
            "L0",
        )


def test_the_exact_interval_holds_at_zero_and_at_every_trial():
    none = proportion(0, 1000)
    assert none.low == 0.0 and none.high == pytest.approx(0.00368, abs=1e-5)
    assert none.half_width == none.high
    every = proportion(20, 20)
    assert every.high == 1.0 and every.low == pytest.approx(0.8316, abs=1e-4)


# The experiment through the command line.


def run_cli(out: str, *args: str) -> str:
    result = CliRunner().invoke(main, ["experiment", "durability", "--out", out, *args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.paper  # 6 s
def test_the_quick_tape_losses_write_their_files_and_rows_say_what_they_should(tmp_path):
    """The tape-loss panel alone (6 s); the whole quick run, with the handling failures on
    the simulator (a quarter of a minute more), is a paper test below too."""
    out = tmp_path / "durability"
    printed = run_cli(str(out), "--quick", "--panel", "tape-loss")
    assert sorted(p.name for p in out.iterdir()) == ["figure.png", "results.csv", "summary.json"]
    assert (out / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "closed form" in printed and "vertical rebuilt" in printed
    everything = read_results_csv((out / "results.csv").read_text())
    assert {r.experiment for r in everything} == {"durability"}
    assert {r.x_name for r in everything} == {TAPE_LOSS_X}
    rows = [r for r in everything if r.x_name == TAPE_LOSS_X]
    series = {r.series for r in rows}
    expected = {f"{p} {s}" for p in POLICIES for s in SCHEMES}
    assert series == expected | {f"closed form {s}" for s in SCHEMES} | {"closed form"}
    xs = sorted({r.x for r in rows})
    assert xs == sorted(QUICK.q_values) and xs[0] == 0.001 and xs[-1] == 0.2
    cell = {(r.series, r.x, r.metric): r for r in rows}
    for s in SCHEMES:
        for q in xs:
            closed = cell[(f"closed form {s}", q, "groups_lost_share")].estimate
            assert closed.mean == group_loss_probability(s, q) and closed.replications == 0
            for p in POLICIES:
                lost = cell[(f"{p} {s}", q, "files_lost_share")].estimate
                rebuilt = cell[(f"{p} {s}", q, "files_rebuilt_share")].estimate
                assert lost.replications == QUICK.replications and not lost.saturated
                assert lost.mean is not None and rebuilt.mean is not None
                assert 0 <= lost.mean <= 1 and lost.mean + rebuilt.mean <= 1
        for p in POLICIES:
            # At q = 0.2, files are lost under every policy and scheme.
            assert (cell[(f"{p} {s}", 0.2, "files_lost_share")].estimate.mean or 0) > 0
        # A VERTICAL file is rebuilt only when its one data tape is lost; RAIT's rows span all.
        vertical = cell[(f"vertical {s}", 0.2, "files_rebuilt_share")].estimate.mean or 0
        assert vertical < (cell[(f"rait {s}", 0.2, "files_rebuilt_share")].estimate.mean or 0)
    summary = json.loads((out / "summary.json").read_text())
    panel = summary["panels"]["tape loss"]
    assert panel["settings"]["horizon_years"] == 5.0
    assert panel["settings"]["rate_per_tape_year"][0] == pytest.approx(tape_loss_rate(0.001, 5))
    point = panel["series"]["rait 4+2"][-1]
    assert point["x"] == 0.2 and point["closed_form"] == group_loss_probability(Scheme(4, 2), 0.2)
    low, high = point["groups_lost_interval_95"]
    assert low <= point["groups_lost_share"]["mean"] <= high
    # What the figure needs besides: the exact interval's ends, the rate of each q.
    assert cell[("rait 4+2", 0.2, "groups_lost_share_low")].estimate.mean == low
    assert cell[("rait 4+2", 0.2, "groups_lost_share_high")].estimate.mean == high
    rates = {r.x: r.estimate for r in rows if r.metric == "loss_rate_per_tape_year"}
    assert {r.series for r in rows if r.metric == "loss_rate_per_tape_year"} == {"closed form"}
    assert rates[0.001].mean == tape_loss_rate(0.001, 5) and rates[0.001].replications == 0


def test_the_figure_is_drawn_from_the_rows_alone_as_from_the_draws():
    """The panel read back from the rows is the one drawn from the draws (the quick run's
    figure, drawn again byte for byte, is a paper test below)."""
    config = evolve(QUICK, files=40, replications=3, horizon_years=7.3, q_values=(0.01, 0.2))
    drawn = tape_loss_panel(config, 1)
    (again,) = panels_of(read_results_csv(results_csv(result_rows([drawn]))))
    assert again.series == drawn.series and again.colours == drawn.colours
    assert [(p.series, p.x, p.values) for p in again.points] == [
        (p.series, p.x, p.values) for p in drawn.points
    ]
    assert [p.interval("groups_lost_share") for p in again.points] == [
        p.interval("groups_lost_share") for p in drawn.points
    ]
    assert [(c.label, c.metric, c.value(0.1)) for c in again.curves] == [
        (c.label, c.metric, c.value(0.1)) for c in drawn.curves
    ]
    assert again.second_x is not None and drawn.second_x is not None
    label = "tape-loss rate per tape-year over 7.3 years"
    assert again.second_x.label == drawn.second_x.label == label
    assert again.second_x.forward([0.1]) == drawn.second_x.forward([0.1])


def test_plot_results_says_what_a_durability_file_lacks_for_its_figure(tmp_path):
    point = "durability,rait 4+1,tape_loss_probability,0.1,{},0.5,,5,false\n"
    lines = [point.format(m) for m in ("files_lost_share", "groups_lost_share")]
    rates = (
        "durability,closed form,tape_loss_probability,0.1,loss_rate_per_tape_year,0.02,,0,false\n"
    )
    cases = {
        "no-rate.csv": (
            lines,
            "no loss_rate_per_tape_year of a q > 0 over tape_loss_probability: "
            "the figure's top axis",
        ),
        "no-rebuilt.csv": (
            [*lines, rates],
            "rait 4+1 at tape_loss_probability 0.1 has no files_rebuilt_share",
        ),
    }
    for name, (body, message) in cases.items():
        path = tmp_path / name
        path.write_text(",".join(COLUMNS) + "\n" + "".join(body), encoding="utf-8")
        again = str(tmp_path / "again.png")
        result = CliRunner().invoke(main, ["plot", "results", str(path), "--out", again])
        assert result.exit_code == 2, result.output
        assert result.output.strip().splitlines() == [f"{path}: {message}"]


@pytest.mark.paper
def test_the_quick_experiment_adds_the_handling_failures_and_their_cost_in_mounts(tmp_path):
    """The whole quick run: each policy on the simulator at each handling-failure
    probability p, the tries' cost in mounts."""
    out = tmp_path / "durability"
    printed = run_cli(str(out), "--quick")
    everything = read_results_csv((out / "results.csv").read_text())
    assert {r.x_name for r in everything} == {TAPE_LOSS_X, HANDLING_X}
    summary = json.loads((out / "summary.json").read_text())
    assert "mounts/request" in printed
    handled = {(r.series, r.x, r.metric): r for r in everything if r.x_name == HANDLING_X}
    ps = QUICK_HANDLING.p_values
    assert {(s, x) for s, x, _ in handled} == {(p, x) for p in POLICIES for x in ps}
    for p in POLICIES:
        mounts = [handled[(p, x, "mounts_per_request")].estimate.mean or 0.0 for x in ps]
        assert mounts[0] > 0 and mounts[-1] > mounts[0]
        assert handled[(p, ps[0], "failed_share")].estimate.mean == 0.0
    costs = summary["panels"]["handling failures"]
    assert costs["settings"]["p_values"] == list(ps)
    assert costs["series"]["rait"][0]["handling_failures"] == [0] * QUICK_HANDLING.replications
    assert min(costs["series"]["rait"][-1]["handling_failures"]) > 0
    assert costs["series"]["rait"][-1]["mount_given_up_probability"] == pytest.approx(0.1**3)
    assert_redraws_its_own_figure(out, tmp_path)


def test_the_same_seed_gives_the_same_results(tmp_path):
    run_cli(
        str(tmp_path / "a"), "--quick", "--files", "200", "--replications", "5",
        "--panel", "tape-loss",
    )  # fmt: skip
    text = (tmp_path / "a" / "results.csv").read_text()
    config = evolve(QUICK, files=200, replications=5)
    assert results_csv(result_rows([tape_loss_panel(config, 1)])) == text
    assert results_csv(result_rows([tape_loss_panel(config, 2)])) != text


def test_the_handling_sweep_is_the_same_from_the_same_seed():
    config = HandlingConfig(p_values=(0.0, 0.1), days=0.25, replications=2, policies=("parallel",))
    first = handling_panel(config, 3)
    assert handling_panel(config, 3) == first
    assert results_csv(result_rows([first])) != results_csv(
        result_rows([handling_panel(config, 4)])
    )
