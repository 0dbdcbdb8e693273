"""Checks of single values, declared once and shared by the model classes and every reader.

A :class:`Rule` says what makes a value acceptable (a number, > 0, at most
:data:`~toolkit.units.MAX_SIZE_MB`...) as a list of clauses, each a condition
on the value and what to say when it fails. That one declaration serves every
use:

- ``rule(value)`` is ``None`` for a good value and otherwise what is wrong
  with it (the message of the first clause that fails): what the readers of
  instance, schedule, scenario and trace files report at the value's JSON
  path, or CSV line and column (:mod:`toolkit.files.structurer`);
- a :func:`checked` class (the model of :mod:`toolkit.model`, the documents
  of scenario and trace files) checks each field that carries a rule when an
  object is built, and names every bad field of the object at once
  (:class:`InvalidFields`).

Why the conditions are source text rather than functions: a file of 100,000
requests builds half a million objects, and :func:`checked` joins the
conditions of all of a class's fields into one compiled expression, so that a
valid object costs one test and no call per field; only an object that fails
is examined field by field for the messages, by the same conditions compiled
one by one. Plain attrs validators (a call per field) load such a file
measurably slower.

The rules read the limits of :mod:`toolkit.units`, so that a bound holds the
same in every file and on the command line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, dataclass_transform

import attrs
from attrs import field, frozen

from tapesched.toolkit.errors import shown
from tapesched.toolkit.units import (
    MAX_COUNT,
    MAX_RATE_MB_S,
    MAX_RATE_PER_YEAR,
    MAX_SIMULATED_S,
    MAX_SIZE_MB,
    MAX_TIME_S,
    MAX_WEIGHT,
    MIN_RATE_MB_S,
)


class FieldError(ValueError):
    """A field holds a value of the wrong type or outside its domain.

    Parameters
    ----------
    field
        Name of the offending field, so that a loader can prefix the JSON path
        of the object that holds it.
    reason
        What is wrong, in a few words.
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class InvalidFields(ValueError):
    """Every :class:`FieldError` of one object, raised together at construction."""

    def __init__(self, cls_name: str, errors: list[FieldError]) -> None:
        super().__init__(f"invalid {cls_name}: " + "; ".join(str(e) for e in errors))
        self.errors = errors


class _Shown:
    """A value as a message quotes it (``{v!r}``): :func:`toolkit.errors.shown`, at most a few
    dozen characters of it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return shown(self.value)


class Rule:
    """What makes a value acceptable, as clauses checked in order.

    Parameters
    ----------
    *clauses
        ``(condition, message)`` pairs. A condition is a Python expression in
        which ``{v}`` stands for the value and ``{name}`` for the constant
        ``name``; a message is a format string of ``v`` (the value) and the
        constants. A clause is only tested once those before it hold, so a
        type test comes first and the comparisons after it may assume it.
    **constants
        The constants the conditions and messages name.
    """

    __slots__ = ("_tests", "accepts", "clauses", "constants")

    def __init__(self, *clauses: tuple[str, str], **constants: Any) -> None:
        self.clauses = clauses
        self.constants = constants
        own = {key: key for key in constants}
        self._tests: tuple[Callable[[Any], bool], ...] = tuple(
            _function(c.format(v="v", **own), constants) for c, _ in clauses
        )
        self.accepts: Callable[[Any], bool] = _function(self.source("v", own), constants)
        """Whether the rule accepts a value: every condition at once, in one call."""

    def then(self, condition: str, message: str, **constants: Any) -> Rule:
        """This rule and one more clause, tested after the others."""
        clash = [k for k, v in constants.items() if k in self.constants and self.constants[k] != v]
        if clash:
            raise ValueError(f"constants {clash} already mean something else in this rule")
        return Rule(*self.clauses, (condition, message), **self.constants, **constants)

    def source(self, value: str, names: dict[str, str]) -> str:
        """Every condition joined by ``and``, on the variable ``value``, each constant
        spelled by its name in ``names`` (for :func:`checked`'s compiled test)."""
        return " and ".join(f"({c.format(v=value, **names)})" for c, _ in self.clauses)

    def __call__(self, value: Any) -> str | None:
        """What is wrong with ``value``, or ``None``."""
        return None if self.accepts(value) else self._reason(value, _Shown(value))

    def as_written(self, value: Any, text: str) -> str | None:
        """What is wrong with ``value``, read from ``text``, showing ``text`` in the message
        (a CSV cell ``1e300`` as ``'1e300'``, not ``1e+300``)."""
        return None if self.accepts(value) else self._reason(value, _Shown(text))

    def _reason(self, value: Any, quoted: _Shown) -> str | None:
        for test, (_, message) in zip(self._tests, self.clauses, strict=True):
            if not test(value):
                return message.format(v=quoted, **self.constants)
        return None


def _function(condition: str, constants: dict[str, Any]) -> Callable[[Any], bool]:
    """``lambda v: condition``, compiled, the constants named in it bound."""
    code = compile(f"lambda v: {condition}", "<rule>", "eval")
    return eval(code, dict(constants))  # type: ignore[no-any-return]


def require(rule: Rule, value: Any) -> Any:
    """``value`` if ``rule`` accepts it.

    Raises
    ------
    ValueError
        Saying what is wrong, for a reader to report at the value's path.
    """
    reason = rule(value)
    if reason is not None:
        raise ValueError(reason)
    return value


def named(value: Any, table: Mapping[str, Any], what: str) -> Any:
    """The entry of ``table`` named ``value`` (a drive model, a size class...).

    Raises
    ------
    ValueError
        ``unknown <what> '<value>' (known: a, b, ...)``, for a reader to report at the
        value's path.
    """
    if value not in table:
        raise ValueError(f"unknown {what} {shown(value)} (known: {', '.join(table)})")
    return table[value]


def as_float(value: Any) -> Any:
    """An integer as a float, anything else as it is (for the field's rule to judge)."""
    return float(value) if type(value) is int else value


# --- the rules ---------------------------------------------------------------------------

_NUMBER = "(type({v}) is float or type({v}) is int) and {v} == {v}"

number = Rule((_NUMBER, "expected a number, got {v!r}"))
"""Any number but NaN (booleans are not numbers)."""

finite = number.then("-{inf} < {v} < {inf}", "expected a finite number, got {v!r}", inf=math.inf)
"""A number other than an infinity."""

nonnegative = number.then("{v} >= 0", "must be >= 0, got {v!r}")
"""A number >= 0."""

nonnegative_finite = nonnegative.then(
    "{v} < {inf}", "expected a finite number, got {v!r}", inf=math.inf
)
"""A number >= 0 other than an infinity (a length of time measured, not bounded)."""

positive = number.then("{v} > 0", "must be > 0, got {v!r}")
"""A number > 0."""

integer = Rule(("type({v}) is int", "expected an integer, got {v!r}"))
"""An integer (a boolean is not one)."""

natural = integer.then("{v} >= 0", "must be >= 0, got {v!r}")
"""An integer >= 0."""

at_least_one = integer.then("{v} >= 1", "must be >= 1, got {v!r}")
"""An integer >= 1."""

text = Rule(("type({v}) is str", "expected a string, got {v!r}"))
"""A string."""

nonempty_text = Rule(("type({v}) is str and {v} != ''", "expected a non-empty string, got {v!r}"))
"""A non-empty string."""

not_empty = Rule(("len({v}) > 0", "must not be empty"))
"""A non-empty list or object."""


def word(what: str) -> Rule:
    """A non-empty string without white space, such as an id in a trace (``what`` names it)."""
    return Rule(
        ("type({v}) is str and {v}.split() == [{v}]", "{what} is a non-empty word, got {v!r}"),
        what=what,
    )


CARTRIDGE_ID = word("a cartridge id")
"""A cartridge (volume) id: a non-empty word (``CB1172``), as the ECMWF trace and a site's
request log (:mod:`toolkit.files.request_log`) name them."""


def one_of(choices: tuple[str, ...]) -> Rule:
    """One of the given strings."""
    listed = ", ".join(repr(c) for c in choices)
    return Rule(
        ("{v} in {choices}", "must be one of {listed}, got {v!r}"), choices=choices, listed=listed
    )


def optional(rule: Rule) -> Rule:
    """``None``, or a value ``rule`` accepts."""
    return Rule(*((f"{{v}} is None or ({c})", m) for c, m in rule.clauses), **rule.constants)


def _limit(value: float) -> str:
    return f"{value:,}" if type(value) is int else f"{value:g}"


def at_most(rule: Rule, most: float, unit: str = "") -> Rule:
    """``rule``, and at most ``most`` (a limit of :mod:`toolkit.units`), ``unit`` after it."""
    return rule.then(
        "{v} <= {most}", "must be <= {most_shown}{unit}, got {v!r}",
        most=most, most_shown=_limit(most), unit=unit,
    )  # fmt: skip


def within(rule: Rule, least: float, most: float, unit: str = "") -> Rule:
    """``rule``, and within ``[least, most]``."""
    return rule.then(
        "{least} <= {v} <= {most}", "must be within [{least_shown}, {most_shown}]{unit}, got {v!r}",
        least=least, most=most, least_shown=_limit(least), most_shown=_limit(most), unit=unit,
    )  # fmt: skip


bounded_time = at_most(nonnegative, MAX_TIME_S, " s")
"""A time or a length of time: >= 0 and at most :data:`~toolkit.units.MAX_TIME_S`."""

simulated_time = at_most(nonnegative, MAX_SIMULATED_S, " s")
"""A time of a simulated span: >= 0 and at most :data:`~toolkit.units.MAX_SIMULATED_S`."""

bounded_size = at_most(nonnegative, MAX_SIZE_MB, " MB")
"""A size, offset or capacity: >= 0 and at most :data:`~toolkit.units.MAX_SIZE_MB`."""

positive_size = at_most(positive, MAX_SIZE_MB, " MB")
"""A size that cannot be nought (a file, a tape, a block): > 0 and at most
:data:`~toolkit.units.MAX_SIZE_MB`."""

bounded_weight = at_most(positive, MAX_WEIGHT)
"""A request's weight: > 0 and at most :data:`~toolkit.units.MAX_WEIGHT`."""

bounded_rate = within(positive, MIN_RATE_MB_S, MAX_RATE_MB_S, " MB/s")
"""A drive's streaming or locate rate, within :data:`~toolkit.units.MIN_RATE_MB_S` and
:data:`~toolkit.units.MAX_RATE_MB_S`."""

bandwidth = at_most(positive, MAX_RATE_MB_S, " MB/s")
"""A mover's bandwidth: > 0 and at most :data:`~toolkit.units.MAX_RATE_MB_S`."""

bounded_count = at_most(at_least_one, MAX_COUNT)
"""A count of things to build (arms, drives): an integer >= 1 and at most
:data:`~toolkit.units.MAX_COUNT`."""

rate_per_year = at_most(nonnegative, MAX_RATE_PER_YEAR, " a year")
"""A fault rate per year (failures, losses): from 0 to
:data:`~toolkit.units.MAX_RATE_PER_YEAR`."""


# --- classes whose fields are checked ---------------------------------------------------


def check(rule: Rule, **kwargs: Any) -> Any:
    """An attrs field of a :func:`checked` class, checked by ``rule`` (other arguments
    as :func:`attrs.field`'s)."""
    return field(metadata={"check": rule}, **kwargs)


def parsed(parse: Callable[[Any], Any], **kwargs: Any) -> Any:
    """An attrs field read from a document by ``parse``: for a value of several shapes
    (a number or a text with its unit, a name or an object), ``parse`` takes the value
    as the file holds it and returns the field's value, or raises
    :class:`ValueError` saying what is wrong (other arguments as :func:`attrs.field`'s)."""
    return field(metadata={"parse": parse}, **kwargs)


def _raise_invalid(self: Any) -> None:
    """Raise :class:`InvalidFields` with every field of ``self`` that fails its rule."""
    errors = []
    for name, rule in type(self).__field_checks__:
        reason = rule(getattr(self, name))
        if reason is not None:
            errors.append(FieldError(name, reason))
    if errors:
        raise InvalidFields(type(self).__name__, errors)


def _compile_checks(
    checks: tuple[tuple[str, Rule], ...], after: Callable[[Any], None] | None
) -> Callable[[Any], None]:
    """One function testing every field's conditions at once, explaining on failure, then
    running the class's own ``__attrs_post_init__`` (``after``), if it has one."""
    namespace: dict[str, Any] = {"_invalid": _raise_invalid, "_after": after}
    terms, loads = [], []
    for i, (name, rule) in enumerate(checks):
        names = {}
        for key, value in rule.constants.items():
            names[key] = f"_c{i}_{key}"
            namespace[names[key]] = value
        loads.append(f"    v{i} = self.{name}")
        terms.append(f"({rule.source(f'v{i}', names)})")
    source = "\n".join(
        [
            "def __attrs_post_init__(self):",
            *loads,
            f"    if not ({' and '.join(terms) or 'True'}):",
            "        _invalid(self)",
            *(["    _after(self)"] if after is not None else []),
        ]
    )
    exec(compile(source, "<field checks>", "exec"), namespace)
    return namespace["__attrs_post_init__"]  # type: ignore[no-any-return]


@dataclass_transform(frozen_default=True, field_specifiers=(attrs.field, field, check, parsed))
def checked(cls: type | None = None, *, kw_only: bool = False) -> Any:
    """Make ``cls`` a frozen attrs class whose fields are checked together.

    Each field declared with :func:`check` is checked by its rule when an
    object is built; one :class:`InvalidFields` names every bad field, so that
    a file with several bad values is reported in full, not one value per
    attempt. A class's own ``__attrs_post_init__`` (checks across fields) runs
    after its fields are found good. ``kw_only`` as for :func:`attrs.frozen`
    (the fields of a document may then keep the order of the file's keys,
    required and optional mixed).
    """

    def wrap(cls: type) -> Any:
        after = cls.__dict__.get("__attrs_post_init__")
        cls.__attrs_post_init__ = _raise_invalid  # type: ignore[attr-defined]
        out = frozen(cls, kw_only=kw_only)
        out.__field_checks__ = tuple(  # type: ignore[attr-defined]
            (a.name, a.metadata["check"]) for a in attrs.fields(out) if "check" in a.metadata
        )
        out.__attrs_post_init__ = _compile_checks(out.__field_checks__, after)  # type: ignore[attr-defined]
        return out

    return wrap if cls is None else wrap(cls)
