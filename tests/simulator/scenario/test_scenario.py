"""Scenario files: the shipped ones load with their documented figures; bad ones name each fault."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from attrs import evolve

from tapesched.simulator.platform.technology import DRIVE_MODELS, Duration
from tapesched.simulator.scenario.document import FORMAT, load_scenario, scenario_from_dict
from tapesched.simulator.scenario.spec import RunSettings
from tapesched.simulator.storage.files import Scheme
from tapesched.simulator.workload.workload import SIZE_CLASSES_MB
from tapesched.toolkit.errors import InputError
from tapesched.toolkit.model import Locate
from tests.conftest import INSTANCES

SCENARIOS = INSTANCES / "scenarios"
SOURCE = "s.json"


def _ampex() -> dict[str, Any]:
    """The shipped Ampex scenario as a fresh document to mutate."""
    return json.loads((SCENARIOS / "ampex.json").read_text())


def _problems(doc: Any) -> list[str]:
    with pytest.raises(InputError) as caught:
        scenario_from_dict(doc, SOURCE)
    assert caught.value.source == SOURCE
    return caught.value.lines()


# --- the shipped scenarios -------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.json")), ids=lambda p: p.stem)
def test_every_shipped_scenario_loads_under_its_file_name(path):
    scenario = load_scenario(path)
    assert json.loads(path.read_text())["format"] == FORMAT
    assert scenario.name == path.stem
    assert scenario.description
    assert scenario.platform.drives
    assert 0 <= scenario.run.warmup < 1


def test_shipped_scenarios_are_the_documented_ones():
    assert sorted(p.stem for p in SCENARIOS.glob("*.json")) == [
        "ampex",
        "ampex-window",
        "blue-waters",
        "blue-waters-3-libraries",
        "blue-waters-65h",
        "exabyte",
    ]


def test_blue_waters_platform_has_the_papers_figures():
    s = load_scenario(SCENARIOS / "blue-waters.json")
    p = s.platform
    assert [(lib.id, lib.arms) for lib in p.libraries] == [("L0", 20)]
    assert p.libraries[0].mount_s == Duration(10.0)
    assert p.libraries[0].dismount_s == Duration(10.0)
    assert len(p.drives) == 500
    assert p.drives[0].id == "L0-d000" and p.drives[-1].id == "L0-d499"
    assert len(p.movers) == 50
    per_mover = Counter(d.mover for d in p.drives)
    assert set(per_mover) == {m.id for m in p.movers}
    assert set(per_mover.values()) == {10}
    # Drives are dealt to movers ten at a time, in order.
    assert p.drives[9].mover == "L0-m00" and p.drives[10].mover == "L0-m01"
    assert p.drives[499].mover == "L0-m49"
    assert {(m.memory_mb, m.disk_mb, m.bandwidth_mb_s) for m in p.movers} == {
        (96_000.0, 10_000_000.0, None)
    }
    assert p.tape_capacity_mb == 1_000_000.0
    assert p.dismount == "on-demand"
    model = p.drives[0].model
    base = DRIVE_MODELS["T10000D"]
    assert model.name == "T10000D*"
    assert (model.capacity_mb, model.locate_mb_s, model.block_s) == (1_000_000.0, 10_000.0, 0.3)
    assert (model.rate_mb_s, model.load_s, model.unload_s) == (
        base.rate_mb_s,
        base.load_s,
        base.unload_s,
    )
    assert {d.model for d in p.drives} == {model}


def test_blue_waters_policy_workload_and_run():
    s = load_scenario(SCENARIOS / "blue-waters.json")
    assert s.policy == "vertical"
    assert s.policy_params == {"block_mb": 16.0, "threshold_mb": 1000.0}
    w = s.workload
    assert (w.min_size_mb, w.max_size_mb) == SIZE_CLASSES_MB["small"]
    assert w.rate_per_s == pytest.approx(800 / 3600)
    assert w.duration_s == 7 * 86400.0
    assert w.initial_files == 1000
    assert s.run == RunSettings(scheduler="fifo", seed=1, replications=1, warmup=0.1)


@pytest.mark.parametrize(
    ("name", "mount_s", "capacity_mb", "rate_per_h", "duration_s", "scheme"),
    [
        ("ampex", 10.0, 25_000.0, 60.0, 2 * 86400.0, Scheme(1, 0)),
        ("exabyte", 22.0, 5_000.0, 2.0, 14 * 86400.0, Scheme(4, 0)),
    ],
)
def test_golubchik_scenarios_have_four_drives_one_arm_and_their_drive_model(
    name, mount_s, capacity_mb, rate_per_h, duration_s, scheme
):
    s = load_scenario(SCENARIOS / f"{name}.json")
    p = s.platform
    assert len(p.libraries) == 1 and p.libraries[0].arms == 1
    assert p.libraries[0].mount_s == p.libraries[0].dismount_s == Duration(mount_s)
    assert [d.id for d in p.drives] == ["L0-d000", "L0-d001", "L0-d002", "L0-d003"]
    assert all(d.model == DRIVE_MODELS[name] for d in p.drives)
    assert all(d.mover is None for d in p.drives) and p.movers == ()
    assert p.dismount == "at-once"
    assert p.tape_capacity_mb == capacity_mb == DRIVE_MODELS[name].capacity_mb
    w = s.workload
    assert (w.min_size_mb, w.max_size_mb) == (1000.0, 1000.0)
    assert w.read_share == 1.0
    assert w.schemes == ((scheme, 1.0),)
    assert w.data_ratio == (1.0, 1.0) and w.ec_ratio == 1.0
    assert w.rate_per_s == pytest.approx(rate_per_h / 3600)
    assert w.duration_s == duration_s
    assert s.policy == "parallel"
    assert s.run == RunSettings(scheduler="fifo", seed=1, replications=5, warmup=0.1)


def test_golubchik_drive_models_keep_the_papers_figures():
    ampex, exabyte = DRIVE_MODELS["ampex"], DRIVE_MODELS["exabyte"]
    # Ampex: T = 80 s for 1 GB, load 5 s, unload = rewind 13 s + eject 4 s.
    assert (ampex.rate_mb_s, ampex.load_s, ampex.unload_s) == (12.5, Duration(5.0), Duration(17.0))
    assert ampex.locate_mb_s == 25_000 / 2 / 25
    assert (exabyte.rate_mb_s, exabyte.load_s, exabyte.unload_s) == (
        0.47,
        Duration(35.4),
        Duration(75.0 + 16.5),
    )


# --- what parses into what ------------------------------------------------------------


MINIMAL = {
    "format": FORMAT,
    "platform": {
        "libraries": [{"id": "A", "arms": 1, "mount_s": 0, "dismount_s": 0}],
        "drives": [{"library": "A", "count": 1, "model": "LTO-7"}],
        "tape_capacity_mb": 1_000_000,
    },
    "policy": {"name": "vertical"},
    "workload": {"sizes": "small", "rate": "800/h", "duration": "1w", "schemes": {"1+0": 1}},
}
"""A scenario with its required keys only."""


def test_a_minimal_document_takes_every_default():
    s = scenario_from_dict(copy.deepcopy(MINIMAL))
    assert s.name == "scenario" and s.description == ""
    assert s.policy == "vertical" and s.policy_params == {}
    assert s.run == RunSettings()
    p = s.platform
    assert [(d.id, d.mover) for d in p.drives] == [("A-d000", None)]
    assert p.libraries[0].arms == 1 and p.libraries[0].mount_s == Duration(0.0)
    assert (p.tape_capacity_mb, p.dismount) == (1_000_000.0, "on-demand")
    assert p.movers == () and p.pass_through_s is None
    assert (s.workload.min_size_mb, s.workload.max_size_mb) == SIZE_CLASSES_MB["small"]
    assert s.workload.rate_per_s == pytest.approx(800 / 3600)
    assert s.workload.duration_s == 7 * 86400.0
    assert (s.workload.read_share, s.workload.new_file_share) == (0.5, 0.9)
    assert (s.workload.initial_files, s.workload.data_ratio, s.workload.ec_ratio) == (
        1000,
        (1.0, 3.0),
        None,
    )


def test_drive_model_override_parses_into_an_exponential_duration():
    doc = _ampex()
    doc["platform"]["drives"][0]["model"] = {
        "base": "LTO-7",
        "load_s": {"mean_s": 15, "dist": "exponential"},
    }
    model = scenario_from_dict(doc).platform.drives[0].model
    lto = DRIVE_MODELS["LTO-7"]
    assert model.load_s == Duration(15.0, "exponential")
    assert model.load_s.random
    assert model.name == "LTO-7*"
    assert (model.rate_mb_s, model.unload_s, model.locate_mb_s, model.capacity_mb) == (
        lto.rate_mb_s,
        lto.unload_s,
        lto.locate_mb_s,
        lto.capacity_mb,
    )


def test_drive_model_override_of_several_fields():
    doc = _ampex()
    doc["platform"]["drives"][0]["model"] = {
        "base": "TS1160",
        "unload_s": 30,
        "rate_mb_s": 350,
        "block_s": 0.5,
    }
    model = scenario_from_dict(doc).platform.drives[0].model
    assert model.unload_s == Duration(30.0, "fixed")
    assert (model.rate_mb_s, model.block_s) == (350.0, 0.5)
    assert model.load_s == DRIVE_MODELS["TS1160"].load_s


def test_a_drive_model_may_take_a_serpentine_locate_model():
    doc = _ampex()
    locate = {"model": "physical", "format": "TS1150"}
    doc["platform"]["drives"][0]["model"] = {"base": "ampex", "locate": locate}
    model = scenario_from_dict(doc).platform.drives[0].model
    assert model.locate == Locate("physical", "TS1150")
    assert evolve(model, locate=None) == evolve(DRIVE_MODELS["ampex"], name="ampex*")
    assert DRIVE_MODELS["ampex"].locate is None  # the named models stay linear
    serpentine_s = model.locate_s(0.0, 12_500.0, 25_000.0)
    assert serpentine_s == Locate("physical", "TS1150").locate_s(0.0, 12_500.0, 25_000.0)
    assert DRIVE_MODELS["ampex"].locate_s(0.0, 12_500.0, 25_000.0) == 25.0


def test_a_bare_base_is_the_named_model_itself():
    doc = _ampex()
    doc["platform"]["drives"][0]["model"] = {"base": "exabyte"}
    assert scenario_from_dict(doc).platform.drives[0].model == DRIVE_MODELS["exabyte"]


def test_arm_times_may_be_exponential():
    doc = _ampex()
    doc["platform"]["libraries"][0]["mount_s"] = {"mean_s": 12, "dist": "exponential"}
    doc["platform"]["libraries"][0]["dismount_s"] = {"mean_s": 8}
    lib = scenario_from_dict(doc).platform.libraries[0]
    assert lib.mount_s == Duration(12.0, "exponential")
    assert lib.dismount_s == Duration(8.0, "fixed")


def test_drive_groups_are_numbered_per_library_and_share_movers_per_group():
    doc = _ampex()
    doc["platform"]["libraries"].append({"id": "L1", "arms": 2, "mount_s": 0, "dismount_s": 0})
    doc["platform"]["drives"] = [
        {"library": "L0", "count": 3, "model": "ampex", "per_mover": 2},
        {"library": "L1", "count": 2, "model": "LTO-7", "per_mover": 2},
        {"library": "L0", "count": 1, "model": "exabyte", "per_mover": 2},
    ]
    doc["platform"]["movers"] = {"memory_mb": 500, "bandwidth_mb_s": 40}
    doc["policy"]["block_mb"] = 100  # a row of blocks fits the movers' memory
    p = scenario_from_dict(doc).platform
    assert [(d.id, d.mover, d.model.name) for d in p.drives] == [
        ("L0-d000", "L0-m00", "ampex"),
        ("L0-d001", "L0-m00", "ampex"),
        ("L0-d002", "L0-m01", "ampex"),
        ("L1-d000", "L1-m00", "LTO-7"),
        ("L1-d001", "L1-m00", "LTO-7"),
        ("L0-d003", "L0-m02", "exabyte"),
    ]
    assert {(m.memory_mb, m.disk_mb, m.bandwidth_mb_s) for m in p.movers} == {
        (500.0, float("inf"), 40.0)
    }


def test_workload_and_run_sections_parse():
    doc = _ampex()
    doc["workload"] = {
        "sizes": "gb-tb",
        "rate": "0.5/min",
        "duration": "36h",
        "read_share": 0.25,
        "new_file_share": 0.5,
        "initial_files": 7,
        "schemes": {"4+2": 0.75, "8+2": 0.25},
        "data_ratio": [2, 3],
        "ec_ratio": None,
    }
    doc["run"] = {"scheduler": "wspt", "seed": 0, "replications": 3, "warmup": 0}
    doc["policy"] = {"name": "rait", "block_mb": 64}
    doc["platform"]["drives"][0]["count"] = 10  # room for a RAIT stripe of 8+2
    s = scenario_from_dict(doc)
    w = s.workload
    assert (w.min_size_mb, w.max_size_mb) == SIZE_CLASSES_MB["gb-tb"]
    assert w.rate_per_s == pytest.approx(0.5 / 60)
    assert w.duration_s == 36 * 3600.0
    assert (w.read_share, w.new_file_share, w.initial_files) == (0.25, 0.5, 7)
    assert w.schemes == ((Scheme(4, 2), 0.75), (Scheme(8, 2), 0.25))
    assert w.data_ratio == (2.0, 3.0) and w.ec_ratio is None
    assert s.run == RunSettings(scheduler="wspt", seed=0, replications=3, warmup=0.0)
    assert (s.policy, s.policy_params) == ("rait", {"block_mb": 64.0})


# --- invalid documents ----------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _set(*path: str | int, value: Any) -> Mutation:
    """A mutation setting ``doc[path...] = value``."""

    def mutate(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


def _drop(key: str) -> Mutation:
    return lambda doc: doc.pop(key)


def _per_mover_on_first_group_only(doc: dict[str, Any]) -> None:
    doc["platform"]["drives"] = [
        {"library": "L0", "count": 2, "model": "ampex", "per_mover": 2},
        {"library": "L0", "count": 2, "model": "ampex"},
    ]


def _single_with_schemes(schemes: dict[str, float]) -> Mutation:
    """``policy`` SINGLE and these ``workload.schemes``."""

    def mutate(doc: dict[str, Any]) -> None:
        doc["policy"] = {"name": "single"}
        doc["workload"]["schemes"] = schemes

    return mutate


def _single_with_a_class_of_width(width: int) -> Mutation:
    """No policy (SINGLE), one request class of ``width`` tapes."""

    def mutate(doc: dict[str, Any]) -> None:
        doc.pop("policy")
        workload = doc["workload"]
        for key in ("sizes", "schemes"):
            workload.pop(key)
        workload["request_classes"] = [{"size_mb": 1000, "width": width, "share": 1}]

    return mutate


BAD_DOCUMENTS: list[tuple[str, Mutation, str, str]] = [
    # (id, mutation of the Ampex document, path, fragment of the message)
    ("wrong format", _set("format", value="tapesched-scenario/2"), "format",
     "expected 'tapesched.scenario/1', got 'tapesched-scenario/2'"),
    ("instance format", _set("format", value="tapesched.instance/1"), "format",
     "expected 'tapesched.scenario/1'"),
    ("no format", _drop("format"), "format", "got None"),
    ("no platform", _drop("platform"), "platform", "missing"),
    ("unknown top key", _set("colour", value="red"), "colour", "unknown key (known: description,"),
    ("unknown platform key", _set("platform", "robots", value=2), "platform.robots",
     "unknown key (known: dismount, drives, libraries, movers, pass_through_s, site, "
     "tape_capacity_mb)"),
    ("unknown library key", _set("platform", "libraries", 0, "speed", value=1),
     "platform.libraries[0].speed", "unknown key (known: arms, dismount_s, id, mount_s)"),
    ("unknown drive group key", _set("platform", "drives", 0, "mover", value="m0"),
     "platform.drives[0].mover", "unknown key (known: count, library, model, per_mover)"),
    ("unknown movers key", _set("platform", "movers", value={"cpus": 4}),
     "platform.movers.cpus", "unknown key (known: bandwidth_mb_s, disk_mb, memory_mb)"),
    ("unknown policy key", _set("policy", "alpha", value=1), "policy.alpha",
     "unknown key (known: block_mb, name, threshold_mb)"),
    ("unknown workload key", _set("workload", "burst", value=True), "workload.burst",
     "unknown key (known: data_ratio, duration, ec_ratio,"),
    ("unknown run key", _set("run", "threads", value=2), "run.threads",
     "unknown key (known: replications, scheduler, seed, warmup)"),
    ("unknown drive model field",
     _set("platform", "drives", 0, "model", value={"base": "LTO-7", "speed": 3}),
     "platform.drives[0].model", "unknown drive model field 'speed'"),
    ("negative mean duration", _set("platform", "libraries", 0, "mount_s", value={"mean_s": -1}),
     "platform.libraries[0].mount_s", "a duration must be >= 0 s, got -1.0"),
    ("negative fixed duration", _set("platform", "libraries", 0, "dismount_s", value=-3),
     "platform.libraries[0].dismount_s", "a duration must be >= 0 s"),
    ("unknown distribution",
     _set("platform", "libraries", 0, "mount_s", value={"mean_s": 3, "dist": "weibull"}),
     "platform.libraries[0].mount_s", "a duration is fixed or exponential, got 'weibull'"),
    ("duration as text", _set("platform", "libraries", 0, "mount_s", value="10s"),
     "platform.libraries[0].mount_s", "a duration is a number or {mean_s, dist}"),
    ("duration without mean", _set("platform", "libraries", 0, "mount_s", value={"dist": "fixed"}),
     "platform.libraries[0].mount_s", "a duration is a number or {mean_s, dist}"),
    ("bad override duration",
     _set("platform", "drives", 0, "model", value={"base": "LTO-7", "load_s": {"mean_s": -1}}),
     "platform.drives[0].model", "a duration must be >= 0 s"),
    ("unknown locate model",
     _set("platform", "drives", 0, "model",
          value={"base": "LTO-7", "locate": {"model": "lto", "format": "LTO-7"}}),
     "platform.drives[0].model.locate.model", "must be one of 'cta-lto', 'physical', got 'lto'"),
    ("unknown locate format",
     _set("platform", "drives", 0, "model",
          value={"base": "LTO-7", "locate": {"model": "cta-lto", "format": "LTO-5"}}),
     "platform.drives[0].model.locate.format", "must be one of 'LTO-7', 'LTO-8', 'LTO-9', "),
    ("locate without format",
     _set("platform", "drives", 0, "model",
          value={"base": "LTO-7", "locate": {"model": "cta-lto"}}),
     "platform.drives[0].model.locate", "missing key 'format'"),
    ("unknown locate key",
     _set("platform", "drives", 0, "model",
          value={"base": "LTO-7", "locate": {"model": "cta-lto", "format": "LTO-7", "x": 1}}),
     "platform.drives[0].model.locate", "unknown key 'x'"),
    ("locate not an object",
     _set("platform", "drives", 0, "model", value={"base": "LTO-7", "locate": "cta-lto"}),
     "platform.drives[0].model.locate", "expected an object, got 'cta-lto'"),
    ("unknown drive model", _set("platform", "drives", 0, "model", value="LTO-4"),
     "platform.drives[0].model", "unknown drive model 'LTO-4' (known: LTO-7, LTO-8,"),
    ("unknown base model", _set("platform", "drives", 0, "model", value={"base": "DLT"}),
     "platform.drives[0].model", "unknown drive model 'DLT'"),
    ("model object without base", _set("platform", "drives", 0, "model", value={"rate_mb_s": 3}),
     "platform.drives[0].model", "a drive model is a name or an object with a base name"),
    ("missing model", lambda d: d["platform"]["drives"][0].pop("model"),
     "platform.drives[0].model", "missing"),
    ("missing library id", lambda d: d["platform"]["libraries"][0].pop("id"),
     "platform.libraries[0].id", "missing"),
    ("negative drive count", _set("platform", "drives", 0, "count", value=-2),
     "platform.drives[0].count", "must be >= 1"),
    ("fractional arms", _set("platform", "libraries", 0, "arms", value=1.5),
     "platform.libraries[0].arms", "expected an integer, got 1.5"),
    ("no drive groups", _set("platform", "drives", value=[]), "platform.drives",
     "must not be empty"),
    ("per_mover on one group only", _per_mover_on_first_group_only,
     "platform.drives[1].per_mover", "every drive group has per_mover, or none does"),
    ("negative tape capacity", _set("platform", "tape_capacity_mb", value=-1),
     "platform.tape_capacity_mb", "must be > 0, got -1"),
    ("unknown size class", _set("workload", "sizes", value="huge"), "workload.sizes",
     "unknown size class 'huge' (known: small, medium, large, mixed, gb-tb)"),
    ("sizes of three", _set("workload", "sizes", value=[1, 2, 3]), "workload.sizes",
     "expected a size class name or [min_mb, max_mb]"),
    ("sizes reversed", _set("workload", "sizes", value=[1000, 10]), "workload",
     "min_size_mb (1000.0) exceeds max_size_mb (10.0)"),
    ("bad scheme", _set("workload", "schemes", value={"4-2": 1.0}), "workload.schemes",
     "a resiliency scheme is written X+Y, got '4-2'"),
    ("empty schemes", _set("workload", "schemes", value={}), "workload.schemes",
     "expected an object such as"),
    ("probabilities not summing to 1",
     _set("workload", "schemes", value={"4+2": 0.5, "8+2": 0.4}), "workload",
     "scheme probabilities must sum to 1, got 0.9"),
    ("bad rate", _set("workload", "rate", value="fast"), "workload.rate", "is not a rate"),
    ("bad workload duration", _set("workload", "duration", value="3 fortnights"),
     "workload.duration", "unknown unit 'fortnights'"),
    ("read share above 1", _set("workload", "read_share", value=1.5), "workload",
     "read_share must be within [0, 1], got 1.5"),
    ("ec ratio above data ratio", _set("workload", "ec_ratio", value=2), "workload",
     "ec_ratio must be within [1, lowest data ratio 1.0], got 2.0"),
    ("warmup of 1", _set("run", "warmup", value=1), "run.warmup", "must be within [0, 1), got 1.0"),
    ("negative warmup", _set("run", "warmup", value=-0.1), "run.warmup",
     "must be within [0, 1), got -0.1"),
    ("negative replications", _set("run", "replications", value=-1), "run.replications",
     "must be >= 1"),
    ("seed as text", _set("run", "seed", value="one"), "run.seed",
     "expected an integer, got 'one'"),
    ("empty scheduler", _set("run", "scheduler", value=""), "run.scheduler",
     "expected a non-empty string"),
    ("policy not an object", _set("policy", value="parallel"), "policy",
     "expected an object, got 'parallel'"),
    ("archive without tapes", _set("workload", "initial_archive", value={}),
     "workload.initial_archive.tapes", "missing key"),
    ("archive of no tapes", _set("workload", "initial_archive", value={"tapes": 0}),
     "workload.initial_archive.tapes", "must be >= 1"),
    ("archive of too many tapes", _set("workload", "initial_archive", value={"tapes": 2_000_000}),
     "workload.initial_archive.tapes", "must be <= 1,000,000"),
    ("unknown popularity",
     _set("workload", "initial_archive", value={"tapes": 10, "popularity": "pareto"}),
     "workload.initial_archive.popularity", "'pareto'"),
    ("zero zipf exponent",
     _set("workload", "initial_archive", value={"tapes": 10, "zipf_exponent": 0}),
     "workload.initial_archive.zipf_exponent", "must be within (0, 10], got 0"),
    ("unknown archive key",
     _set("workload", "initial_archive", value={"tapes": 10, "files": 3}),
     "workload.initial_archive.files", "unknown key (known: popularity, tapes, zipf_exponent)"),
    ("archive not an object", _set("workload", "initial_archive", value=500000),
     "workload.initial_archive", "expected an object"),
    ("striped scheme under single", _single_with_schemes({"4+0": 1.0}),
     "workload.schemes.4+0", "the single policy keeps one copy (scheme 1+0), not 4+0"),
    ("striped class under the default policy", _single_with_a_class_of_width(2),
     "workload.request_classes[0].width", "the single policy keeps one copy (scheme 1+0)"),
    ("no schemes under parallel", lambda d: d["workload"].pop("schemes"), "workload.schemes",
     "missing key (or give workload.request_classes)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "path", "fragment"),
    [case[1:] for case in BAD_DOCUMENTS],
    ids=[case[0] for case in BAD_DOCUMENTS],
)
def test_each_bad_value_is_one_line_naming_its_path(mutate, path, fragment):
    doc = _ampex()
    mutate(doc)
    lines = _problems(doc)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{SOURCE}: {path}: "), lines
    assert fragment in lines[0].removeprefix(f"{SOURCE}: {path}: "), lines


def test_every_problem_of_a_document_is_reported_in_order():
    doc = _ampex()
    doc["format"] = "x"
    doc["platform"]["libraries"][0]["arms"] = "two"
    doc["run"]["warmup"] = 2
    assert _problems(doc) == [
        f"{SOURCE}: format: expected 'tapesched.scenario/1', got 'x'",
        f"{SOURCE}: platform.libraries[0].arms: expected an integer, got 'two'",
        f"{SOURCE}: run.warmup: must be within [0, 1), got 2.0",
    ]


ZERO_TAKEN_AS_DEFAULT = [
    (_set("run", "replications", value=0), "run.replications"),
    (_set("platform", "drives", 0, "count", value=0), "platform.drives[0].count"),
    (_set("platform", "libraries", 0, "arms", value=0), "platform.libraries[0].arms"),
    (_set("platform", "tape_capacity_mb", value=0), "platform.tape_capacity_mb"),
    (_set("platform", "drives", 0, "per_mover", value=0), "platform.drives[0].per_mover"),
]


@pytest.mark.parametrize(
    ("mutate", "path"),
    ZERO_TAKEN_AS_DEFAULT,
    ids=["replications 0", "count 0", "arms 0", "tape capacity 0", "per_mover 0"],
)
def test_a_zero_is_rejected_not_replaced_by_the_default(mutate, path):
    doc = _ampex()
    mutate(doc)
    lines = _problems(doc)
    assert [line for line in lines if line.startswith(f"{SOURCE}: {path}: ")], lines


@pytest.mark.parametrize("memory_mb", [0, -5])
def test_mover_memory_must_be_positive(memory_mb):
    doc = _ampex()
    doc["platform"]["drives"][0]["per_mover"] = 2
    doc["platform"]["movers"] = {"memory_mb": memory_mb}
    lines = _problems(doc)
    assert any(line.startswith(f"{SOURCE}: platform.movers.memory_mb: ") for line in lines)


def test_one_bad_arm_count_is_one_line():
    doc = _ampex()
    doc["platform"]["libraries"][0]["arms"] = -1
    assert _problems(doc) == [f"{SOURCE}: platform.libraries[0].arms: must be >= 1, got -1"]


def test_not_an_object_is_reported_at_the_root():
    lines = _problems([1, 2])
    assert lines[0] == f"{SOURCE}: expected an object, got [1, 2]"


# --- files -----------------------------------------------------------------------------


def test_load_scenario_of_a_missing_file_is_one_line(tmp_path):
    path = tmp_path / "nope.json"
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert caught.value.lines() == [f"{path}: cannot read file: No such file or directory"]


def test_load_scenario_of_bad_json_is_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "tapesched.scenario/1",')
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    lines = caught.value.lines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}: bad JSON: ")


def test_load_scenario_names_the_file_in_each_line(tmp_path):
    doc = _ampex()
    doc["run"]["replications"] = -3
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert caught.value.lines() == [f"{path}: run.replications: must be >= 1, got -3"]


def test_a_loaded_file_equals_its_parsed_document():
    path = SCENARIOS / "exabyte.json"
    assert load_scenario(path) == scenario_from_dict(json.loads(path.read_text()), str(path))


def test_the_shipped_document_is_not_changed_by_parsing():
    doc = _ampex()
    before = copy.deepcopy(doc)
    scenario_from_dict(doc)
    assert doc == before


def test_pass_through_ports_parse_and_default_to_none():
    doc = _ampex()
    assert scenario_from_dict(doc, SOURCE).platform.pass_through_s is None
    doc["platform"]["pass_through_s"] = {"mean_s": 30, "dist": "exponential"}
    through = scenario_from_dict(doc, SOURCE).platform.pass_through_s
    assert through == Duration(30.0, "exponential")
    doc["platform"]["pass_through_s"] = -1
    assert _problems(doc) == [
        f"{SOURCE}: platform.pass_through_s: a duration must be >= 0 s, got -1.0"
    ]
