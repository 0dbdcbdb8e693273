"""Things found by name: one registry per plug point, each name declared once, imported when used.

Every place where the project takes something by name (a solver, an online
scheduler, an archival policy, a mount policy or eviction, a recall
orderer, a drive allocator) has one :class:`Registry`. A registry is where
the names of that plug point are declared, checked and listed:

- :meth:`Registry.declare` enters a name with a one-line description and
  the ``module.path:attribute`` of what it names, without importing it, so
  that a backend with a heavy dependency costs nothing, and need not even
  be installed, until it is asked for. Declaring a name twice is refused
  there and then (:class:`DuplicateNameError`).
- :meth:`Registry.load` (or ``registry[name]``) imports the module the
  first time a name is asked for and keeps what it found. An unknown name
  is one error, :class:`UnknownNameError`, whose message lists the names
  one may give.
- :meth:`Registry.names`, :meth:`Registry.describe` and
  :meth:`Registry.known` list the names and what they do without importing
  anything: the command line builds its choices and help texts from them.
- Installed packages extend a registry that has an entry-point group
  (``tapesched.schedulers``, ``tapesched.policies``,
  ``tapesched.mount_policies``, ``tapesched.evictions``,
  ``tapesched.recall_orderers``, ``tapesched.allocators``): each entry point
  ``name = module.path:Attr`` is one more name, imported only when that
  name is asked for. A declared name always wins over an entry point, and
  when two packages declare one name, the first found on ``sys.path`` wins.
- :meth:`Registry.resolve` also takes, where a plug point allows it, what
  the user wrote as ``module.path:Attr`` (imported then, any failure a
  one-line :class:`LoadError`) or the object itself.

A registry is a read-only :class:`~collections.abc.Mapping` of its declared
entries (in declaration order), so ``name in registry``, ``sorted(registry)``
and ``registry.items()`` read as they do on a dictionary; entry points are
reached through :meth:`~Registry.load`, :meth:`~Registry.entry` and
:meth:`~Registry.resolve`.

This module is part of the toolkit's core, below the packages that keep
registries (:mod:`solvers.registry`, :mod:`solvers.online.mount_policy`,
:mod:`simulator.storage.policies.policy_registry`, :mod:`simulator.sharing.allocator`), and
imports none of them.

Example
-------
::

    SORTERS: Registry[Callable[[list[int]], list[int]]] = Registry("sorter", group="my.sorters")
    SORTERS.declare("plain", "builtins:sorted", "Python's own sort")
    SORTERS.load("plain")([3, 1, 2])  # builtins imported only now
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import metadata
from types import MappingProxyType
from typing import Any, TypeVar

from attrs import define, field, frozen

from tapesched.toolkit.errors import shown
from tapesched.toolkit.runtime.plugin_calls import PluginError, call_plugin, exception_line

T = TypeVar("T")


class LoadError(ValueError):
    """A name or ``module.path:Attr`` that gives nothing to use; the message is one line.

    On the command line it is bad input: printed after the option's name,
    exit code 2.
    """


class UnknownNameError(LoadError, KeyError):
    """A name that no entry of a registry has; the message lists the names one may give.

    A ``KeyError`` (a name not found, as a mapping reports it) and a
    ``ValueError`` (a bad value given), so that either ``except`` catches it.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class DuplicateNameError(ValueError):
    """A second entry under a name that a registry has already, refused when it is entered."""


def qualified_name(obj: object) -> str:
    """``module:qualified.name`` of a class or function, or of an object's class."""
    defined = obj if inspect.isclass(obj) or inspect.isroutine(obj) else type(obj)
    module = getattr(defined, "__module__", None) or "?"
    return f"{module}:{getattr(defined, '__qualname__', type(defined).__name__)}"


def taken_params(factory: Callable[..., object], params: Mapping[str, T]) -> dict[str, T]:
    """Those of ``params`` that ``factory`` takes by name (none when its signature is unknown).

    A plug point that offers its plug-ins some parameters (an archival
    policy's block size, an eviction's future requests) gives each only those
    it declares.
    """
    try:
        taken = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return {}
    return {key: value for key, value in params.items() if key in taken}


def unknown_message(
    kind: str, name: str, known: Sequence[str], *, hint: str = "", quoted: bool = False
) -> str:
    """The one line saying that ``name`` is no ``kind`` and which names are.

    ``unknown solver 'x'; known: a, b`` (names in quotes with ``quoted``),
    then ``hint`` as it is (``"; or give module.path:Attr"``).
    """
    listing = ", ".join(repr(n) if quoted else n for n in known) or "none"
    return f"unknown {kind} {shown(name)}; known: {listing}{hint}"


def _split(target: str) -> tuple[str, str]:
    """``(module, attribute)`` of ``module.path:Attr`` (``Attr`` may be dotted)."""
    module_name, _, attribute = target.partition(":")
    parts = [*module_name.split("."), *attribute.split(".")]
    if not all(part.isidentifier() for part in parts):
        raise ValueError(f"{target}: not of the form module.path:Attr")
    return module_name, attribute


def _walk(obj: object, attribute: str) -> object:
    """``obj.a.b`` for ``attribute`` ``a.b``; ``AttributeError`` when a step is missing."""
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


def import_target(target: str) -> object:
    """What ``module.path:Attr`` names, importing its module.

    Failures are raised as they come (``ImportError``, ``AttributeError``;
    ``ValueError`` for a malformed target): a declared target that cannot be
    imported is an installation's fault, such as a missing optional
    backend, and its own exception says which.
    """
    module_name, attribute = _split(target)
    return _walk(importlib.import_module(module_name), attribute)


def named_in_file(spec: str) -> str:
    """``spec``, a ``module.path:Attr`` that a data file names, checked without importing it.

    A file is data: reading it imports nothing, and what it names by
    ``module.path:Attr`` is imported only when a run the user allowed
    starts (``--allow-plugins``). A file may never name the standard
    library (:data:`sys.stdlib_module_names`): ``os:abort``, ``code:interact``
    or ``builtins:exit`` are no plug-ins, and naming them is refused when the
    file is read.

    Raises
    ------
    ValueError
        With a one-line message: ``spec`` is malformed, or of the standard
        library.
    """
    module_name, _ = _split(spec)
    top = module_name.partition(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        raise ValueError(
            f"{spec}: {top!r} is a module of Python's standard library, not a plug-in; "
            "a file may name a plug-in's module.path:Attr, never the standard library"
        )
    return spec


def load_spec(spec: str, failure: type[LoadError] = LoadError) -> object:
    """What a user's ``module.path:Attr`` names, every failure one line of ``failure``.

    Raises
    ------
    LoadError
        (of the class ``failure``) when ``spec`` is malformed, its module
        cannot be imported (whatever the module raises, ``sys.exit`` included:
        :func:`~toolkit.runtime.plugin_calls.call_plugin`), or it lacks the attribute.
    """
    try:
        module_name, attribute = _split(spec)
    except ValueError as exc:
        raise failure(str(exc)) from None
    try:
        module = call_plugin(spec, "import", importlib.import_module, module_name)
    except PluginError as exc:
        why = exception_line(exc.error)
        raise failure(f"{spec}: cannot import module {module_name!r}: {why}") from exc
    try:
        return _walk(module, attribute)
    except AttributeError:
        raise failure(f"{spec}: module {module_name!r} has no attribute {attribute!r}") from None


def _check_name(name: str) -> None:
    """Refuse a name that cannot be given back: empty, with white space, ``:`` or ``,``."""
    if not name or name != name.strip() or any(c.isspace() or c in ":," for c in name):
        raise ValueError(f"{name!r}: a name is one word without ':' or ','")


def _read_only(mapping: Mapping[str, object]) -> Mapping[str, object]:
    """A read-only copy of ``mapping``."""
    return MappingProxyType(dict(mapping))


@frozen
class PluginEntry:
    """One entry point of a registry's group, as an installed package declares it.

    Attributes
    ----------
    name
        The entry point's name, the name users give.
    value
        Where it is: ``module.path:Attr``.
    distribution
        The declaring package and its version (``None`` when unknown).
    hidden
        ``None`` when the name reaches this entry point, else why it does not
        (a declared entry or an earlier entry point has the name). Not
        compared: two listings of the same declarations are equal.
    """

    name: str
    value: str
    distribution: str | None
    hidden: str | None = field(default=None, eq=False)

    @property
    def origin(self) -> str:
        """``entry point module:Attr of package version``."""
        where = f"entry point {self.value}"
        return where if self.distribution is None else f"{where} of {self.distribution}"


@frozen
class Entry:
    """One name of a registry: what it does and where it is.

    Attributes
    ----------
    name
        The name users give.
    description
        One line for listings.
    target
        ``module.path:Attr`` of what the name gives (for an object entered
        at hand, :meth:`Registry.add`, where it was defined).
    metadata
        What the declaration said besides (``online=True`` for a solver
        that is an online heuristic); read-only.
    plugin
        The entry point it comes from, ``None`` for a declared entry.
    """

    name: str
    description: str
    target: str
    metadata: Mapping[str, object] = field(factory=dict, converter=_read_only, hash=False)
    plugin: PluginEntry | None = None

    @property
    def origin(self) -> str:
        """``registry`` for a declared entry, else the entry point's ``origin``."""
        return "registry" if self.plugin is None else self.plugin.origin


@frozen
class Resolved:
    """What :meth:`Registry.resolve` found: the name to show, where it came from, the object.

    ``origin`` is ``registry``, an entry point's (``entry point module:Attr
    of package 1.0``), ``module`` (a ``module.path:Attr`` given) or
    ``object`` (the object itself given).
    """

    name: str
    origin: str
    value: object


_NOT_LOADED = object()


@define
class _Slot:
    """A declared entry, how it came in, and what it gave once loaded."""

    entry: Entry
    how: str
    value: object = _NOT_LOADED


@define(eq=False, repr=False)
class Registry(Mapping[str, T]):
    """The names of one plug point: declared once, checked, listed, imported when first used.

    Parameters
    ----------
    kind
        What an entry is, in messages: ``solver``, ``scheduler``, ``policy``.
    group
        Entry-point group through which installed packages add names
        (``tapesched.schedulers``); ``None`` for a registry that takes none.
    reserved
        Another registry whose names no entry point of this one may take
        (a plug-in scheduler is a solver too, so it may not take a solver's
        name).
    unknown
        The :class:`UnknownNameError` class raised for an unknown name.
    failure
        The :class:`LoadError` class raised when an entry point or a
        ``module.path:Attr`` cannot be loaded.
    hint
        Said after the known names when a name is unknown
        (``"; or give module.path:Attr"``).
    quoted
        Whether that listing puts the names in quotes.
    """

    kind: str
    group: str | None = field(default=None, kw_only=True)
    reserved: Registry[Any] | None = field(default=None, kw_only=True)
    _unknown: type[UnknownNameError] = field(
        default=UnknownNameError, kw_only=True, alias="unknown"
    )
    _failure: type[LoadError] = field(default=LoadError, kw_only=True, alias="failure")
    _hint: str = field(default="", kw_only=True, alias="hint")
    _quoted: bool = field(default=False, kw_only=True, alias="quoted")
    _slots: dict[str, _Slot] = field(factory=dict, init=False)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self._slots)})"

    # Entering names.

    def declare(self, name: str, target: str, description: str, **metadata: object) -> None:
        """Enter ``name`` as what ``target`` (``module.path:Attr``) names, not importing it.

        Parameters
        ----------
        name
            The name users give: one word, without ``:`` (which marks a
            ``module.path:Attr``) or ``,`` (which separates names in lists).
        target
            Where it is; its module is imported when the name is first used.
        description
            One line for listings.
        **metadata
            Anything else the registry's users read (:attr:`Entry.metadata`).

        Raises
        ------
        DuplicateNameError
            When the registry has the name already.
        ValueError
            For a malformed name or target.
        """
        _check_name(name)
        _split(target)
        self._enter(_Slot(Entry(name, description, target, metadata), "declared"), "declared")

    def add(self, name: str, value: T, description: str, **metadata: object) -> T:
        """Enter ``name`` as ``value``, an object at hand (loaded already); returns it.

        Raises
        ------
        DuplicateNameError
            When the registry has the name already.
        """
        _check_name(name)
        entry = Entry(name, description, qualified_name(value), metadata)
        self._enter(_Slot(entry, "registered", value), "registered")
        return value

    def _enter(self, slot: _Slot, verb: str) -> None:
        name = slot.entry.name
        known = self._slots.get(name)
        if known is not None:
            where = known.entry.target.replace(":", ".")
            raise DuplicateNameError(
                f"{self.kind} {name!r} is already {verb}; "
                f"the registry has it {known.how} as {where}"
            )
        self._slots[name] = slot

    # Listing, without importing.

    def names(self) -> tuple[str, ...]:
        """The declared names, in declaration order."""
        return tuple(self._slots)

    def plugins(self) -> tuple[PluginEntry, ...]:
        """Every entry point of the group, by name (none imported); a name declared twice
        is listed twice, the first listed being the one used, and each says whether it is
        ``hidden`` and why."""
        return tuple(sorted((plugin for plugin, _ in self._scan()), key=lambda p: p.name))

    def plugin_names(self) -> tuple[str, ...]:
        """Names that reach an entry point (not hidden), sorted."""
        return tuple(sorted(self._usable()))

    def known(self) -> tuple[str, ...]:
        """Every name one may give: the declared ones, then those of entry points."""
        return (*self._slots, *self.plugin_names())

    def entry(self, name: str) -> Entry:
        """The entry of ``name``, declared or an entry point's, without importing it.

        Raises
        ------
        UnknownNameError
            (of the registry's class) listing :meth:`known`.
        """
        slot = self._slots.get(name)
        if slot is not None:
            return slot.entry
        found = self._usable().get(name)
        if found is None:
            raise self.unknown(name)
        plugin = found[0]
        where = f"plug-in {self.kind} {plugin.value}"
        if plugin.distribution is not None:
            where += f" from {plugin.distribution}"
        return Entry(name, where, plugin.value, plugin=plugin)

    def describe(self, name: str) -> str:
        """The one-line description of ``name`` (without importing it)."""
        return self.entry(name).description

    def unknown(self, name: str, known: Sequence[str] | None = None) -> UnknownNameError:
        """The error for an unknown ``name``, listing ``known`` (default: :meth:`known`)."""
        listing = self.known() if known is None else known
        return self._unknown(
            unknown_message(self.kind, name, listing, hint=self._hint, quoted=self._quoted)
        )

    # Loading.

    def load(self, name: str) -> T:
        """What ``name`` gives, declared or an entry point's, importing its module if needed.

        Raises
        ------
        UnknownNameError
            (of the registry's class) for an unknown name, listing :meth:`known`.
        LoadError
            (of the registry's ``failure`` class) for an entry point that
            cannot be loaded. A declared target that cannot be imported
            raises what the import raises (:func:`import_target`).
        """
        slot = self._slots.get(name)
        if slot is not None:
            return self._loaded(slot)
        found = self._usable().get(name)
        if found is None:
            raise self.unknown(name)
        value: T = self._load_plugin(*found)
        return value

    def resolve(self, spec: object) -> Resolved:
        """What a user's spec gives: a name (:meth:`load`), ``module.path:Attr``, or an object.

        A string with ``:`` is imported (:func:`load_spec`, failures one
        line of the ``failure`` class); any other string is a name; anything
        else is the object itself, named by :func:`qualified_name`. What a
        ``module.path:Attr`` or an object gives is not checked here: the plug
        point checks it.
        """
        if not isinstance(spec, str):
            return Resolved(qualified_name(spec), "object", spec)
        if ":" in spec:
            return Resolved(spec, "module", load_spec(spec, self._failure))
        slot = self._slots.get(spec)
        if slot is not None:
            return Resolved(spec, "registry", self._loaded(slot))
        found = self._usable().get(spec)
        if found is None:
            raise self.unknown(spec)
        return Resolved(spec, found[0].origin, self._load_plugin(*found))

    def _loaded(self, slot: _Slot) -> Any:
        if slot.value is _NOT_LOADED:
            slot.value = import_target(slot.entry.target)
        return slot.value

    def _load_plugin(self, plugin: PluginEntry, point: metadata.EntryPoint) -> Any:
        try:
            return call_plugin(plugin.name, "import", point.load)
        except PluginError as exc:
            raise self._failure(
                f"{plugin.name}: cannot load the {plugin.origin}: {exception_line(exc.error)}"
            ) from exc

    # Entry points.

    def _scan(self) -> list[tuple[PluginEntry, metadata.EntryPoint]]:
        """The group's entry points in ``sys.path`` order, each told whether it is hidden."""
        if self.group is None:
            return []
        scanned = []
        seen: set[str] = set()
        for point in metadata.entry_points(group=self.group):
            if self.reserved is not None and point.name in self.reserved:
                hidden: str | None = f"the registry has a {self.reserved.kind} of that name"
            elif point.name in self._slots:
                hidden = f"the registry has a {self.kind} of that name"
            elif point.name in seen:
                hidden = "an earlier plug-in has that name"
            else:
                hidden = None
            seen.add(point.name)
            scanned.append(
                (PluginEntry(point.name, point.value, _distribution(point), hidden), point)
            )
        return scanned

    def _usable(self) -> dict[str, tuple[PluginEntry, metadata.EntryPoint]]:
        """The entry points that names reach, by name."""
        return {p.name: (p, point) for p, point in self._scan() if p.hidden is None}

    # The mapping of declared entries.

    def __getitem__(self, name: str) -> T:
        """What the declared ``name`` gives (:meth:`load` also finds entry points)."""
        slot = self._slots.get(name)
        if slot is None:
            raise self.unknown(name, self.names())
        value: T = self._loaded(slot)
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._slots

    def __iter__(self) -> Iterator[str]:
        return iter(self._slots)

    def __len__(self) -> int:
        return len(self._slots)


def _distribution(point: metadata.EntryPoint) -> str | None:
    """``package version`` of the distribution declaring ``point``."""
    dist = point.dist
    if dist is None:
        return None
    return f"{dist.metadata['Name']} {dist.version}"
