"""The scenario format's reference page, docs/scenario-format.md: its example loads (that its
tables name every key the reader takes, and no other, is tests/docs/test_format_reference.py's)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tapesched.simulator.scenario.document import load_scenario

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
