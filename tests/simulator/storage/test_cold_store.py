"""What a catalogue keeps on disk: the same answers whatever it keeps in memory, nothing left."""

from __future__ import annotations

import os
import tempfile

import pytest

from tapesched.simulator.results.replications import override, run_once
from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.storage import catalogue as catalogue_module
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.cold_store import ColdStore, HotCache
from tapesched.simulator.storage.files import FileSpec, Scheme
from tapesched.simulator.storage.policies.policy_registry import make_policy
from tests.conftest import INSTANCES


def _leftovers() -> set[str]:
    folder = tempfile.gettempdir()
    return {name for name in os.listdir(folder) if name.endswith(".catalogue")}


class _Counting(ColdStore):
    """A store that counts what is written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[object] = []

    def put(self, table: str, key: int | str, value: object) -> None:
        self.writes.append(key)
        super().put(table, key, value)


def test_a_record_pushed_out_is_read_back_equal_and_written_only_when_changed() -> None:
    store = _Counting()
    cache: HotCache[int, list[float]] = HotCache(store, "t", 2, list, list)
    for key in range(4):
        cache.put(key, [key + 0.5, 1e-300])
    assert store.writes == [0, 1]  # the two oldest left memory
    assert cache.get(0) == [0.5, 1e-300] and cache.get(1) == [1.5, 1e-300]
    assert store.writes == [0, 1, 2, 3]  # reading 0 and 1 back pushed the changed 2 and 3 out
    cache.get(2)
    cache.get(3)
    assert store.writes == [0, 1, 2, 3]  # 0 and 1 left unchanged: the store has them
    found = cache.get(0)
    assert found is not None
    found.append(9.0)
    cache.changed(0)
    cache.get(1)
    cache.get(2)
    assert store.writes[-1] == 0 and cache.get(0) == [0.5, 1e-300, 9.0]
    assert 3 in cache and 7 not in cache and cache.get(7) is None
    assert sorted(map(tuple, cache.values())) == [(0.5, 1e-300, 9.0), (1.5, 1e-300),
                                                   (2.5, 1e-300), (3.5, 1e-300)]  # fmt: skip
    store.close()


def test_a_store_leaves_no_file_behind_even_while_it_is_open() -> None:
    before = _leftovers()
    store = ColdStore()
    store.put("t", "k", (1, "two", [3.0]))
    assert _leftovers() == before  # unlinked as soon as it was opened
    assert store.get("t", "k") == (1, "two", [3.0]) and store.count("t") == 1
    assert store.get("t", "other") is None and store.get("nothing", 1) is None
    store.close()
    assert store.get("t", "k") is None


def test_a_cache_keeps_at_least_one_record() -> None:
    with pytest.raises(ValueError, match="at least one"):
        HotCache(ColdStore(), "t", 0, list, list)


def _written_catalogue(policy_name: str) -> Catalogue:
    """A catalogue after a few writes of a policy, rewrites and closed tapes among them."""
    policy = make_policy(policy_name, block_mb=10.0)
    cat = Catalogue(500.0, ["L0"])
    group = None
    for k in range(12):
        scheme = Scheme(1, 0) if policy_name == "single" else Scheme(2, 1)
        file = FileSpec(f"f{k % 9}", 40.0 + 13.0 * k, scheme, 1.5, 1.25)
        _, group = policy.plan_write(cat, file, group, "L0")
    return cat


@pytest.mark.parametrize("policy_name", ["rait", "parallel", "vertical", "single"])
def test_a_catalogue_answers_the_same_with_one_record_in_memory(monkeypatch, policy_name) -> None:
    roomy = _written_catalogue(policy_name)
    monkeypatch.setattr(catalogue_module, "HOT_STRIPES", 1)
    monkeypatch.setattr(catalogue_module, "HOT_FILES", 1)
    monkeypatch.setattr(catalogue_module, "TAPE_PIECES_HOT", 1)
    monkeypatch.setattr(catalogue_module, "CLOSED_PIECES_HOT", 0)
    tight = _written_catalogue(policy_name)
    # The tight one keeps all but one stripe and one layout on disk, and the pieces of its
    # tapes but the last of each.
    stripes = len(list(roomy.stripe_tapes()))
    spilled = [tight._cold.count(table) for table in ("stripe", "entry", "tape")]
    assert spilled[0] == stripes - 1 and spilled[1] and spilled[2]
    assert not roomy._cold.count("entry")
    assert list(tight.files()) == list(roomy.files())
    assert tight.tapes() == roomy.tapes()
    assert list(tight.stripe_tapes()) == list(roomy.stripe_tapes())
    policy = make_policy(policy_name, block_mb=10.0)
    for file_id in roomy.files():
        assert tight.layout(file_id) == roomy.layout(file_id)
        assert tight.written_mb(file_id) == roomy.written_mb(file_id)
        assert policy.plan_read(tight, file_id) == policy.plan_read(roomy, file_id)
    for tape in roomy.tapes():
        assert tight.tape_pieces(tape.id) == roomy.tape_pieces(tape.id)


def test_a_run_whose_catalogue_spills_gives_the_same_summary(monkeypatch) -> None:
    # Blue Waters at its paper scale, a few hours of small files under each policy: every
    # stripe, layout and tape's pieces but the last go to disk and are read back.
    base = load_scenario(str(INSTANCES / "scenarios" / "blue-waters.json"))
    for policy_name in ("parallel", "vertical", "rait"):
        scenario = override(base, policy=policy_name, rate_per_s=400 / 3600, duration_s=3 * 3600.0)
        roomy = run_once(scenario, 2, record=False).summary
        with monkeypatch.context() as patch:
            patch.setattr(catalogue_module, "HOT_STRIPES", 1)
            patch.setattr(catalogue_module, "HOT_FILES", 1)
            patch.setattr(catalogue_module, "TAPE_PIECES_HOT", 1)
            patch.setattr(catalogue_module, "CLOSED_PIECES_HOT", 0)
            tight = run_once(scenario, 2, record=False).summary
        assert tight == roomy, policy_name
