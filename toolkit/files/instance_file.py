"""Instance files (``tapesched.instance/1`` and ``/2``): read, checked in full, written.

An instance is structured through cattrs (:mod:`.structurer`) and checked by
every rule of the spec, those across objects included
(:mod:`toolkit.instance_checks`); a version-1 file naming a key of version 2
is refused. An instance is written in version 1 whenever version 1 describes
it, so that files written before version 2 are written again byte for byte.
"""

from __future__ import annotations

import os
from typing import Any

from tapesched.toolkit.errors import InputError, Problem
from tapesched.toolkit.files.json_documents import (
    check_format,
    dumps,
    parse_json,
    structure_document,
    write_atomic,
)
from tapesched.toolkit.files.reading import read_bytes
from tapesched.toolkit.files.structurer import UNSTRUCTURE, unique_problems
from tapesched.toolkit.instance_checks import check_instance, is_consistent
from tapesched.toolkit.model import INSTANCE_FORMAT, INSTANCE_FORMAT_2, Instance
from tapesched.toolkit.runtime.gc_pause import paused_gc

STATE_KEYS: tuple[tuple[str, str], ...] = (
    ("initial", "head_mb"),
    ("drives", "available_s"),
    ("libraries", "arms_available_s"),
)
"""The keys of the starting state that only version 2 of the instance format has:
(the list of objects that may hold it, the key)."""

VERSION_2_KEYS: tuple[tuple[str, str], ...] = (*STATE_KEYS, ("drives", "locate"))
"""Every key only version 2 has: the starting state and a drive's serpentine ``locate``."""


def _state_keys_in_version_1(data: Any) -> list[Problem]:
    """A version-1 instance naming a key of version 2, one problem at each such key.

    Version 1 reads as it always did; its objects have no such keys, so the
    file is refused rather than read with a state it did not declare.
    """
    if type(data) is not dict or data.get("format") != INSTANCE_FORMAT:
        return []
    out = []
    for key, name in VERSION_2_KEYS:
        items = data.get(key)
        if type(items) is not list:
            continue
        for i, item in enumerate(items):
            if type(item) is dict and name in item:
                out.append(
                    Problem(
                        f"{key}[{i}].{name}",
                        f"a key of {INSTANCE_FORMAT_2!r}; this file says {INSTANCE_FORMAT!r}",
                    )
                )
    return out


def instance_from_dict(data: Any, source: str = "<instance>") -> Instance:
    """Build an :class:`Instance` from parsed JSON, checking every rule of the spec.

    Raises
    ------
    InputError
        With one problem per bad value: wrong types, missing or unknown keys,
        values out of range, duplicate ids, dangling references, pieces past
        their tape's capacity, gangs wider than their library.
    """
    problems = check_format(data, INSTANCE_FORMAT, INSTANCE_FORMAT_2)
    problems += _state_keys_in_version_1(data)
    instance, structural = structure_document(data, Instance, "format")
    problems += structural
    if type(data) is dict and (instance is None or not is_consistent(instance)):
        problems += check_instance(data)
    if problems or instance is None:
        raise InputError(source, unique_problems(problems))
    return instance


def loads_instance(text: str | bytes, source: str = "<string>") -> Instance:
    """Parse an instance from JSON text."""
    with paused_gc():
        return instance_from_dict(parse_json(text, source), source)


def load_instance(path: str | os.PathLike[str]) -> Instance:
    """Read an instance file."""
    return loads_instance(read_bytes(path), str(path))


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """The JSON object of an instance, ``format`` first.

    An instance whose starting state version 1 describes (heads at 0, drives
    and arms free at 0) and whose drives locate linearly is written in
    version 1, without the keys of version 2, exactly as before; any other in
    version 2, with the keys that differ from their defaults (a drive's
    ``locate`` only when it has one).
    """
    body = UNSTRUCTURE.unstructure(instance)
    for key, name in STATE_KEYS:
        for item in body[key]:
            value = item[name]
            if value == 0 or (type(value) in (list, tuple) and not any(value)):
                del item[name]
            elif type(value) is tuple:
                item[name] = list(value)
    for item in body["drives"]:
        if item["locate"] is None:
            del item["locate"]
    version_2 = instance.start_state_paths or instance.locate_paths
    fmt = INSTANCE_FORMAT_2 if version_2 else INSTANCE_FORMAT
    return {"format": fmt, **body}


def save_instance(instance: Instance, path: str | os.PathLike[str]) -> None:
    """Write an instance file."""
    write_atomic(path, dumps(instance_to_dict(instance)))
