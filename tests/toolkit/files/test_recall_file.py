"""Reading a recall file: the two forms of the tape, the head, and problems reported together."""

from __future__ import annotations

import pytest

from tapesched.toolkit.errors import InputError
from tapesched.toolkit.files.recall_file import load_recall, recall_from_dict
from tapesched.toolkit.hardware.technology import TAPE_FORMATS
from tests.conftest import INSTANCES


def test_the_shipped_file_reads_as_ctas_tape():
    recall = load_recall(INSTANCES / "recall" / "lto7-files.json")
    assert recall.tape.wraps == 112 and recall.tape.end_of_wrap_blocks[-1] == 633521
    assert recall.head_block == 0 and len(recall.files) == 8
    assert recall.files[4].id == "fseq-1" and recall.files[4].block == 0


def test_a_technology_tape_takes_byte_offsets_and_a_head():
    recall = recall_from_dict(
        {"technology": "LTO-9", "head_block": 5 * 10**9,
         "files": [{"id": "a", "offset": 10**12, "size_bytes": 10**9}]}
    )  # fmt: skip
    fmt = TAPE_FORMATS["LTO-9"]
    assert recall.tape.wraps == fmt.wraps and recall.tape.rate_mb_s == fmt.rate_mb_s
    assert (
        recall.files[0].block == 10**12 and recall.files[0].end_block(recall.tape) == 10**12 + 10**9
    )
    assert recall.head_block == 5 * 10**9


def test_problems_are_reported_together_each_with_its_path():
    with pytest.raises(InputError) as caught:
        recall_from_dict(
            {"wraps": 7, "min_lpos": 0, "max_lpos": 10, "end_of_wrap_blocks": [3],
             "block_bytes": 1, "files": [{"id": "", "block": True, "size_bytes": 1}]},
            "x.json",
        )  # fmt: skip
    lines = caught.value.lines()
    assert "x.json: rate_mb_s: missing (the drive's streaming rate)" in lines
    assert "x.json: files[0].id: must be a non-empty string, got ''" in lines
    assert "x.json: files[0].block: must be an integer, got True" in lines
