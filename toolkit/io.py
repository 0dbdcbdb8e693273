"""Instance and schedule files: JSON to model objects and back, through cattrs.

Loading is strict: a value of the wrong JSON type is never coerced (``"5"`` is
not a number, ``true`` is not an integer; the model's field checks judge
types), unknown and missing keys are errors, and so are NaN and infinities
(orjson parses strict JSON only). A document that fails is reported in full,
one :class:`~toolkit.errors.Problem` per bad value with its JSON path, by
raising :class:`~toolkit.errors.InputError`.

Valid files take a fast path (cattrs without detailed validation); only a file
that fails is structured a second time with detailed validation to collect
every problem and its path. Writing goes to a temporary file that is renamed
into place (:mod:`toolkit.outputs`), so a failed run never leaves a partial
output file.
"""

from __future__ import annotations

import json
import os
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import attrs
import cattrs
import orjson
from cattrs.errors import (
    AttributeValidationNote,
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
    IterableValidationNote,
)

from toolkit.errors import InputError, Problem
from toolkit.gc_pause import paused_gc
from toolkit.instance_checks import check_instance, is_consistent
from toolkit.model import (
    INSTANCE_FORMAT,
    OLD_SCENARIO_FORMATS,
    SCENARIO_FORMAT,
    SCHEDULE_FORMAT,
    Instance,
    InvalidFields,
    Schedule,
)
from toolkit.outputs import write_file

T = TypeVar("T")


def _as_is(value: Any, _: type) -> Any:
    """Pass scalars through untouched: the model's field checks judge their types.

    cattrs would otherwise coerce (``float("5")``) or stop at the first bad
    field of an object; the model reports every bad field of an object at once.
    """
    return value


def _json_repr(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_variadic_tuple(type_: Any) -> bool:
    args: tuple[Any, ...] = getattr(type_, "__args__", ())
    return getattr(type_, "__origin__", None) is tuple and len(args) == 2 and args[1] is Ellipsis


def _make_converter(detailed: bool) -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True, detailed_validation=detailed)
    for scalar in (float, int, str):
        conv.register_structure_hook(scalar, _as_is)

    def tuple_hook_factory(type_: Any) -> Callable[[Any, Any], tuple[Any, ...]]:
        elem = type_.__args__[0]
        elem_hook = conv.get_structure_hook(elem)

        def fast(value: Any, _: Any) -> tuple[Any, ...]:
            if type(value) is not list:
                raise TypeError(f"expected a list, got {_json_repr(value)}")
            return tuple([elem_hook(v, elem) for v in value])

        def careful(value: Any, _: Any) -> tuple[Any, ...]:
            if type(value) is not list:
                raise TypeError(f"expected a list, got {_json_repr(value)}")
            out, errors = [], []
            for i, v in enumerate(value):
                try:
                    out.append(elem_hook(v, elem))
                except Exception as exc:
                    exc.add_note(IterableValidationNote(f"@ index {i}", i, elem))  # type: ignore[arg-type]
                    errors.append(exc)
            if errors:
                raise IterableValidationError(f"While structuring {type_}", errors, type_)
            return tuple(out)

        return careful if detailed else fast

    conv.register_structure_hook_factory(_is_variadic_tuple, tuple_hook_factory)
    if not detailed:
        conv.register_structure_hook_factory(attrs.has, lambda cls: _direct_hook(conv, cls))
    return conv


def _direct_hook(conv: cattrs.Converter, cls: type) -> Callable[[Any, Any], Any]:
    """A compiled function building a valid object of ``cls`` from its JSON object.

    The fast path for files that are valid, which matters for files of a
    hundred thousand requests: one positional call of the class per object,
    fields holding objects or lists through their own hooks, scalars straight
    to the class, whose own checks judge them. A wrong key count or a missing
    key raises here, which sends the loader to cattrs' detailed path, the one
    that reports each problem with its path.
    """
    hints = typing.get_type_hints(cls)
    namespace: dict[str, Any] = {"_cls": cls, "_object_error": _object_error}
    required, optional, args = [], [], []
    for a in attrs.fields(cls):
        type_ = hints[a.name]
        inner = [t for t in getattr(type_, "__args__", ()) if t is not type(None)]
        if a.default is attrs.NOTHING:
            value = f"o[{a.name!r}]"
            required.append(a.name)
        else:
            namespace[f"_d_{a.name}"] = a.default
            value = f"o.get({a.name!r}, _d_{a.name})"
            optional.append(a.name)
        if attrs.has(type_) or _is_variadic_tuple(type_):
            namespace[f"_h_{a.name}"] = conv.get_structure_hook(type_)
            namespace[f"_t_{a.name}"] = type_
            value = f"_h_{a.name}({value}, _t_{a.name})"
        elif len(inner) == 1 and attrs.has(inner[0]):
            namespace[f"_h_{a.name}"] = conv.get_structure_hook(inner[0])
            namespace[f"_t_{a.name}"] = inner[0]
            value = f"(None if {value} is None else _h_{a.name}({value}, _t_{a.name}))"
        args.append(value)
    count = " + ".join([str(len(required)), *(f"({n!r} in o)" for n in optional)])
    source = "\n".join(
        [
            "def structure(o, _):",
            "    if type(o) is not dict or len(o) != " + count + ":",
            "        raise _object_error(o)",
            f"    return _cls({', '.join(args)})",
        ]
    )
    exec(compile(source, f"<structure {cls.__name__}>", "exec"), namespace)
    return namespace["structure"]  # type: ignore[no-any-return]


def _object_error(value: Any) -> TypeError:
    if type(value) is not dict:
        return TypeError(f"expected an object, got {_json_repr(value)}")
    return TypeError("unknown keys")


_FAST = _make_converter(detailed=False)
_DETAILED = _make_converter(detailed=True)
_UNSTRUCTURE = cattrs.Converter()


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _problems_of(exc: BaseException, path: str) -> list[Problem]:
    """Flatten a cattrs error tree into problems with dotted JSON paths."""
    if isinstance(exc, ForbiddenExtraKeysError):
        return [Problem(path, f"unknown key {k!r}") for k in sorted(exc.extra_fields)]
    if isinstance(exc, InvalidFields):
        return [Problem(_join(path, e.field), e.reason) for e in exc.errors]
    if isinstance(exc, ClassValidationError | IterableValidationError):
        out: list[Problem] = []
        for sub in exc.exceptions:
            sub_path = path
            missing = None
            for note in getattr(sub, "__notes__", ()):
                if isinstance(note, AttributeValidationNote):
                    if isinstance(sub, KeyError):
                        missing = note.name
                    else:
                        sub_path = _join(path, note.name)
                elif isinstance(note, IterableValidationNote):
                    sub_path = f"{path}[{note.index}]"
            if missing is not None:
                out.append(Problem(path, f"missing key {missing!r}"))
            else:
                out.extend(_problems_of(sub, sub_path))
        return out
    if isinstance(exc, TypeError | ValueError) and str(exc):
        return [Problem(path, str(exc))]
    if isinstance(exc, AttributeError | TypeError):
        return [Problem(path, "expected an object")]
    return [Problem(path, f"invalid value ({type(exc).__name__}: {exc})")]


def _structure(data: Any, cls: type[T], skip: str) -> tuple[T | None, list[Problem]]:
    """Build ``cls`` from ``data`` without its ``skip`` key (the format tag)."""
    if type(data) is not dict:
        return None, [Problem("", f"expected a JSON object, got {_json_repr(data)}")]
    body = {k: v for k, v in data.items() if k != skip}
    try:
        return _FAST.structure(body, cls), []
    except Exception:
        pass
    try:
        return _DETAILED.structure(body, cls), []
    except Exception as exc:
        problems = _problems_of(exc, "")
        return None, problems or [Problem("", f"invalid document ({exc})")]


def _check_format(data: Any, expected: str) -> list[Problem]:
    if type(data) is not dict:
        return []
    if "format" not in data:
        return [Problem("", "missing key 'format'")]
    if data["format"] != expected:
        return [Problem("format", f"expected {expected!r}, got {_json_repr(data['format'])}")]
    return []


def _parse(text: str | bytes, source: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise InputError(source, [Problem("", f"bad JSON: {exc}")]) from None


def _read(path: str | os.PathLike[str]) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InputError(str(path), [Problem("", f"cannot read file: {reason}")]) from None


def read_json(path: str | os.PathLike[str]) -> Any:
    """The parsed JSON document of a file.

    Raises
    ------
    InputError
        One line: the file cannot be read (missing, a directory, not
        readable) or is not JSON.
    """
    return _parse(_read(path), str(path))


FORMAT_KINDS: dict[str, str] = {
    INSTANCE_FORMAT: "instance",
    SCHEDULE_FORMAT: "schedule",
    SCENARIO_FORMAT: "scenario",
    **dict.fromkeys(OLD_SCENARIO_FORMATS, "scenario"),
}
"""What a file is (``instance``, ``schedule``, ``scenario``), by its ``format`` name."""


def kind_of(data: Any) -> str | None:
    """``"instance"``, ``"schedule"`` or ``"scenario"`` by a document's ``format`` key;
    ``None`` for a document without a known one."""
    if type(data) is not dict:
        return None
    fmt = data.get("format")
    return FORMAT_KINDS.get(fmt) if type(fmt) is str else None


def instance_from_dict(data: Any, source: str = "<instance>") -> Instance:
    """Build an :class:`Instance` from parsed JSON, checking every rule of the spec.

    Raises
    ------
    InputError
        With one problem per bad value: wrong types, missing or unknown keys,
        values out of range, duplicate ids, dangling references, pieces past
        their tape's capacity, gangs wider than their library.
    """
    problems = _check_format(data, INSTANCE_FORMAT)
    instance, structural = _structure(data, Instance, "format")
    problems += structural
    if type(data) is dict and (instance is None or not is_consistent(instance)):
        problems += check_instance(data)
    if problems or instance is None:
        raise InputError(source, _dedupe(problems))
    return instance


def schedule_from_dict(data: Any, source: str = "<schedule>") -> Schedule:
    """Build a :class:`Schedule` from parsed JSON.

    Only the shape is checked here (types, keys, ``op`` values); whether the
    schedule is feasible for an instance is :func:`toolkit.validator.validate`'s job.
    """
    problems = _check_format(data, SCHEDULE_FORMAT)
    schedule, structural = _structure(data, Schedule, "format")
    problems += structural
    if problems or schedule is None:
        raise InputError(source, _dedupe(problems))
    return schedule


def _dedupe(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


def loads_instance(text: str | bytes, source: str = "<string>") -> Instance:
    """Parse an instance from JSON text."""
    with paused_gc():
        return instance_from_dict(_parse(text, source), source)


def loads_schedule(text: str | bytes, source: str = "<string>") -> Schedule:
    """Parse a schedule from JSON text."""
    with paused_gc():
        return schedule_from_dict(_parse(text, source), source)


def load_instance(path: str | os.PathLike[str]) -> Instance:
    """Read an instance file."""
    return loads_instance(_read(path), str(path))


def load_schedule(path: str | os.PathLike[str]) -> Schedule:
    """Read a schedule file."""
    return loads_schedule(_read(path), str(path))


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """The JSON object of an instance, ``format`` first."""
    body = _UNSTRUCTURE.unstructure(instance)
    return {"format": INSTANCE_FORMAT, **body}


def schedule_to_dict(schedule: Schedule) -> dict[str, Any]:
    """The JSON object of a schedule, ``format`` first; absent optional keys are left out."""
    body = _UNSTRUCTURE.unstructure(schedule)
    if body["instance"] is None:
        del body["instance"]
    if body["objective"] is None:
        del body["objective"]
    for op in body["operations"]:
        if op["library"] is None:
            del op["library"]
    return {"format": SCHEDULE_FORMAT, **body}


def dumps(data: dict[str, Any], indent: int | None = 1) -> str:
    """JSON text of a document as the toolkit writes it."""
    return json.dumps(data, indent=indent, allow_nan=False) + "\n"


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to the file ``path``, replacing it atomically.

    :func:`toolkit.outputs.write_file`: a temporary file renamed into place,
    mode ``0666 & ~umask`` (an existing file keeps its mode); a directory, a
    device, a FIFO or a socket at ``path`` is refused with
    :class:`~toolkit.errors.InputError`.
    """
    write_file(path, text)


def save_instance(instance: Instance, path: str | os.PathLike[str]) -> None:
    """Write an instance file."""
    write_atomic(path, dumps(instance_to_dict(instance)))


def save_schedule(schedule: Schedule, path: str | os.PathLike[str]) -> None:
    """Write a schedule file."""
    write_atomic(path, dumps(schedule_to_dict(schedule)))
