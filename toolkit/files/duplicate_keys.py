"""Keys that a JSON object gives twice: found, though orjson (like most readers) keeps the last.

:func:`duplicate_keys` is asked by :func:`toolkit.files.json_documents.read_json` of every
document it parses, so that a file giving a key twice is refused
(``FILE: PATH: duplicate key 'x'``) instead of read as its last value.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson

from tapesched.toolkit.errors import Problem, join_path, shown


class _Repeated(dict[str, Any]):
    """An object of a document that gives a key more than once: the keys given again."""

    repeated: tuple[str, ...] = ()


def _object_of(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of ``pairs`` (:func:`json.loads`' hook), a :class:`_Repeated` when a key
    comes twice."""
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    again = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
    repeated = _Repeated(obj)
    repeated.repeated = tuple(dict.fromkeys(again))
    return repeated


def _repeated_keys(data: Any) -> list[Problem]:
    """``PATH: duplicate key 'x'`` for every key repeated in a document parsed with
    :func:`_object_of`, in document order."""
    problems = []
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if type(value) is _Repeated:
            problems += [Problem(path, f"duplicate key {shown(k)}") for k in value.repeated]
        if isinstance(value, dict):
            stack += reversed([(join_path(path, k), v) for k, v in value.items()])
        elif type(value) is list:
            stack += reversed([(f"{path}[{i}]", v) for i, v in enumerate(value)])
    return problems


def duplicate_keys(text: str | bytes, data: Any) -> list[Problem]:
    """Every key that an object of the JSON ``text`` gives twice (``data``, its parse by
    orjson, keeps the last of them, as most JSON readers silently do).

    The quick test costs about 0.1 s for 10^6 keys: a text without a backslash
    writes every string as it is, and orjson writes it back the same way, so
    the text holds as many quotes as orjson's writing of ``data`` exactly
    when no key was dropped. A text with a backslash (or nested beyond what
    orjson writes back) is parsed again by :func:`json.loads`, whose hook sees
    every key.
    """
    raw = text.encode() if isinstance(text, str) else text
    if b"\\" not in raw:
        try:
            if raw.count(b'"') == orjson.dumps(data).count(b'"'):
                return []
        except orjson.JSONEncodeError:
            pass
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 2 * _MAX_DEPTH)  # orjson parsed it: at most that deep
    try:
        return _repeated_keys(json.loads(raw, object_pairs_hook=_object_of))
    finally:
        sys.setrecursionlimit(limit)


_MAX_DEPTH = 1024
"""How deep orjson reads nested arrays and objects (and json.loads must follow)."""
