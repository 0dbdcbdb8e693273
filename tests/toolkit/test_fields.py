"""The shared field rules: one declaration, the same verdict and words in every reader."""

from __future__ import annotations

import copy
import json
import math

import pytest

from tapesched.simulator.replay.trace import layout_from_dict
from tapesched.simulator.scenario.document import scenario_from_dict
from tapesched.simulator.workload.requests_csv import workload_from_csv
from tapesched.toolkit.errors import InputError
from tapesched.toolkit.fields import (
    InvalidFields,
    Rule,
    at_least_one,
    at_most,
    bounded_count,
    bounded_rate,
    bounded_size,
    check,
    checked,
    nonnegative,
    number,
    optional,
    positive,
    positive_size,
    word,
)
from tapesched.toolkit.files.instance_file import instance_from_dict
from tapesched.toolkit.model import Library, Piece
from tests.conftest import INSTANCES

VALUES = [0, 1, -1, 2.5, 1e300, math.nan, math.inf, True, "3", None, 10**9, 1e-9]


@pytest.mark.parametrize(
    ("rule", "base"),
    [
        (nonnegative, number),
        (bounded_size, nonnegative),
        (positive_size, positive),
        (bounded_count, at_least_one),
        (bounded_rate, positive),
    ],
)
def test_a_rule_built_on_another_says_what_the_other_says_first(rule, base):
    for value in VALUES:
        reason = rule(value)
        assert rule.accepts(value) is (reason is None), value
        if base(value) is not None:
            assert reason == base(value), value
        elif reason is not None:
            assert reason.startswith("must be"), value


@checked
class _Probe:
    size_mb: float = check(positive_size)
    count: int = check(bounded_count)
    label: str | None = check(optional(word("a label")), default=None)

    def __attrs_post_init__(self) -> None:
        if self.count > self.size_mb:
            raise ValueError("more things than megabytes")


def test_a_checked_class_names_every_bad_field_with_its_rules_words_then_checks_across():
    with pytest.raises(InvalidFields) as caught:
        _Probe(-1, 1.5, "a b")
    assert [(e.field, e.reason) for e in caught.value.errors] == [
        ("size_mb", positive_size(-1)),
        ("count", "expected an integer, got 1.5"),
        ("label", "a label is a non-empty word, got 'a b'"),
    ]
    with pytest.raises(ValueError, match="more things than megabytes"):
        _Probe(1.0, 2)
    assert _Probe(2.0, 2).label is None


def test_the_compiled_check_and_the_rule_agree_on_every_value():
    for offset in VALUES:
        reason = bounded_size(offset)
        try:
            Piece("T1", offset, 1.0)
        except InvalidFields as exc:
            assert [(e.field, e.reason) for e in exc.errors] == [("offset_mb", reason)]
        else:
            assert reason is None, offset


def test_a_rule_shows_a_cell_as_it_was_written():
    rule = at_most(nonnegative, 10.0, " s")
    assert rule(1e300) == "must be <= 10 s, got 1e+300"
    assert rule.as_written(1e300, "1e300") == "must be <= 10 s, got '1e300'"
    assert rule.as_written(5.0, "5") is None


def test_a_rule_refuses_a_constant_that_would_change_meaning():
    rule = Rule(("{v} < {most}", "must be < {most}"), most=3)
    with pytest.raises(ValueError, match="already mean something else"):
        rule.then("{v} != {most}", "x", most=4)


def test_an_instance_and_a_scenario_say_the_same_of_the_same_bad_arm_count():
    """Both readers judge a library's arms by one rule: the words after the path agree."""
    instance = json.loads((INSTANCES / "spec-example.json").read_text())
    scenario = json.loads((INSTANCES / "scenarios" / "ampex.json").read_text())
    for arms in (0, 1.5, True, 10**9):
        instance["libraries"][0]["arms"] = arms
        scenario["platform"]["libraries"][0]["arms"] = arms
        with pytest.raises(InputError) as from_instance:
            instance_from_dict(copy.deepcopy(instance), "i.json")
        with pytest.raises(InputError) as from_scenario:
            scenario_from_dict(copy.deepcopy(scenario), "s.json")
        said = {p.message for p in from_instance.value.problems if p.path == "libraries[0].arms"}
        assert said == {
            p.message
            for p in from_scenario.value.problems
            if p.path == "platform.libraries[0].arms"
        }
        assert said == {bounded_count(arms)}
        with pytest.raises(InvalidFields):
            Library("L", arms, 1.0, 1.0)


def test_an_instance_reports_a_bad_top_level_value_beside_a_broken_object():
    doc = json.loads((INSTANCES / "spec-example.json").read_text())
    doc["name"] = 5
    doc["requests"][0]["pieces"] = "T1"
    with pytest.raises(InputError) as caught:
        instance_from_dict(doc, "i.json")
    assert caught.value.lines()[:2] == [
        "i.json: name: expected a string, got 5",
        "i.json: requests[0].pieces: expected a list, got 'T1'",
    ]


def test_a_scenario_reports_every_bad_value_of_a_drive_model_and_an_unknown_library():
    doc = json.loads((INSTANCES / "scenarios" / "ampex.json").read_text())
    doc["platform"]["drives"][0]["model"] = {"base": "LTO-7", "capacity_mb": -1, "speed": 2}
    with pytest.raises(InputError) as caught:
        scenario_from_dict(copy.deepcopy(doc), "s.json")
    assert caught.value.lines() == [
        "s.json: platform.drives[0].model: capacity_mb must be > 0, got -1.0",
        "s.json: platform.drives[0].model: unknown drive model field 'speed'",
    ]
    doc["platform"]["drives"][0]["model"] = "ampex"
    doc["platform"]["drives"][0]["library"] = "L9"
    with pytest.raises(InputError) as caught:
        scenario_from_dict(copy.deepcopy(doc), "s.json")
    assert caught.value.lines() == ["s.json: platform.drives[0].library: unknown library 'L9'"]
    doc["platform"]["drives"][0]["library"] = "L0"
    doc["workload"]["schemes"] = {"1+0": 0.5, " 1+0": 0.5}
    with pytest.raises(InputError) as caught:
        scenario_from_dict(doc, "s.json")
    assert caught.value.lines() == ["s.json: workload.schemes. 1+0: scheme 1+0 is given twice"]


def test_a_layout_reports_a_bad_level_number_beside_a_bad_value_of_another_level():
    level = {"libraries": {"s": {}}, "drives": {"D": {}}, "robots": 0}
    with pytest.raises(InputError) as caught:
        layout_from_dict({"level": {"x": {**level, "robots": 1}, "0": level}}, "lay.json")
    assert caught.value.lines() == [
        "lay.json: level.x: a level number is an integer >= 0, got 'x'",
        "lay.json: level.0.robots: must be >= 1, got 0",
    ]


def test_a_csv_workload_checks_every_line_and_caps_what_it_reports():
    head = "arrival_s,kind,file,size_mb\n"
    with pytest.raises(InputError) as caught:
        workload_from_csv(head + "0,write,f,5\n1,read,f,lots\n", "w.csv")
    assert caught.value.lines() == ["w.csv: line 3.size_mb: expected a number, got 'lots'"]
    with pytest.raises(InputError) as caught:
        workload_from_csv(head + "".join(f"{i},erase,f,5\n" for i in range(25)), "w.csv")
    lines = caught.value.lines()
    assert len(lines) == 21
    assert lines[0] == "w.csv: line 2.kind: must be one of 'read', 'write', got 'erase'"
    assert lines[-1] == "w.csv: 5 more problems not shown"
