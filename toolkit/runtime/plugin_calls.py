"""Calls into plug-ins: what a plug-in that misbehaves becomes, in one line naming it.

A plug-in (a scheduler, a mount policy, ... given as ``module.path:Attr`` or
by an installed package's entry point) is code the project does not own: it
may raise, exit, return what the protocol does not allow, or never decide.
Whatever it does, a run that did not finish must not end as if it had, nor
in a traceback. Every place that loads or runs a plug-in goes through this
module:

- :func:`call_plugin` runs one call (the import of a plug-in's module, the
  factory making one): a failure of the plug-in's own is a
  :class:`PluginError` naming the plug-in, the call and the exception.
- :func:`guarded` wraps a whole run in which plug-ins are called many
  times, at the cost of one ``try`` (nothing per call): when the run ends
  in an exception, the frames of its traceback say whether a plug-in's code
  raised it, and in which of its methods (the outermost of the plug-in's
  frames: the call the project made); a :class:`PluginFault`, raised by the
  project's code where a plug-in broke the protocol (a decision of a wrong
  type, requests left waiting for ever), is the plug-in's too.

What a plug-in raises is its fault when it is an ``Exception`` or a
``SystemExit`` (``sys.exit`` in a plug-in ends no command); ``KeyboardInterrupt``
and the other ``BaseException`` that signals raise pass through, as they are
the user's.

The command line prints a :class:`PluginError` as one line and exits with
code 2 (:mod:`tapesched.cli.group`); ``tapesched --debug`` prints its traceback
too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import TypeVar

from attrs import frozen

T = TypeVar("T")

PROJECT_PACKAGES = frozenset({"tapesched"})
"""The project's own packages: their code is never a plug-in's."""

FAULTS: tuple[type[BaseException], ...] = (Exception, SystemExit)
"""What a plug-in raises that is its own fault (not ``KeyboardInterrupt`` nor a signal's)."""


def exception_line(exc: BaseException) -> str:
    """``Type: message`` of an exception, its whitespace (newlines included) collapsed."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


class PluginFault(Exception):
    """A plug-in broke the protocol, found by the project's code that called it.

    Raised by that code (a dispatcher given a decision of a wrong type, a run
    whose scheduler leaves requests waiting with nothing left to wait for);
    :func:`guarded` makes it the error of the run's plug-in. Subclasses add
    the built-in exception it used to be (``TypeError``, ``RuntimeError``),
    so that callers without plug-ins see what they saw.

    Parameters
    ----------
    call
        The plug-in's method that broke it (``decide``).
    message
        What it did, to be read after the call: ``returned 'x', not a Start``.
    """

    def __init__(self, call: str, message: str) -> None:
        super().__init__(message)
        self.call = call

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as its class, call and message (a run in a worker process raises it)."""
        return _fault, (type(self), self.call, str(self))


def _fault(kind: type[PluginFault], call: str, message: str) -> PluginFault:
    """A :class:`PluginFault` of class ``kind`` as it was pickled, whatever its ``__init__``."""
    fault = kind.__new__(kind)
    Exception.__init__(fault, message)
    fault.call = call
    return fault


class PluginError(Exception):
    """A plug-in failed: which one, in which call, and what it raised.

    Attributes
    ----------
    plugin
        The plug-in's name as the user gave it (``my_module:MySched``).
    call
        The call that failed: ``import``, ``make``, a method's qualified
        name (``MySched.decide``).
    error
        What it raised (a :class:`PluginFault` for a broken protocol).
    """

    def __init__(self, plugin: str, call: str, error: BaseException) -> None:
        self.plugin = plugin
        self.call = call
        self.error = error
        if isinstance(error, PluginFault):
            what = " ".join(str(error).split())
            self.line = f"plug-in {plugin}: {call} {what}"
        else:
            raised = error.text if isinstance(error, _Raised) else exception_line(error)
            self.line = f"plug-in {plugin}: {call} raised {raised}"
        super().__init__(self.line)

    def __str__(self) -> str:
        return self.line

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as its plug-in, call and the exception's class and message, which is what
        it says (the exception itself may not pickle): a run in a worker process raises it."""
        error = self.error
        kept = error if isinstance(error, PluginFault | _Raised) else _Raised(error)
        return PluginError, (self.plugin, self.call, kept)


class _Raised(Exception):
    """What a plug-in raised, in another process: its one line (:func:`exception_line`) only."""

    def __init__(self, error: BaseException | str) -> None:
        self.text = error if isinstance(error, str) else exception_line(error)
        super().__init__(self.text)

    def __reduce__(self) -> tuple[object, ...]:
        return _Raised, (self.text,)


@frozen
class Plugin:
    """A plug-in of a run: the name it was given by, and the module its code is in.

    ``decides`` is whether it takes part in the decisions (a scheduler, a
    mount policy): a :class:`PluginFault` of the protocol is the first such
    plug-in's, never that of a plug-in which only serves (an archival policy).
    """

    name: str
    module: str
    decides: bool = True

    @classmethod
    def of(cls, name: str, module: str | None, *, decides: bool = True) -> Plugin | None:
        """The plug-in ``name`` whose code is in ``module``; ``None`` for the project's own."""
        if not module or module.partition(".")[0] in PROJECT_PACKAGES:
            return None
        return cls(name, module, decides)

    def owns(self, module: object) -> bool:
        """Whether code of ``module`` (a module's ``__name__``) is this plug-in's."""
        return isinstance(module, str) and (
            module == self.module or module.startswith(self.module + ".")
        )


def call_plugin(name: str, call: str, function: Callable[..., T], *args: object) -> T:
    """``function(*args)``, a call of the plug-in ``name``; its failure a :class:`PluginError`.

    Raises
    ------
    PluginError
        When the call raises an ``Exception`` or ``SystemExit``.
    """
    try:
        return function(*args)
    except FAULTS as exc:
        raise PluginError(name, call, exc) from exc


def _culprit(
    traceback: TracebackType | None, plugins: Sequence[Plugin]
) -> tuple[Plugin, str] | None:
    """The plug-in whose code the traceback passes through first, and its function there."""
    while traceback is not None:
        frame = traceback.tb_frame
        module = frame.f_globals.get("__name__")
        for plugin in plugins:
            if plugin.owns(module):
                return plugin, frame.f_code.co_qualname
        traceback = traceback.tb_next
    return None


@contextmanager
def guarded(plugins: Sequence[Plugin]) -> Iterator[None]:
    """A run calling ``plugins``: what one of them raised, or broke, is a :class:`PluginError`.

    An exception whose traceback passes through no plug-in's code is the
    project's and passes as it is; with no plug-ins, nothing is caught.
    """
    if not plugins:
        yield
        return
    try:
        yield
    except PluginError:
        raise
    except PluginFault as fault:
        deciders = [p for p in plugins if p.decides]
        if not deciders:
            raise
        raise PluginError(deciders[0].name, fault.call, fault) from fault
    except FAULTS as exc:
        found = _culprit(exc.__traceback__, plugins)
        if found is None:
            raise
        plugin, call = found
        raise PluginError(plugin.name, call, exc) from exc
