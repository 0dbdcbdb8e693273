"""Instance and schedule files: strict loading, every problem with its path, round trips."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.toolkit.errors import InputError
from tapesched.toolkit.files.duplicate_keys import duplicate_keys
from tapesched.toolkit.files.instance_file import (
    instance_from_dict,
    instance_to_dict,
    load_instance,
    loads_instance,
    save_instance,
)
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.schedule_file import (
    loads_schedule,
    save_schedule,
    schedule_from_dict,
    schedule_to_dict,
)
from tapesched.toolkit.model import (
    OBJECTIVES,
    OPERATIONS,
    ArmOperation,
    ObjectiveValue,
    Schedule,
    ScheduledRequest,
)
from tapesched.toolkit.strategies import instances

from ...conftest import INSTANCES


def _spec() -> dict[str, Any]:
    return json.loads((INSTANCES / "spec-example.json").read_text())


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return apply


def _delete(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return apply


BAD_INSTANCES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("unknown top-level key", _set(["colour"], "red"), ": unknown key 'colour'"),
    ("unknown nested key", _set(["drives", 1, "speed"], 3), "drives[1]: unknown key 'speed'"),
    ("missing key", _delete(["requests", 2, "weight"]), "requests[2]: missing key 'weight'"),
    ("missing array", _delete(["tapes"]), ": missing key 'tapes'"),
    (
        "string for a number",
        _set(["drives", 0, "rate_mb_s"], "300"),
        "drives[0].rate_mb_s: expected a number",
    ),
    (
        "boolean for arms",
        _set(["libraries", 0, "arms"], True),
        "libraries[0].arms: expected an integer",
    ),
    (
        "fractional arms",
        _set(["libraries", 0, "arms"], 1.5),
        "libraries[0].arms: expected an integer",
    ),
    ("zero arms", _set(["libraries", 0, "arms"], 0), "libraries[0].arms: must be >= 1"),
    (
        "object for a list",
        _set(["requests", 0, "pieces"], {"tape": "T1"}),
        "requests[0].pieces: expected a list",
    ),
    (
        "negative release",
        _set(["requests", 1, "release_s"], -5),
        "requests[1].release_s: must be >= 0",
    ),
    (
        "negative size",
        _set(["requests", 0, "pieces", 0, "size_mb"], -1),
        "requests[0].pieces[0].size_mb: must be >= 0",
    ),
    (
        "negative mount time",
        _set(["libraries", 0, "mount_s"], -1),
        "libraries[0].mount_s: must be >= 0",
    ),
    ("zero rate", _set(["drives", 1, "rate_mb_s"], 0), "drives[1].rate_mb_s: must be > 0"),
    (
        "zero locate rate",
        _set(["drives", 1, "locate_mb_s"], 0),
        "drives[1].locate_mb_s: must be > 0",
    ),
    ("zero weight", _set(["requests", 0, "weight"], 0), "requests[0].weight: must be > 0"),
    ("unknown kind", _set(["requests", 0, "kind"], "delete"), "requests[0].kind: must be one of"),
    ("unknown objective", _set(["objective"], "latency"), "objective: must be one of"),
    ("wrong format", _set(["format"], "tapesched.instance/9"), "format: expected"),
    ("no pieces", _set(["requests", 0, "pieces"], []), "requests[0].pieces: must not be empty"),
    (
        "duplicate drive id",
        _set(["drives", 1, "id"], "d0"),
        "drives[1].id: duplicate drive id 'd0'",
    ),
    (
        "duplicate request id",
        _set(["requests", 2, "id"], "r1"),
        "requests[2].id: duplicate request id 'r1'",
    ),
    (
        "dangling tape",
        _set(["requests", 2, "pieces", 0, "tape"], "T7"),
        "requests[2].pieces[0].tape: unknown tape 'T7'",
    ),
    (
        "dangling library",
        _set(["drives", 0, "library"], "L9"),
        "drives[0].library: unknown library 'L9'",
    ),
    (
        "dangling initial drive",
        _set(["initial", 0, "drive"], "d9"),
        "initial[0].drive: unknown drive 'd9'",
    ),
    (
        "piece past capacity",
        _set(["requests", 1, "pieces", 0, "offset_mb"], 5999500),
        "requests[1].pieces[0].size_mb: piece ends at",
    ),
    (
        "same tape twice in a request",
        _set(["requests", 2, "pieces", 1, "tape"], "T1"),
        "requests[2].pieces[1].tape: tape 'T1' already holds pieces[0]",
    ),
    (
        "gang wider than the library",
        _set(
            ["requests", 2, "pieces"],
            [
                {"tape": "T1", "offset_mb": 0, "size_mb": 1},
                {"tape": "T2", "offset_mb": 0, "size_mb": 1},
                {"tape": "T3", "offset_mb": 0, "size_mb": 1},
            ],
        ),
        "requests[2].pieces: gang of 3 pieces but library 'L0' has 2 drives",
    ),
]


def _add_third_tape(doc: dict[str, Any]) -> None:
    doc["tapes"].append({"id": "T3", "library": "L0", "capacity_mb": 1000})


@pytest.mark.parametrize(
    ("name", "mutate", "expected"), BAD_INSTANCES, ids=[b[0] for b in BAD_INSTANCES]
)
def test_bad_instance_is_reported_with_its_path(name, mutate, expected):
    doc = _spec()
    if name == "gang wider than the library":
        _add_third_tape(doc)
    mutate(doc)
    with pytest.raises(InputError) as caught:
        instance_from_dict(doc, "bad.json")
    lines = caught.value.lines()
    assert any(
        line.startswith(f"bad.json{'' if expected.startswith(':') else ': '}{expected}")
        for line in lines
    ), lines


def test_every_problem_of_a_file_is_reported_at_once():
    doc = _spec()
    _set(["drives", 0, "rate_mb_s"], -1)(doc)
    _set(["drives", 0, "load_s"], "x")(doc)
    _set(["requests", 2, "pieces", 0, "tape"], "T7")(doc)
    _delete(["requests", 1, "weight"])(doc)
    with pytest.raises(InputError) as caught:
        instance_from_dict(doc, "f.json")
    paths = {p.path for p in caught.value.problems}
    assert {
        "drives[0].rate_mb_s",
        "drives[0].load_s",
        "requests[2].pieces[0].tape",
        "requests[1]",
    } <= paths


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '{"format": NaN}', "null"])
def test_unparsable_or_non_object_documents_are_rejected(text):
    with pytest.raises(InputError) as caught:
        loads_instance(text, "x.json")
    assert len(caught.value.lines()) >= 1
    assert all(line.startswith("x.json: ") for line in caught.value.lines())


def test_initial_and_objective_may_be_left_out():
    doc = _spec()
    del doc["initial"], doc["objective"]
    instance = instance_from_dict(doc)
    assert instance.initial == ()
    assert instance.objective == "weighted-flow"


def test_a_piece_may_end_exactly_at_capacity():
    doc = _spec()
    _set(["requests", 1, "pieces", 0, "offset_mb"], 5999000)(doc)
    assert instance_from_dict(doc).requests[1].pieces[0].end_mb == 6000000


def test_spec_instance_round_trips_through_a_file(tmp_path, spec_instance):
    save_instance(spec_instance, tmp_path / "i.json")
    assert load_instance(tmp_path / "i.json") == spec_instance
    assert instance_to_dict(spec_instance)["format"] == "tapesched.instance/1"


def test_schedule_round_trips_and_leaves_out_absent_optional_keys(tmp_path, spec_optimum):
    doc = schedule_to_dict(spec_optimum)
    assert "objective" not in doc
    assert "library" in doc["operations"][0]
    assert schedule_from_dict(doc) == spec_optimum
    save_schedule(spec_optimum, tmp_path / "s.json")
    assert loads_schedule((tmp_path / "s.json").read_text()) == spec_optimum


BAD_SCHEDULES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("unknown op", _set(["operations", 0, "op"], "swap"), "operations[0].op: must be one of"),
    ("missing requests", _delete(["requests"]), ": missing key 'requests'"),
    ("missing format", _delete(["format"]), ": missing key 'format'"),
    ("unknown key", _set(["requests", 0, "note"], "x"), "requests[0]: unknown key 'note'"),
    (
        "string start",
        _set(["requests", 0, "start_s"], "1"),
        "requests[0].start_s: expected a number",
    ),
    (
        "drives not a list",
        _set(["requests", 0, "drives"], "d1"),
        "requests[0].drives: expected a list",
    ),
]


@pytest.mark.parametrize(
    ("name", "mutate", "expected"), BAD_SCHEDULES, ids=[b[0] for b in BAD_SCHEDULES]
)
def test_malformed_schedule_is_reported_with_its_path(spec_optimum, name, mutate, expected):
    doc = copy.deepcopy(schedule_to_dict(spec_optimum))
    mutate(doc)
    with pytest.raises(InputError) as caught:
        schedule_from_dict(doc, "s.json")
    lines = caught.value.lines()
    assert any(
        line.startswith(f"s.json{'' if expected.startswith(':') else ': '}{expected}")
        for line in lines
    ), lines


_ids = st.text(alphabet="abcdT0123456789-_", min_size=1, max_size=6)
_times = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False)


@st.composite
def _schedules(draw: st.DrawFn) -> Schedule:
    """Well-formed schedules (not feasible ones): every field shape the format allows."""
    requests = draw(
        st.lists(
            st.builds(
                ScheduledRequest, _ids, st.lists(_ids, max_size=3).map(tuple), _times, _times
            ),
            max_size=5,
        )
    )
    operations = draw(
        st.lists(
            st.builds(
                ArmOperation,
                st.sampled_from(OPERATIONS),
                _ids,
                _ids,
                _times,
                _times,
                st.none() | _ids,
            ),
            max_size=5,
        )
    )
    objective = draw(st.none() | st.builds(ObjectiveValue, st.sampled_from(OBJECTIVES), _times))
    return Schedule(tuple(requests), tuple(operations), draw(st.none() | _ids), objective)


@given(instances())
@settings(max_examples=60, deadline=None)
def test_generated_instances_round_trip_through_json(instance):
    text = dumps(instance_to_dict(instance))
    assert loads_instance(text) == instance


@given(_schedules())
@settings(max_examples=60, deadline=None)
def test_schedules_round_trip_through_json(schedule):
    assert loads_schedule(dumps(schedule_to_dict(schedule))) == schedule


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": {"c": 1, "c": 2}}', ["b: duplicate key 'c'"]),
        # a backslash takes the slow path (json's hook), which finds the same
        ('{"a": "x\\\\y", "a": 2}', ["duplicate key 'a'"]),
        ('{"d": "\\u0061", "l": [{"k": 1}, {"k": 1, "k": 1}]}', ["l[1]: duplicate key 'k'"]),
        # keys that differ in the text may name the same key once unescaped
        ('{"\\u0061": 1, "a": 2}', ["duplicate key 'a'"]),
    ],
)
def test_a_key_given_twice_is_refused_at_its_object(text, expected):
    with pytest.raises(InputError) as caught:
        loads_instance(text, "F")
    assert caught.value.lines() == [f"F: {line}" for line in expected]


def test_text_with_colons_quotes_and_backslashes_has_no_duplicate_by_mistake():
    document = {"a": ':"\\', '":': [{"": "x"}, {"": ":"}], "b": {"c": " :", "\\": 1}}
    assert duplicate_keys(json.dumps(document), document) == []
    assert duplicate_keys(json.dumps(document, indent=1).encode(), document) == []
