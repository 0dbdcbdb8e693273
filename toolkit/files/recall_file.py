"""A recall file (``tapesched order FILES.json``): one mounted tape and the files to read from it.

Two forms, both JSON objects:

- The tape as a CTA site knows it: ``wraps``, ``min_lpos``, ``max_lpos``
  (the media type's), ``end_of_wrap_blocks`` (the last block id of each
  wrap written so far, as the drive reports them), ``block_bytes`` and the
  drive's ``rate_mb_s``; each file has an ``id``, its first ``block`` and
  its ``size_bytes``.
- A whole tape of a named ``technology`` (a key of
  :data:`toolkit.hardware.technology.TAPE_FORMATS`: ``LTO-7``, ``LTO-8``, ``LTO-9``,
  ``TS1150``), each file with its byte ``offset`` on the tape and its
  ``size_bytes``.

Either may give ``head_block``, where the head is when the ordering starts
(default 0, the beginning of the tape, as CTA's SLTF starts) — a byte offset
in the second form — and a free-text ``source``. Every problem is reported
with the JSON path of the value at fault (:class:`toolkit.errors.InputError`).
"""

from __future__ import annotations

import os
from typing import Any

from attrs import frozen

from tapesched.toolkit.errors import InputError, Problem, capped, shown
from tapesched.toolkit.fields import bounded_rate
from tapesched.toolkit.files.json_documents import read_json
from tapesched.toolkit.hardware.tape_geometry import SerpentineTape, TapeFile
from tapesched.toolkit.hardware.technology import TAPE_FORMATS
from tapesched.toolkit.runtime.limits import MAX_RECALL_FILES
from tapesched.toolkit.units import MAX_COUNT, MAX_SIZE_MB

CTA_KEYS = ("wraps", "min_lpos", "max_lpos", "end_of_wrap_blocks", "block_bytes", "rate_mb_s")
"""The keys of a tape given as CTA knows it."""
TECHNOLOGY_KEYS = ("technology",)
"""The key of a whole tape of a named format, in place of :data:`CTA_KEYS`."""
COMMON_KEYS = ("files", "head_block", "source")
"""The keys of either form."""
CTA_FILE_KEYS = ("id", "block", "size_bytes")
"""The keys of a file of ``files`` beside :data:`CTA_KEYS`: its first block."""
TECHNOLOGY_FILE_KEYS = ("id", "offset", "size_bytes")
"""The keys of a file of ``files`` beside :data:`TECHNOLOGY_KEYS`: its byte offset."""


@frozen
class RecallFile:
    """What a recall file gives: the tape, where its head is, the files to read.

    Attributes
    ----------
    tape
        The tape's geometry.
    head_block
        The head's block when the ordering starts.
    files
        The files, in the order requested.
    """

    tape: SerpentineTape
    head_block: int
    files: tuple[TapeFile, ...]


def _is_int(value: object) -> bool:
    return type(value) is int


MAX_BYTES = int(MAX_SIZE_MB * 1e6)
"""Largest byte count, offset or block id of a recall file: :data:`~toolkit.units.MAX_SIZE_MB`
in bytes (a block is at least a byte)."""


def _int(
    data: dict[str, Any],
    key: str,
    path: str,
    problems: list[Problem],
    least: int,
    most: int = MAX_BYTES,
) -> int:
    value: Any = data.get(key)
    if key not in data:
        problems.append(Problem(path, "missing"))
    elif not _is_int(value):
        problems.append(Problem(path, f"must be an integer, got {shown(value)}"))
    elif value < least:
        problems.append(Problem(path, f"must be >= {least}, got {value}"))
    elif value > most:
        problems.append(Problem(path, f"must be <= {most:,}, got {shown(value)}"))
    else:
        return int(value)
    return -1


def _tape(data: dict[str, Any], problems: list[Problem]) -> SerpentineTape | None:
    if "technology" in data:
        name = data["technology"]
        if name not in TAPE_FORMATS:
            known = ", ".join(TAPE_FORMATS)
            problems.append(Problem("technology", f"unknown {shown(name)}; one of {known}"))
            return None
        for key in CTA_KEYS:
            if key in data:
                problems.append(Problem(key, "not with technology (which fixes the tape)"))
        return SerpentineTape.full(TAPE_FORMATS[name])
    before = len(problems)
    wraps = _int(data, "wraps", "wraps", problems, 4, MAX_COUNT)
    min_lpos = _int(data, "min_lpos", "min_lpos", problems, 0, MAX_COUNT)
    max_lpos = _int(data, "max_lpos", "max_lpos", problems, 1, MAX_COUNT)
    block_bytes = _int(data, "block_bytes", "block_bytes", problems, 1)
    rate: Any = data.get("rate_mb_s")
    if "rate_mb_s" not in data:
        problems.append(Problem("rate_mb_s", "missing (the drive's streaming rate)"))
    elif (why := bounded_rate(rate)) is not None:
        problems.append(Problem("rate_mb_s", why))
    eow: Any = data.get("end_of_wrap_blocks")
    if "end_of_wrap_blocks" not in data:
        problems.append(Problem("end_of_wrap_blocks", "missing"))
    elif type(eow) is not list or not eow:
        problems.append(Problem("end_of_wrap_blocks", "must be a non-empty list of block ids"))
    else:
        for k, block in enumerate(eow):
            path = f"end_of_wrap_blocks[{k}]"
            if not _is_int(block) or not 1 <= block <= MAX_BYTES:
                why = f"must be a positive integer up to {MAX_BYTES:,}, got {shown(block)}"
                problems.append(Problem(path, why))
            elif k and _is_int(eow[k - 1]) and block <= eow[k - 1]:
                problems.append(Problem(path, f"must be above the wrap before ({eow[k - 1]})"))
    if len(problems) > before:
        return None
    if wraps % 4:
        problems.append(Problem("wraps", f"must be a multiple of the 4 bands, got {wraps}"))
    if max_lpos <= min_lpos:
        problems.append(Problem("max_lpos", f"must be above min_lpos ({min_lpos})"))
    if len(eow) > wraps:
        problems.append(
            Problem("end_of_wrap_blocks", f"{len(eow)} wraps written, the tape has {wraps}")
        )
    if len(problems) > before:
        return None
    return SerpentineTape(
        wraps=wraps,
        min_lpos=min_lpos,
        max_lpos=max_lpos,
        end_of_wrap_blocks=tuple(eow),
        block_bytes=block_bytes,
        rate_mb_s=float(rate),
    )


def _files(
    data: dict[str, Any], tape: SerpentineTape | None, problems: list[Problem]
) -> list[TapeFile]:
    keys = TECHNOLOGY_FILE_KEYS if "technology" in data else CTA_FILE_KEYS
    start = keys[1]
    files = data.get("files")
    if "files" not in data:
        problems.append(Problem("files", "missing"))
        return []
    if type(files) is not list or not files:
        problems.append(Problem("files", "must be a non-empty list of files"))
        return []
    if len(files) > MAX_RECALL_FILES:
        why = f"{len(files):,} files, more than the {MAX_RECALL_FILES:,} a recall may list"
        problems.append(Problem("files", why))
        return []
    out, seen = [], set()
    for k, item in enumerate(files):
        path = f"files[{k}]"
        if type(item) is not dict:
            problems.append(Problem(path, f"must be an object, got {shown(item)}"))
            continue
        for key in sorted(set(item) - set(keys)):
            known = ", ".join(keys)
            problems.append(Problem(f"{path}.{key}", f"unknown key (a file has {known})"))
        before = len(problems)
        ident = item.get("id")
        if type(ident) is not str or not ident:
            wrong = f"must be a non-empty string, got {shown(ident)}"
            problems.append(Problem(f"{path}.id", wrong))
        elif ident in seen:
            problems.append(Problem(f"{path}.id", f"{shown(ident)} given twice"))
        seen.add(ident)
        block = _int(item, start, f"{path}.{start}", problems, 0)
        size = _int(item, "size_bytes", f"{path}.size_bytes", problems, 0)
        if len(problems) > before:
            continue
        f = TapeFile(id=str(ident), block=block, size_bytes=size)
        if tape is not None and f.end_block(tape) - 1 > tape.last_block:
            where = "the tape's capacity" if start == "offset" else "the last block written"
            problems.append(
                Problem(f"{path}.{start}", f"the file ends past {where} ({tape.last_block})")
            )
            continue
        out.append(f)
    return out


def recall_from_dict(data: Any, source: str = "<recall>") -> RecallFile:
    """Read a recall file's document (see the module).

    Raises
    ------
    InputError
        Every problem found, each with its JSON path.
    """
    if type(data) is not dict:
        raise InputError(source, [Problem("", "must be a JSON object")])
    problems: list[Problem] = []
    allowed = {*COMMON_KEYS, *(TECHNOLOGY_KEYS if "technology" in data else CTA_KEYS)}
    for key in sorted(set(data) - allowed):
        if key not in CTA_KEYS:
            problems.append(Problem(key, "unknown key"))
    tape = _tape(data, problems)
    files = _files(data, tape, problems)
    head = 0
    if "head_block" in data:
        head = _int(data, "head_block", "head_block", problems, 0)
        if tape is not None and head > tape.last_block + 1:
            problems.append(Problem("head_block", f"past the end of the tape ({tape.last_block})"))
    if "source" in data and type(data["source"]) is not str:
        problems.append(Problem("source", "must be a string"))
    if problems or tape is None:
        raise InputError(source, capped(problems))
    return RecallFile(tape=tape, head_block=head, files=tuple(files))


def load_recall(path: str | os.PathLike[str]) -> RecallFile:
    """Read a recall file (see the module); :class:`InputError` for bad input."""
    return recall_from_dict(read_json(path), str(path))
