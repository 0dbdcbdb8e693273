"""JSON documents: read strictly, told apart by their format, written whole.

A document is parsed by orjson (strict JSON: no NaN, no infinities), and a
key an object gives twice is an error (:mod:`.duplicate_keys`); a file is
read by :func:`toolkit.files.reading.read_bytes` within its limits. Each
format names itself in its ``format`` key (:func:`kind_of`,
:func:`check_format`), and its body is structured without that key
(:func:`structure_document`). Writing goes to a temporary file that is
renamed into place (:mod:`toolkit.files.outputs`), so a failed run never
leaves a partial output file.
"""

from __future__ import annotations

import json
import os
from typing import Any, TypeVar

import orjson

from tapesched.toolkit.errors import InputError, Problem, capped, shown
from tapesched.toolkit.files.duplicate_keys import duplicate_keys
from tapesched.toolkit.files.outputs import write_file
from tapesched.toolkit.files.reading import read_bytes
from tapesched.toolkit.files.structurer import JSON
from tapesched.toolkit.model import (
    INSTANCE_FORMAT,
    INSTANCE_FORMAT_2,
    OLD_SCENARIO_FORMATS,
    SCENARIO_FORMAT,
    SCHEDULE_FORMAT,
    SITE_FORMAT,
)

T = TypeVar("T")


def parse_json(text: str | bytes, source: str) -> Any:
    """The document of JSON ``text`` read from ``source``, or :class:`InputError`: bad JSON,
    or one problem per key an object gives twice."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise InputError(source, [Problem("", f"bad JSON: {exc}")]) from None
    problems = duplicate_keys(text, data)
    if problems:
        raise InputError(source, capped(problems))
    return data


def read_json(path: str | os.PathLike[str]) -> Any:
    """The parsed JSON document of a file (``.bz2``, ``.gz`` and ``.zst`` decompressed), read by
    :func:`toolkit.files.reading.read_bytes` within its limits.

    Raises
    ------
    InputError
        One line: the file cannot be read (missing, not a regular file,
        larger than the limit, not readable) or is not JSON; or one line per
        key an object gives twice.
    """
    return parse_json(read_bytes(path), str(path))


FORMAT_KINDS: dict[str, str] = {
    INSTANCE_FORMAT: "instance",
    SCHEDULE_FORMAT: "schedule",
    SCENARIO_FORMAT: "scenario",
    INSTANCE_FORMAT_2: "instance",
    SITE_FORMAT: "site",
    **dict.fromkeys(OLD_SCENARIO_FORMATS, "scenario"),
}
"""What a file is (``instance``, ``schedule``, ``scenario``, ``site``), by its ``format`` name."""


def kind_of(data: Any) -> str | None:
    """``"instance"``, ``"schedule"``, ``"scenario"`` or ``"site"`` by a document's ``format`` key;
    ``None`` for a document without a known one."""
    if type(data) is not dict:
        return None
    fmt = data.get("format")
    return FORMAT_KINDS.get(fmt) if type(fmt) is str else None


def structure_document(data: Any, cls: type[T], skip: str) -> tuple[T | None, list[Problem]]:
    """Build ``cls`` from ``data`` without its ``skip`` key (the format tag)."""
    body = {k: v for k, v in data.items() if k != skip} if type(data) is dict else data
    return JSON.structure(body, cls)


def check_format(data: Any, expected: str, *also: str) -> list[Problem]:
    """The problem of a document whose ``format`` is missing or neither ``expected`` nor
    one of ``also`` (none for a document that is not an object: its structure says so)."""
    if type(data) is not dict:
        return []
    if "format" not in data:
        return [Problem("", "missing key 'format'")]
    if data["format"] != expected and data["format"] not in also:
        names = " or ".join(repr(x) for x in (expected, *also))
        return [Problem("format", f"expected {names}, got {shown(data['format'])}")]
    return []


def dumps(data: dict[str, Any], indent: int | None = 1) -> str:
    """JSON text of a document as the toolkit writes it."""
    return json.dumps(data, indent=indent, allow_nan=False) + "\n"


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to the file ``path``, replacing it atomically.

    :func:`toolkit.files.outputs.write_file`: a temporary file renamed into place,
    mode ``0666 & ~umask`` (an existing file keeps its mode); a directory, a
    device, a FIFO or a socket at ``path`` is refused with
    :class:`~toolkit.errors.InputError`.
    """
    write_file(path, text)
