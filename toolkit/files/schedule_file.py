"""Schedule files (``tapesched.schedule/1``): read for their shape only, written.

Whether a schedule is feasible for an instance is the validator's question
(:func:`toolkit.validator.validate`); here only its types, keys and values
are checked, every bad one with its path.
"""

from __future__ import annotations

import os
from typing import Any

from tapesched.toolkit.errors import InputError
from tapesched.toolkit.files.json_documents import (
    check_format,
    dumps,
    parse_json,
    structure_document,
    write_atomic,
)
from tapesched.toolkit.files.reading import read_bytes
from tapesched.toolkit.files.structurer import UNSTRUCTURE, unique_problems
from tapesched.toolkit.model import SCHEDULE_FORMAT, Schedule
from tapesched.toolkit.runtime.gc_pause import paused_gc


def schedule_from_dict(data: Any, source: str = "<schedule>") -> Schedule:
    """Build a :class:`Schedule` from parsed JSON.

    Only the shape is checked here (types, keys, ``op`` values); whether the
    schedule is feasible for an instance is :func:`toolkit.validator.validate`'s job.
    """
    problems = check_format(data, SCHEDULE_FORMAT)
    schedule, structural = structure_document(data, Schedule, "format")
    problems += structural
    if problems or schedule is None:
        raise InputError(source, unique_problems(problems))
    return schedule


def loads_schedule(text: str | bytes, source: str = "<string>") -> Schedule:
    """Parse a schedule from JSON text."""
    with paused_gc():
        return schedule_from_dict(parse_json(text, source), source)


def load_schedule(path: str | os.PathLike[str]) -> Schedule:
    """Read a schedule file."""
    return loads_schedule(read_bytes(path), str(path))


def schedule_to_dict(schedule: Schedule) -> dict[str, Any]:
    """The JSON object of a schedule, ``format`` first; absent optional keys are left out."""
    body = UNSTRUCTURE.unstructure(schedule)
    if body["instance"] is None:
        del body["instance"]
    if body["objective"] is None:
        del body["objective"]
    for op in body["operations"]:
        if op["library"] is None:
            del op["library"]
    return {"format": SCHEDULE_FORMAT, **body}


def save_schedule(schedule: Schedule, path: str | os.PathLike[str]) -> None:
    """Write a schedule file."""
    write_atomic(path, dumps(schedule_to_dict(schedule)))
