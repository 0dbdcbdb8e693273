"""A drive's serpentine locate model (``drives[i].locate``, version 2): read, written,
refused, timed by one function and judged by the validator; every built-in solver
times it, and a solver registered at run time, which does not say it does, refuses it."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from attrs import evolve
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import tapesched.cli
from tapesched import solvers
from tapesched.solvers import registry
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.bounds.window_bound import applies
from tapesched.solvers.exact.formulation import UnmodelledLocate
from tapesched.solvers.local_search import improve
from tapesched.solvers.registry import get, names
from tapesched.studies.recall.study import StudyConfig
from tapesched.toolkit.files.instance_file import instance_to_dict, loads_instance
from tapesched.toolkit.files.schedule_file import schedule_to_dict
from tapesched.toolkit.hardware.tape_geometry import CtaCostHeuristic, PhysicalLocate
from tapesched.toolkit.hardware.technology import TAPE_FORMATS
from tapesched.toolkit.metrics import alone_s
from tapesched.toolkit.model import (
    LOCATE_MODEL_NAMES,
    ArmOperation,
    Drive,
    Instance,
    Locate,
    Schedule,
    ScheduledRequest,
    serpentine_tape,
)
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate
from tests.conftest import INSTANCES

CAPACITY_MB = 6_000_000.0


def document(model: str = "cta-lto", tape_format: str = "LTO-7") -> dict:
    """One serpentine drive holding T1 at time 0 (no mount to pay), one request per offset."""
    return {
        "format": "tapesched.instance/2",
        "name": "serpentine",
        "libraries": [{"id": "L0", "arms": 1, "mount_s": 10, "dismount_s": 10}],
        "drives": [
            {
                "id": "d0",
                "library": "L0",
                "rate_mb_s": 300,
                "load_s": 15,
                "unload_s": 20,
                "locate_mb_s": 10000,
                "locate": {"model": model, "format": tape_format},
            }
        ],
        "tapes": [{"id": "T1", "library": "L0", "capacity_mb": CAPACITY_MB}],
        "initial": [{"drive": "d0", "tape": "T1"}],
        "objective": "weighted-flow",
        "requests": [
            {
                "id": "r1",
                "release_s": 0,
                "weight": 1.0,
                "kind": "read",
                "pieces": [{"tape": "T1", "offset_mb": 1.0, "size_mb": 300}],
            }
        ],
    }


def instance(model: str = "cta-lto", tape_format: str = "LTO-7") -> Instance:
    return loads_instance(json.dumps(document(model, tape_format)))


def one_read(start_s: float) -> Schedule:
    return Schedule([ScheduledRequest("r1", ["d0"], start_s, start_s + 1.0)], [])


def test_a_linear_drive_locates_as_before():
    drive = Drive("d", "L0", 300, 15, 20, 1000)
    assert drive.linear
    assert drive.locate_s(3000, 1000) == drive.locate_s(1000, 3000) == 2.0
    assert drive.floor_speed_mb_s == 1000


def test_the_command_line_and_the_files_spell_each_locate_model_alike():
    """One name per locate model: a drive of a file declares it, ``--locate`` takes it and
    the output repeats it, the BNL study runs it by default; CTA's former command-line
    spelling ``cta`` (also the name of CTA's mount criteria) is refused, naming the choices."""
    recall = str(INSTANCES / "recall" / "lto7-files.json")
    assert LOCATE_MODEL_NAMES == ("cta-lto", "physical")
    for model in LOCATE_MODEL_NAMES:
        assert instance(model).drives[0].locate == Locate(model, "LTO-7")
        args = ["order", recall, "--algorithm", "offset", "--locate", model, "--json"]
        result = CliRunner().invoke(tapesched.cli.main, args)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["locate_model"] == model
    result = CliRunner().invoke(tapesched.cli.main, ["order", recall, "--json"])
    assert json.loads(result.stdout)["locate_model"] == StudyConfig().locate == "cta-lto"
    result = CliRunner().invoke(tapesched.cli.main, ["order", recall, "--locate", "cta"])
    assert result.exit_code == 2
    assert "'cta' is not one of 'cta-lto', 'physical'" in result.stderr


@pytest.mark.parametrize("model", LOCATE_MODEL_NAMES)
def test_a_serpentine_drive_asks_its_model_on_the_tape_of_its_capacity(model):
    drive = instance(model).drives[0]
    assert not drive.linear
    assert drive.floor_speed_mb_s == float("inf")
    tape = serpentine_tape("LTO-7", CAPACITY_MB)
    assert tape.wraps == 112
    assert tape.last_block == round(CAPACITY_MB * 1e6) - 1
    expected = (
        CtaCostHeuristic()
        if model == "cta-lto"
        else PhysicalLocate.for_format(TAPE_FORMATS["LTO-7"])
    )
    head, target = 1_000_000_000, 3_000_000_000_000
    assert drive.locate_s(1000, 3_000_000, CAPACITY_MB) == pytest.approx(
        float(expected.locate_s(tape, head, target))
    )
    assert drive.locate_s(5.0, 5.0, CAPACITY_MB) == 0.0
    with pytest.raises(ValueError, match="needs the tape's capacity"):
        drive.locate_s(0.0, 5.0)


def test_serpentine_locates_need_not_keep_the_triangle_inequality():
    drive = instance().drives[0]
    direct = drive.locate_s(0.0, 2.0, CAPACITY_MB)
    via = drive.locate_s(0.0, 1.0, CAPACITY_MB) + drive.locate_s(1.0, 2.0, CAPACITY_MB)
    assert via > direct


def test_the_validator_rejects_a_locate_shorter_than_the_models():
    serpentine = instance()
    model_s = serpentine.drives[0].locate_s(0.0, 1.0, CAPACITY_MB)
    assert model_s > 4.0  # CTA's constant: far above the linear 1 MB / 10000 MB/s
    linear = loads_instance(json.dumps(linear_document()))
    early = one_read(1.0)
    assert validate(linear, early).feasible
    report = validate(serpentine, early)
    assert report.rules == {"locate"}
    assert f"locate {model_s:.6f} s" in str(report.violations[0])
    assert validate(serpentine, one_read(model_s)).feasible
    assert validate(serpentine, one_read(model_s), prefetch=False).feasible
    late_release = copy.deepcopy(document())
    late_release["requests"][0]["release_s"] = 2.0
    report = validate(loads_instance(json.dumps(late_release)), one_read(model_s), prefetch=False)
    assert report.rules == {"prefetch"}


def test_after_a_mount_the_locate_from_0_is_the_models():
    data = document()
    del data["initial"]
    serpentine = loads_instance(json.dumps(data))
    ready = 10 + 15  # mount, then load
    model_s = serpentine.drives[0].locate_s(0.0, 1.0, CAPACITY_MB)
    mount = ArmOperation("mount", "T1", "d0", 0, 10)

    def read_at(start: float) -> Schedule:
        return Schedule([ScheduledRequest("r1", ["d0"], start, start + 1.0)], [mount])

    assert validate(serpentine, read_at(ready + model_s)).feasible
    assert validate(serpentine, read_at(ready + 1.0)).rules == {"locate"}


def test_a_request_alone_locates_by_the_model():
    serpentine = instance()
    data = document()
    data["requests"][0]["pieces"][0]["offset_mb"] = 3_000_000.0
    far = loads_instance(json.dumps(data))
    locate_s = far.drives[0].locate_s(0.0, 3_000_000.0, CAPACITY_MB)
    assert locate_s < 3_000_000.0 / 10000  # the middle of the tape is near the start
    # mount 10 s, load 15 s, the model's locate from 0, the transfer of 300 MB at 300 MB/s
    assert alone_s(far, far.requests[0]) == pytest.approx(10 + 15 + locate_s + 1.0)
    assert alone_s(serpentine, serpentine.requests[0]) == pytest.approx(
        10 + 15 + serpentine.drives[0].locate_s(0.0, 1.0, CAPACITY_MB) + 1.0
    )


def test_verify_judges_the_locate_by_the_model(tmp_path):
    path = tmp_path / "serpentine.json"
    path.write_text(json.dumps(document()))
    model_s = instance().drives[0].locate_s(0.0, 1.0, CAPACITY_MB)
    for start, code in ((1.0, 1), (model_s, 0)):
        schedule = tmp_path / "schedule.json"
        schedule.write_text(json.dumps(schedule_to_dict(one_read(start))))
        result = CliRunner().invoke(tapesched.cli.main, ["verify", str(path), str(schedule)])
        assert result.exit_code == code, result.output


def linear_document() -> dict:
    data = document()
    data["format"] = "tapesched.instance/1"
    del data["drives"][0]["locate"]
    return data


@given(
    model=st.sampled_from(["cta-lto", "physical"]),
    tape_format=st.sampled_from(sorted(TAPE_FORMATS)),
    offsets=st.lists(st.floats(0.0, CAPACITY_MB - 300), min_size=1, max_size=4),
)
@settings(max_examples=40, deadline=None)
def test_reading_at_the_models_locates_is_feasible_and_a_moment_earlier_is_not(
    model, tape_format, offsets
):
    """A chain of reads on one serpentine tape, each started at the model's locate
    after the one before: feasible; the last one 1 ms earlier (when its locate
    takes longer than that): refused by the ``locate`` rule."""
    data = document(model, tape_format)
    data["requests"] = [
        {
            "id": f"r{k}",
            "release_s": 0,
            "weight": 1.0,
            "kind": "read",
            "pieces": [{"tape": "T1", "offset_mb": offset, "size_mb": 300}],
        }
        for k, offset in enumerate(offsets)
    ]
    serpentine = loads_instance(json.dumps(data))
    drive = serpentine.drives[0]
    free, head, requests = 0.0, 0.0, []
    for k, offset in enumerate(offsets):
        start = free + drive.locate_s(head, offset, CAPACITY_MB)
        free, head = start + 1.0, offset + 300
        requests.append(ScheduledRequest(f"r{k}", ["d0"], start, free))
    assert validate(serpentine, Schedule(requests, [])).feasible
    assert lower_bound(serpentine) <= validate(serpentine, Schedule(requests, [])).objective + 1e-6
    last = requests[-1]
    prior = requests[-2].end_s if len(requests) > 1 else 0.0
    if last.start_s - prior > 1e-3:
        moved = ScheduledRequest(last.id, last.drives, last.start_s - 1e-3, last.end_s - 1e-3)
        assert validate(serpentine, Schedule([*requests[:-1], moved], [])).rules == {"locate"}


def test_an_instance_with_locate_round_trips_in_version_2():
    data = document("physical", "TS1150")
    data["drives"].append(
        {
            "id": "d1",
            "library": "L0",
            "rate_mb_s": 300,
            "load_s": 15,
            "unload_s": 20,
            "locate_mb_s": 10000,
        }
    )
    read = loads_instance(json.dumps(data))
    assert read.drives[0].locate == Locate("physical", "TS1150")
    assert read.drives[1].locate is None
    assert read.locate_paths == ("drives[0].locate",)
    assert read.start_state_paths == ()
    written = instance_to_dict(read)
    assert written == data
    assert loads_instance(json.dumps(written)) == read


def test_an_instance_without_locate_is_written_in_version_1_as_before():
    written = instance_to_dict(loads_instance(json.dumps(linear_document())))
    assert written == linear_document()
    assert "locate" not in written["drives"][0]


@pytest.mark.parametrize(
    ("edit", "line"),
    [
        (
            lambda d: d.update(format="tapesched.instance/1"),
            "drives[0].locate: a key of 'tapesched.instance/2'; "
            "this file says 'tapesched.instance/1'",
        ),
        (
            lambda d: d["drives"][0]["locate"].update(model="lto"),
            "drives[0].locate.model: must be one of 'cta-lto', 'physical', got 'lto'",
        ),
        (
            lambda d: d["drives"][0]["locate"].update(format="LTO-5"),
            "drives[0].locate.format: must be one of 'LTO-7', 'LTO-8', 'LTO-9', 'TS1150', "
            "got 'LTO-5'",
        ),
        (
            lambda d: d["drives"][0]["locate"].pop("format"),
            "drives[0].locate: missing key 'format'",
        ),
        (
            lambda d: d["drives"][0]["locate"].update(speed_mb_s=1),
            "drives[0].locate: unknown key 'speed_mb_s'",
        ),
        (
            lambda d: d["drives"][0].update(locate="cta-lto"),
            "drives[0].locate: expected an object, got 'cta-lto'",
        ),
    ],
)
def test_a_bad_locate_is_one_line_at_its_path_exit_2(tmp_path, edit, line):
    data = document()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = CliRunner().invoke(tapesched.cli.main, ["check", str(path)])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"{path}: {line}"]


EXACT_SOLVERS = ("cpsat", "lns", "milp-cbc", "milp-highs")
"""The solvers of the exact formulation: tested on serpentine drives in
``tests/solvers/exact/test_serpentine_exact.py``."""

TIMELINE_SOLVERS = [name for name in names() if name not in EXACT_SOLVERS]


def test_every_built_in_solver_times_serpentine_locates():
    assert {"greedy", "sltf", "tape-batching", "local-search"} <= set(TIMELINE_SOLVERS)
    assert all(solvers.times_serpentine(name) for name in names())
    serpentine = instance()
    for name in EXACT_SOLVERS:  # called directly, too
        result = get(name)(serpentine, time_limit_s=10.0, seed=0)
        assert result.schedule is not None, name
        assert validate(serpentine, result.schedule).feasible, name


def test_a_solver_registered_at_run_time_is_refused_a_serpentine_instance(monkeypatch):
    monkeypatch.setattr(registry.SOLVERS, "_slots", dict(registry.SOLVERS._slots))

    def linear_only(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0):
        raise AssertionError("never called on a serpentine instance")

    registry.register("linear-only", "times locates linearly")(linear_only)
    assert not solvers.times_serpentine("linear-only")
    with pytest.raises(UnmodelledLocate) as caught:
        solvers.solve(instance(), solver="linear-only", time_limit_s=1.0)
    assert caught.value.path == "drives[0].locate"
    assert "solver 'linear-only' does not model a serpentine locate" in str(caught.value)


@st.composite
def serpentine_instances(draw: st.DrawFn) -> Instance:
    """Small instances whose drives each locate linearly or by a drawn serpentine model."""
    base = draw(instances(n_requests=(1, 6), tapes_per_library=(1, 3)))
    models = st.one_of(
        st.none(),
        st.builds(
            Locate,
            st.sampled_from(["cta-lto", "physical"]),
            st.sampled_from(sorted(TAPE_FORMATS)),
        ),
    )
    drives = [evolve(d, locate=draw(models)) for d in base.drives]
    return evolve(base, drives=drives)


@given(serpentine=serpentine_instances())
@settings(max_examples=25, deadline=None)
def test_the_timeline_solvers_give_schedules_the_validator_accepts(serpentine):
    for name in TIMELINE_SOLVERS:
        if name == "local-search":  # its decoder, on a small budget
            start = solvers.solve(serpentine, solver="greedy").schedule
            assert start is not None
            found = improve(serpentine, start, time_limit_s=None, seed=1, max_iterations=20)
            assert validate(serpentine, found).feasible, name
            continue
        result = solvers.solve(serpentine, solver=name, seed=1)
        assert result.schedule is not None
        assert validate(serpentine, result.schedule).feasible, name
        # online: nothing is done for a request before its release
        assert validate(serpentine, result.schedule, prefetch=False).feasible, name


@pytest.mark.parametrize("solver", ["cpsat", "milp-highs"])
def test_an_exact_solver_solves_a_serpentine_instance_through_solve(tmp_path, solver):
    path = tmp_path / "serpentine.json"
    path.write_text(json.dumps(document()))
    out = tmp_path / "out.json"
    args = ["solve", str(path), "--solver", solver, "--out", str(out)]
    result = CliRunner().invoke(tapesched.cli.main, args)
    assert result.exit_code == 0, result.output
    verified = CliRunner().invoke(tapesched.cli.main, ["verify", str(path), str(out)])
    assert verified.exit_code == 0, verified.output


def test_compare_gives_a_serpentine_instance_real_exact_rows(tmp_path):
    path = tmp_path / "serpentine.json"
    path.write_text(json.dumps(document()))
    args = ["compare", str(path), "--solvers", "greedy,cpsat,milp-cbc", "--csv"]
    result = CliRunner().invoke(tapesched.cli.main, args)
    assert result.exit_code == 0, result.output
    rows = {line.split(",")[1]: line.split(",") for line in result.stdout.splitlines()[1:]}
    assert rows["cpsat"][2] == rows["milp-cbc"][2] == "optimal"
    assert all("not-modelled" not in row for row in rows.values())


def test_bounds_count_a_serpentine_locate_as_nought_and_the_window_bound_stands_aside():
    serpentine = instance()
    data = document()
    data["requests"][0]["pieces"][0]["offset_mb"] = 3_000_000.0
    far = loads_instance(json.dumps(data))
    transfer_s = 300 / 300
    assert lower_bound(far) == pytest.approx(transfer_s)
    assert not applies(serpentine)
    assert applies(loads_instance(json.dumps(linear_document())))


def test_reading_and_validating_do_not_import_numpy_until_a_serpentine_locate_is_timed():
    code = (
        "import sys, tapesched.toolkit.files.instance_file, tapesched.toolkit.validator\n"
        "assert 'numpy' not in sys.modules\n"
        "from tapesched.toolkit.model import Locate\n"
        "Locate('cta-lto', 'LTO-7').locate_s(0.0, 1.0, 100.0)\n"
        "assert 'numpy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
