"""Reading documents into model objects through cattrs, every bad value with its path.

Every file the toolkit reads (instances, schedules, scenarios, the ECMWF
trace, its layout and cartridge map, CSV workloads) is structured into attrs
classes by a :class:`Structurer`, whose values are judged by the rules of
:mod:`toolkit.fields` that the classes declare. Loading is strict: a value of
the wrong JSON type is never coerced (``"5"`` is not a number, ``true`` is not
an integer), and unknown and missing keys are errors. A document that fails
is reported in full, one :class:`~toolkit.errors.Problem` per bad value with
its JSON path (or ``line N.column`` in a CSV file), by flattening cattrs'
tree of errors (:func:`unique_problems` keeps each once).

Valid files take a fast path (a compiled function per class, building each
object with one call, whose own checks judge its fields); only a document
that fails is structured a second time, by cattrs with detailed validation,
checking each value at its path to collect every problem. :data:`UNSTRUCTURE`
turns model objects back into JSON-ready dicts for the writers.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

import attrs
import cattrs
from attrs import frozen
from cattrs.errors import (
    AttributeValidationNote,
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
    IterableValidationNote,
)
from cattrs.gen import make_dict_structure_fn, override

from tapesched.toolkit.errors import Problem, ValueProblems, join_path, shown
from tapesched.toolkit.fields import InvalidFields, Rule

T = TypeVar("T")


@frozen
class KeyStyle:
    """Where a file format reports a missing and an unknown key, and in what words.

    By default both are reported at the path of the object that lacks or
    holds the key, naming it (``requests[2]: missing key 'weight'``), as the
    instance and schedule files always did. ``missing_at_key`` reports a
    missing key at its own path (``policy.name: missing key``) and
    ``unknown_at_key`` an unknown one (``platform.robots: unknown key
    'robots'``), listing the keys the object may hold with ``list_known``
    (``platform.robots: unknown key (known: dismount, drives, ...)``).
    """

    missing_at_key: bool = False
    unknown_at_key: bool = False
    list_known: bool = False


OBJECT_KEYS = KeyStyle()
"""Missing and unknown keys named at the path of their object."""


def _as_is(value: Any, _: type) -> Any:
    """Pass scalars through untouched: the classes' field rules judge their types.

    cattrs would otherwise coerce (``float("5")``) or stop at the first bad
    field of an object; the rules report every bad field of an object at once.
    """
    return value


def _is_variadic_tuple(type_: Any) -> bool:
    args: tuple[Any, ...] = getattr(type_, "__args__", ())
    return typing.get_origin(type_) is tuple and len(args) == 2 and args[1] is Ellipsis


def _is_mapping(type_: Any) -> bool:
    return typing.get_origin(type_) is dict


def _annotated_rules(type_: Any) -> list[Rule]:
    if typing.get_origin(type_) is not Annotated:
        return []
    return [m for m in type_.__metadata__ if isinstance(m, Rule)]


def _object_error(value: Any) -> TypeError:
    if type(value) is not dict:
        return TypeError(f"expected an object, got {shown(value)}")
    return TypeError("unknown keys")


def _list_error(value: Any) -> TypeError:
    return TypeError(f"expected a list, got {shown(value)}")


class Structurer:
    """Structures documents into attrs classes with cattrs, fast when they are valid.

    Parameters
    ----------
    scalars
        How a scalar field of a type (``float``, ``int``, ``str``) is read
        from the document's value; left out, it is passed as it is for the
        field's rule to judge (JSON). Cells of a CSV file are text, read into
        numbers here (:data:`TEXT`).
    """

    def __init__(self, scalars: Mapping[type, Callable[[Any], Any]] | None = None) -> None:
        self._scalars = dict(scalars or {})
        self._as_written = bool(self._scalars)
        self._fast = self._converter(detailed=False)
        self._detailed = self._converter(detailed=True)

    def structure(
        self, data: Any, cls: type[T], *, keys: KeyStyle = OBJECT_KEYS, path: str = ""
    ) -> tuple[T | None, list[Problem]]:
        """``data`` as a ``cls``, or ``None`` and every problem of it.

        Parameters
        ----------
        data
            The document (parsed JSON, or a CSV line as a dict of cells).
        cls
            The attrs class of the document.
        keys
            How the format reports missing and unknown keys.
        path
            Path of ``data`` in its file (``line 7`` for a CSV line), which
            the path of each problem starts with.
        """
        try:
            return self._fast.structure(data, cls), []
        except Exception:
            return self._careful(data, cls, keys, path)

    def reader(
        self, cls: type[T], *, keys: KeyStyle = OBJECT_KEYS, path: str = "{}"
    ) -> Callable[[Any, object], tuple[T | None, list[Problem]]]:
        """:meth:`structure` of ``cls`` as a function of a document and where it is in
        its file, for the lines of a long file: the fast path costs one call of a
        compiled function, and the path (``path`` formatted with where the document
        is: ``"line {}"``) is only made for a document that fails."""
        fast = self._fast.get_structure_hook(cls)

        def read(data: Any, where: object = "") -> tuple[T | None, list[Problem]]:
            try:
                return fast(data, cls), []
            except Exception:
                return self._careful(data, cls, keys, path.format(where))

        return read

    def _careful(
        self, data: Any, cls: type[T], keys: KeyStyle, path: str
    ) -> tuple[T | None, list[Problem]]:
        """The detailed path: cattrs with detailed validation, every problem with its path."""
        try:
            return self._detailed.structure(data, cls), []
        except Exception as exc:
            problems = _problems_of(exc, path, keys)
            return None, unique_problems(problems) or [Problem(path, f"invalid value ({exc})")]

    def _converter(self, detailed: bool) -> cattrs.Converter:
        conv = cattrs.Converter(forbid_extra_keys=True, detailed_validation=detailed)
        for scalar in (float, int, str):
            read = self._scalars.get(scalar)
            hook = _as_is if read is None else _scalar_hook(read, detailed)
            conv.register_structure_hook(scalar, hook)
        conv.register_structure_hook_factory(
            _is_variadic_tuple, lambda t: _tuple_hook(conv, t, detailed)
        )
        conv.register_structure_hook_factory(
            _is_mapping, lambda t: _mapping_hook(conv, t, detailed)
        )
        conv.register_structure_hook_factory(
            lambda t: bool(_annotated_rules(t)), lambda t: self._annotated_hook(conv, t)
        )
        if detailed:
            conv.register_structure_hook_factory(attrs.has, lambda c: self._careful_hook(conv, c))
        else:
            conv.register_structure_hook_factory(attrs.has, lambda c: self._direct_hook(conv, c))
        return conv

    def _check(self, rule: Rule, value: Any, raw: Any) -> None:
        reason = (
            rule.as_written(value, raw) if self._as_written and type(raw) is str else rule(value)
        )
        if reason is not None:
            raise ValueError(reason)

    def _annotated_hook(self, conv: cattrs.Converter, type_: Any) -> Callable[[Any, Any], Any]:
        """A value of ``Annotated[T, rule, ...]``: read as a ``T``, then checked by each rule."""
        base = type_.__origin__
        structure = conv.get_structure_hook(base)
        rules = _annotated_rules(type_)

        if structure is _as_is and len(rules) == 1:
            accepts = rules[0].accepts

            def check(value: Any, _: Any) -> Any:
                if not accepts(value):
                    self._check(rules[0], value, value)
                return value

            return check

        def hook(value: Any, _: Any) -> Any:
            out = structure(value, base)
            for rule in rules:
                self._check(rule, out, value)
            return out

        return hook

    def _careful_hook(self, conv: cattrs.Converter, cls: type) -> Callable[[Any, Any], Any]:
        """cattrs' structuring of ``cls`` with detailed validation, each field read as the
        class says (:func:`~toolkit.fields.parsed`), converted and checked by its rule
        (:func:`~toolkit.fields.check`) at its own path."""
        hints = typing.get_type_hints(cls, include_extras=True)
        overrides: dict[str, Any] = {}
        for a in attrs.fields(cls):
            parse = a.metadata.get("parse")
            rule = a.metadata.get("check")
            convert = a.converter  # a plain function in the documents' classes
            if parse is not None or rule is not None or convert is not None:
                overrides[a.name] = override(
                    struct_hook=self._field_hook(conv, hints[a.name], parse, rule, convert)
                )
        inner: Callable[[Any, Any], Any] = make_dict_structure_fn(cls, conv, **overrides)

        def structure(value: Any, type_: Any) -> Any:
            if type(value) is not dict:
                raise _object_error(value)
            return inner(value, type_)

        return structure

    def _field_hook(
        self,
        conv: cattrs.Converter,
        type_: Any,
        parse: Callable[[Any], Any] | None,
        rule: Rule | None,
        convert: Callable[[Any], Any] | None,
    ) -> Callable[[Any, Any], Any]:
        structure = conv.get_structure_hook(type_) if parse is None else None

        def hook(value: Any, _: Any) -> Any:
            out = parse(value) if parse is not None else structure(value, type_)  # type: ignore[misc]
            if convert is not None:
                out = convert(out)
            if rule is not None:
                self._check(rule, out, value)
            return out

        return hook

    def _direct_hook(self, conv: cattrs.Converter, cls: type) -> Callable[[Any, Any], Any]:
        """A compiled function building a valid object of ``cls`` from its JSON object.

        The fast path for documents that are valid, which matters for files of
        a hundred thousand requests: one call of the class per object, fields
        holding objects, lists or mappings through their own hooks, values of
        several shapes through the field's parse function, scalars straight to
        the class (read from text first, for a CSV line), whose own checks
        judge them. A wrong key count or a missing key raises here, which
        sends the reader to the detailed path, the one that reports each
        problem with its path.
        """
        hints = typing.get_type_hints(cls, include_extras=True)
        namespace: dict[str, Any] = {"_cls": cls, "_object_error": _object_error}
        fields = attrs.fields(cls)
        keywords = any(a.kw_only for a in fields)
        required, optional, args = [], [], []
        for i, a in enumerate(fields):
            type_ = hints[a.name]
            raw = f"o[{a.name!r}]"
            inner = [t for t in typing.get_args(type_) if t is not type(None)]
            if "parse" in a.metadata:
                namespace[f"_p{i}"] = a.metadata["parse"]
                value = f"_p{i}({raw})"
            elif (
                attrs.has(type_)
                or _is_variadic_tuple(type_)
                or _is_mapping(type_)
                or _annotated_rules(type_)
            ):
                namespace[f"_h{i}"] = conv.get_structure_hook(type_)
                namespace[f"_t{i}"] = type_
                value = f"_h{i}({raw}, _t{i})"
            elif len(inner) == 1 and attrs.has(inner[0]) and typing.get_origin(type_) is not tuple:
                namespace[f"_h{i}"] = conv.get_structure_hook(inner[0])
                namespace[f"_t{i}"] = inner[0]
                value = f"(None if {raw} is None else _h{i}({raw}, _t{i}))"
            elif type_ in self._scalars:
                namespace[f"_s{i}"] = self._scalars[type_]
                value = f"_s{i}({raw})"
            elif (
                len(inner) == 1
                and inner[0] in self._scalars
                and type(None) in typing.get_args(type_)
            ):
                namespace[f"_s{i}"] = self._scalars[inner[0]]  # an optional number of a CSV line
                value = f"(None if {raw} is None else _s{i}({raw}))"
            else:
                value = raw
            if a.default is attrs.NOTHING:
                required.append(a.name)
            else:
                optional.append(a.name)
                default = a.default
                if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                    namespace[f"_d{i}"] = default.factory  # type: ignore[attr-defined]
                    fallback = f"_d{i}()"
                else:
                    namespace[f"_d{i}"] = default
                    fallback = f"_d{i}"
                value = f"({value} if {a.name!r} in o else {fallback})"
            args.append(f"{a.name}={value}" if keywords else value)
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


_SCALAR_NAMES = {float: "a number", int: "an integer"}


def _scalar_hook(read: Callable[[Any], Any], detailed: bool) -> Callable[[Any, Any], Any]:
    """A scalar read from a text by ``read`` (``float``, ``int``); with ``detailed``, a text
    it cannot read is reported as ``expected a number, got '5x'``."""

    def fast(value: Any, _: Any) -> Any:
        return read(value)

    def careful(value: Any, type_: Any) -> Any:
        try:
            return read(value)
        except ValueError:
            what = _SCALAR_NAMES.get(type_, type_.__name__)
            raise ValueError(f"expected {what}, got {shown(value)}") from None

    return careful if detailed else fast


def _tuple_hook(conv: cattrs.Converter, type_: Any, detailed: bool) -> Callable[[Any, Any], Any]:
    """A JSON list as a tuple; with ``detailed``, every bad element at its index."""
    elem = type_.__args__[0]
    elem_hook = conv.get_structure_hook(elem)

    def fast(value: Any, _: Any) -> tuple[Any, ...]:
        if type(value) is not list:
            raise _list_error(value)
        return tuple([elem_hook(v, elem) for v in value])

    def careful(value: Any, _: Any) -> tuple[Any, ...]:
        if type(value) is not list:
            raise _list_error(value)
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


def _mapping_hook(conv: cattrs.Converter, type_: Any, detailed: bool) -> Callable[[Any, Any], Any]:
    """A JSON object whose keys are data (a layout's levels, a map of cartridges) as a dict,
    each key checked as its type says (``Annotated[str, rule]``) and kept as written;
    with ``detailed``, every bad key or value at the key's path. An object whose values
    need no reading (``dict[str, Any]``, values checked by a rule alone) is returned as
    it is, not copied: the fast path of a layout's 40,000 slots."""
    key_type, elem = typing.get_args(type_)
    key_hook = None if key_type is str else conv.get_structure_hook(key_type)
    elem_hook = None if elem is Any else conv.get_structure_hook(elem)
    key_ok = _test_of(conv, key_type)
    elem_ok = _test_of(conv, elem)

    def fast(value: Any, _: Any) -> dict[Any, Any]:
        if type(value) is not dict:
            raise _object_error(value)
        if key_ok is not None:
            if not all(map(key_ok, value)):
                raise ValueError("a bad key")
        elif key_hook is not None:
            for k in value:
                key_hook(k, key_type)
        if elem_hook is None:
            return value
        if elem_ok is not None:
            if not all(map(elem_ok, value.values())):
                raise ValueError("a bad value")
            return value
        return {k: elem_hook(v, elem) for k, v in value.items()}

    def careful(value: Any, _: Any) -> dict[Any, Any]:
        if type(value) is not dict:
            raise _object_error(value)
        out, errors = {}, []
        for k, v in value.items():
            try:
                if key_hook is not None:
                    key_hook(k, key_type)
                out[k] = v if elem_hook is None else elem_hook(v, elem)
            except Exception as exc:
                exc.add_note(IterableValidationNote(f"@ key {k!r}", k, elem))  # type: ignore[arg-type]
                errors.append(exc)
        if errors:
            raise IterableValidationError(f"While structuring {type_}", errors, type_)
        return out

    return careful if detailed else fast


def _is_object(value: Any) -> bool:
    return type(value) is dict


def _test_of(conv: cattrs.Converter, type_: Any) -> Callable[[Any], bool] | None:
    """Whether a value of ``type_`` is good, as one call, when reading it changes nothing:
    a JSON object of anything (``dict[str, Any]``), or a value passed as it is and
    checked by one rule (``Annotated[int, rule]``); ``None`` for any other type."""
    if type_ == dict[str, Any]:
        return _is_object
    rules = _annotated_rules(type_)
    if len(rules) == 1 and conv.get_structure_hook(type_.__origin__) is _as_is:
        return rules[0].accepts
    return None


JSON = Structurer()
"""Reads parsed JSON: scalars as they are, for the rules to judge their types."""

TEXT = Structurer({float: float, int: int, str: str.strip})
"""Reads the cells of a CSV line: numbers from their text, strings without surrounding
white space; a rule's message shows a bad value as it was written."""

UNSTRUCTURE = cattrs.Converter()
"""Turns model objects back into JSON-ready dicts (the writers of instance and schedule files)."""


def _problems_of(exc: BaseException, path: str, keys: KeyStyle) -> list[Problem]:
    """Flatten a cattrs error tree into problems with dotted JSON paths.

    An object's unknown keys come first, then its fields in the class's order.
    """
    if isinstance(exc, ForbiddenExtraKeysError):
        return _unknown_keys(exc, path, keys)
    if isinstance(exc, InvalidFields):
        return [Problem(join_path(path, e.field), e.reason) for e in exc.errors]
    if isinstance(exc, ValueProblems):
        return [
            Problem(join_path(path, p.path) if p.path else path, p.message) for p in exc.problems
        ]
    if isinstance(exc, ClassValidationError | IterableValidationError):
        out: list[Problem] = []
        subs = sorted(exc.exceptions, key=lambda e: not isinstance(e, ForbiddenExtraKeysError))
        for sub in subs:
            sub_path = path
            missing = None
            for note in getattr(sub, "__notes__", ()):
                if isinstance(note, AttributeValidationNote):
                    if isinstance(sub, KeyError):
                        missing = note.name
                    else:
                        sub_path = join_path(path, note.name)
                elif isinstance(note, IterableValidationNote):
                    index = note.index
                    sub_path = (
                        f"{path}[{index}]" if type(index) is int else join_path(path, str(index))
                    )
            if missing is None:
                out.extend(_problems_of(sub, sub_path, keys))
            elif keys.missing_at_key:
                out.append(Problem(join_path(path, missing), "missing key"))
            else:
                out.append(Problem(path, f"missing key {shown(missing)}"))
        return out
    if isinstance(exc, TypeError | ValueError) and str(exc):
        return [Problem(path, str(exc))]
    if isinstance(exc, AttributeError | TypeError):
        return [Problem(path, "expected an object")]
    return [Problem(path, f"invalid value ({type(exc).__name__}: {exc})")]


def _unknown_keys(exc: ForbiddenExtraKeysError, path: str, keys: KeyStyle) -> list[Problem]:
    unknown = sorted(exc.extra_fields)
    if not keys.unknown_at_key:
        return [Problem(path, f"unknown key {shown(k)}") for k in unknown]
    if keys.list_known:
        known = ", ".join(sorted(a.name for a in attrs.fields(exc.cl)))
        return [Problem(join_path(path, k), f"unknown key (known: {known})") for k in unknown]
    return [Problem(join_path(path, k), f"unknown key {shown(k)}") for k in unknown]


def unique_problems(problems: list[Problem]) -> list[Problem]:
    """``problems`` in their order, each once."""
    return list(dict.fromkeys(problems))
