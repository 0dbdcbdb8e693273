"""The scenario format's reference page, docs/scenario-format.md: its example loads, and it
names every key a scenario file may hold."""

from __future__ import annotations

import json
import re
import types
import typing
from pathlib import Path

import attrs
import pytest

from tapesched.simulator.platform.technology import DriveModel
from tapesched.simulator.scenario.document import ScenarioDocument, load_scenario
from tapesched.simulator.scenario.run_section import BwMainSection, MountedSection

PAGE = Path(__file__).parents[3] / "docs" / "scenario-format.md"


def _example() -> dict[str, object]:
    blocks = re.findall(r"```json\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "the page holds one JSON example"
    example: dict[str, object] = json.loads(blocks[0])
    return example


def test_the_example_loads_and_is_what_it_says(tmp_path: Path) -> None:
    path = tmp_path / "example.json"
    path.write_text(json.dumps(_example()), encoding="utf-8")
    scenario = load_scenario(path)
    assert scenario.name == "two-libraries"
    platform = scenario.platform
    assert [d.id for d in platform.drives][:2] == ["L0-d000", "L0-d001"]
    assert [d.id for d in platform.drives][-1] == "L1-d003"
    assert [m.id for m in platform.movers] == ["L0-m00", "L1-m00"]
    assert platform.movers[0].bandwidth_mb_s == 2400
    assert platform.drives[-1].model.name == "T10000D*"
    assert platform.drives[-1].model.rate_mb_s == 240
    assert platform.libraries[0].dismount_s.random
    assert platform.pass_through_s is not None and platform.pass_through_s.mean_s == 30
    assert scenario.policy == "hetero"
    assert scenario.policy_params == {"block_mb": 192, "threshold_mb": 1000}
    assert scenario.workload.rate_per_s == pytest.approx(60 / 3600)
    assert scenario.workload.duration_s == 86_400
    assert scenario.run.scheduler == "fifo" and scenario.run.mount_policy == "lru"
    assert (scenario.run.seed, scenario.run.replications) == (7, 2)
    assert scenario.disk_cache is not None
    assert [c.name for c in scenario.disk_cache.classes] == ["small", "large"]
    assert scenario.faults is not None and scenario.faults.drive_failures_per_year == 2
    assert scenario.faults.tape_losses[0].tape == "T000002"


def _sections(cls: type, seen: dict[type, None]) -> None:
    """``cls`` and every section of the document its fields hold, through optionals and
    tuples (not the values they are read into: durations, drive models, schemes)."""
    if cls in seen or not cls.__module__.startswith("tapesched.simulator.scenario."):
        return
    seen[cls] = None
    for hint in typing.get_type_hints(cls).values():
        stack = [hint]
        while stack:
            t = stack.pop()
            if attrs.has(t):
                _sections(t, seen)
            elif isinstance(t, types.UnionType) or typing.get_origin(t) is not None:
                stack.extend(typing.get_args(t))


def test_the_page_names_every_key_of_a_scenario_file() -> None:
    page = PAGE.read_text(encoding="utf-8")
    seen: dict[type, None] = {}
    for root in (ScenarioDocument, BwMainSection, MountedSection):
        _sections(root, seen)
    overridable = {f.name for f in attrs.fields(DriveModel)} - {"name", "source"}
    keys = {(cls.__name__, f.name) for cls in seen for f in attrs.fields(cls)}
    keys |= {("DriveModel", name) for name in overridable}
    missing = sorted(f"{where}.{key}" for where, key in keys if f"`{key}`" not in page)
    assert len(seen) > 10
    assert not missing, f"docs/scenario-format.md does not name {missing}"
