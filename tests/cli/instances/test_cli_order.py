"""`tapesched order`: the shipped LTO-7 recall file ordered four ways, a technology file, bad input.

Bad input must come back as one line naming the file, the JSON path of the
value at fault and what is wrong, with exit code 2 and no traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tests.conftest import INSTANCES

LTO7 = str(INSTANCES / "recall" / "lto7-files.json")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["order", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_the_shipped_file_ordered_four_ways():
    times = {}
    for algorithm in ("none", "offset", "sltf", "exact"):
        code, out, err = run(LTO7, "--algorithm", algorithm, "--json")
        assert code == 0, err
        doc = json.loads(out)
        assert doc["files"] == 8 and len(doc["order"]) == 8
        assert doc["time_s"] == pytest.approx(doc["locate_s"] + doc["read_s"])
        assert doc["time_s"] == pytest.approx(
            sum(s["locate_s"] + s["read_s"] for s in doc["steps"])
        )
        times[algorithm] = doc["time_s"]
    # CTA's own test expects this SLTF order (fseq 1, 5, 6, 8, 9, 10, 11, 12).
    _, out, _ = run(LTO7, "--algorithm", "sltf", "--json")
    assert [s["id"] for s in json.loads(out)["steps"]] == [
        "fseq-1", "fseq-5", "fseq-6", "fseq-8", "fseq-9", "fseq-10", "fseq-11", "fseq-12",
    ]  # fmt: skip
    assert times["exact"] <= times["sltf"] <= times["offset"] <= times["none"]


def test_the_table_names_the_order_and_the_estimate():
    code, out, _ = run(LTO7, "--algorithm", "exact", "--locate", "physical")
    assert code == 0
    assert "exact order, physical locate model" in out and "fseq-12" in out
    assert "exact: 8 files, estimated" in out and "optimal" in out


def test_a_technology_tape_with_byte_offsets(tmp_path):
    files = [{"id": f"f{k}", "offset": k * 10**10, "size_bytes": 10**10} for k in range(0, 600, 60)]
    path = tmp_path / "lto7.json"
    path.write_text(json.dumps({"technology": "LTO-7", "files": files}))
    results = {}
    for algorithm in ("offset", "exact"):
        code, out, err = run(str(path), "--algorithm", algorithm, "--json")
        assert code == 0, err
        results[algorithm] = json.loads(out)
    assert results["exact"]["time_s"] < results["offset"]["time_s"]
    assert results["offset"]["read_s"] == pytest.approx(10 * 10**10 / 300e6)


GOOD: dict[str, Any] = {
    "wraps": 112,
    "min_lpos": 2696,
    "max_lpos": 171097,
    "end_of_wrap_blocks": [208310, 416271],
    "block_bytes": 262144,
    "rate_mb_s": 300,
    "files": [
        {"id": "a", "block": 0, "size_bytes": 10},
        {"id": "b", "block": 300000, "size_bytes": 10},
    ],
}


def _with(**changes: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            del doc[key]
        else:
            doc[key] = value
    return doc


def _files(*files: dict[str, Any]) -> dict[str, Any]:
    return _with(files=list(files))


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (_with(wraps=None), "wraps: missing"),
        (_with(wraps=110), "wraps: must be a multiple of the 4 bands"),
        (_with(wraps="112"), "wraps: must be an integer"),
        (_with(max_lpos=100), "max_lpos: must be above min_lpos"),
        (_with(rate_mb_s=-1), "rate_mb_s: must be > 0"),
        (_with(end_of_wrap_blocks=[]), "end_of_wrap_blocks: must be a non-empty list"),
        (_with(end_of_wrap_blocks=[10, 5]), "end_of_wrap_blocks[1]: must be above the wrap before"),
        (_with(block_bytes=0), "block_bytes: must be >= 1"),
        (_with(files=[]), "files: must be a non-empty list"),
        (_with(colour="red"), "colour: unknown key"),
        (_with(head_block=-3), "head_block: must be >= 0"),
        (_files({"id": "a", "block": -1, "size_bytes": 1}), "files[0].block: must be >= 0"),
        (_files({"id": "a", "block": 0}), "files[0].size_bytes: missing"),
        (_files({"block": 0, "size_bytes": 1}), "files[0].id: must be a non-empty string"),
        (
            _files(
                {"id": "a", "block": 0, "size_bytes": 1}, {"id": "a", "block": 9, "size_bytes": 1}
            ),
            "files[1].id: 'a' given twice",
        ),
        (
            _files({"id": "a", "block": 416271, "size_bytes": 262145}),
            "files[0].block: the file ends past",
        ),
        (
            _files({"id": "a", "block": 0, "offset": 0, "size_bytes": 1}),
            "files[0].offset: unknown key",
        ),
        (
            {"technology": "LTO-5", "files": [{"id": "a", "offset": 0, "size_bytes": 1}]},
            "technology: unknown 'LTO-5'",
        ),
        (
            {
                "technology": "LTO-7",
                "wraps": 112,
                "files": [{"id": "a", "offset": 0, "size_bytes": 1}],
            },
            "wraps: not with technology",
        ),
        (
            {"technology": "TS1150", "files": [{"id": "a", "offset": 10**13, "size_bytes": 1}]},
            "files[0].offset: the file ends past the tape's capacity",
        ),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_bad_input_is_one_line_exit_2_no_traceback(tmp_path: Path, document: Any, expected: str):
    path = tmp_path / "files.json"
    path.write_text(json.dumps(document))
    code, out, err = run(str(path))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{path}: ") and expected in lines[0], lines[0]
    assert "Traceback" not in err


def test_a_missing_file_and_bad_json_are_one_line(tmp_path: Path):
    code, _, err = run(str(tmp_path / "nowhere.json"))
    assert code == 2 and "cannot read file" in err and len(err.strip().splitlines()) == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, _, err = run(str(bad))
    assert code == 2 and "bad JSON" in err and len(err.strip().splitlines()) == 1


def test_the_physical_model_needs_a_known_number_of_wraps(tmp_path: Path):
    path = tmp_path / "files.json"
    path.write_text(json.dumps(_with(wraps=12)))
    code, _, err = run(str(path), "--locate", "physical")
    assert code == 2 and "wraps: no technology has 12 wraps" in err
    assert len(err.strip().splitlines()) == 1


def test_sltf_past_the_dense_matrix_orders_as_the_matrix_would(tmp_path):
    """Above MAX_DENSE_FILES, sltf computes each step's row of locates when it takes it: the
    same order as the dense matrix's, in memory of n."""
    from tapesched.solvers.recall_order import _sltf_path
    from tapesched.toolkit.files.recall_file import load_recall
    from tapesched.toolkit.hardware.tape_geometry import CtaCostHeuristic, locate_matrix_s
    from tapesched.toolkit.runtime.limits import MAX_DENSE_FILES

    n, size = MAX_DENSE_FILES + 300, 5_000_000
    files = [{"id": f"f{k}", "offset": (k * 7919 % n) * size, "size_bytes": size} for k in range(n)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"technology": "LTO-7", "files": files}))
    code, out, err = run(str(path), "--algorithm", "sltf", "--json")
    assert code == 0, err
    recall = load_recall(path)
    dense = _sltf_path(locate_matrix_s(recall.tape, CtaCostHeuristic(), 0, recall.files))
    assert json.loads(out)["order"] == [recall.files[k].id for k in dense]
