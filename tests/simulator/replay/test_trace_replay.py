"""A replay from its files (simulator.replay.trace_replay.replay_files), called from Python."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tapesched.simulator.replay.trace_replay import HOMES_BESIDE, replay_files
from tapesched.toolkit.errors import InputError, SettingProblem, SettingsError


def write_files(tmp_path: Path, homes: dict[str, int] | None = None) -> tuple[str, str]:
    """Three requests for two cartridges on one level of one drive (and a map beside them)."""
    lines = ["CB1;20110819T000000;100", "CB2;20110819T000001;50", "CB1;20110819T000002;30"]
    trace_file = tmp_path / "trace.csv"
    trace_file.write_text("\n".join(lines) + "\n")
    layout_file = tmp_path / "layout.json"
    level = {"libraries": {"L1": {}, "L2": {}, "L3": {}}, "drives": {"D1": {}}, "robots": 1}
    layout_file.write_text(json.dumps({"level": {"0": level}}))
    if homes is not None:
        (tmp_path / HOMES_BESIDE).write_text(json.dumps(homes))
    return str(trace_file), str(layout_file)


def test_replay_files_gives_the_result_document_with_the_homes_used(tmp_path):
    trace_file, layout_file = write_files(tmp_path, {"CB/1": 0})
    replayed = replay_files(trace_file, layout_file, 1, seed=5, per_request=True)
    document = replayed.to_dict()
    assert (document["trace"], document["layout"], document["seed"]) == (
        trace_file,
        layout_file,
        5,
    )
    assert document["homes"] == {"file": str(tmp_path / HOMES_BESIDE), "mapped": 1, "hashed": 1}
    assert document["requests"] == 3
    assert document["mounted"] == [True, True, False]
    assert {k: document[k] for k in ("scheduler", "mount_policy")} == {
        "scheduler": "tape-batching",
        "mount_policy": "lru",
    }
    assert document == {**document, **replayed.result.as_dict()}


def test_replay_files_takes_the_first_requests_and_dismounts_at_once(tmp_path):
    trace_file, layout_file = write_files(tmp_path)
    replayed = replay_files(trace_file, layout_file, 1, limit=2, keep_mounted=False)
    assert replayed.homes_file is None
    assert (replayed.result.requests, replayed.result.mount_policy) == (2, "at-once")


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"drives": 2}, SettingProblem(("drives",), "{layout} has 1 drives, asked for 2")),
        ({"scheduler": "golubchik"}, None),
        ({"scheduler": "no-such"}, None),
        ({"mount_policy": "defer:x"}, None),
    ],
)
def test_replay_files_names_the_setting_at_fault(tmp_path, kwargs, problem):
    trace_file, layout_file = write_files(tmp_path)
    arguments = {"drives": 1, **kwargs}
    with pytest.raises(SettingsError) as caught:
        replay_files(trace_file, layout_file, **arguments)
    (found,) = caught.value.problems
    setting = next(iter(kwargs))
    assert found.settings == (setting,)
    if problem is not None:
        assert found == SettingProblem(problem.settings, problem.message.format(layout=layout_file))


def test_replay_files_reports_bad_files_by_their_path(tmp_path):
    trace_file, layout_file = write_files(tmp_path, {"CB/1": 7})
    with pytest.raises(InputError) as caught:
        replay_files(trace_file, layout_file, 1)
    assert caught.value.source == str(tmp_path / HOMES_BESIDE)
