"""The group of ``tapesched`` commands, and how a command ends when it cannot go on.

Every way out that is not the command's own result is one line on standard
error and an exit code, never a traceback nor click's usage block:

- a bad option value, a missing or unknown option (click's usage errors):
  ``--time-limit: 'nan' is not a duration ...``, exit 2, the one-line form
  of every other bad input (:mod:`tapesched.cli.common`);
- Ctrl-C and SIGTERM: ``tapesched: interrupted`` (or ``terminated``), exit
  130 (or 143), with nothing half-written left (:mod:`tapesched.cli.interrupts`);
- a plug-in that fails, however it fails (raises, exits, breaks the protocol,
  leaves requests waiting for ever): ``plug-in my_module:Mine: Mine.decide
  raised RuntimeError: ...``, exit 2, nothing written
  (:class:`~toolkit.runtime.plugin_calls.PluginError`); ``tapesched --debug`` prints
  the plug-in's traceback before that line.
"""

from __future__ import annotations

import traceback
from typing import Any

import click

from tapesched.cli.common import fail
from tapesched.cli.interrupts import ending_on_signals
from tapesched.toolkit.runtime.plugin_calls import PluginError


def usage_line(error: click.UsageError) -> str:
    """One line for a usage error: the option at fault, then what is wrong with it."""
    if isinstance(error, click.BadParameter) and error.param is not None:
        hint = error.param.get_error_hint(error.ctx) if error.ctx else error.param.name
        hint = hint.replace("'", "")
        if isinstance(error, click.MissingParameter):
            return f"{hint}: required, and missing"
        return f"{hint}: {error.message}"
    command = error.ctx.command_path if error.ctx is not None else "tapesched"
    return f"{command}: {error.format_message()} (see {command} --help)"


class CommandGroup(click.Group):
    """A click group whose commands end in one line: bad usage and a failed plug-in exit 2,
    Ctrl-C 130, SIGTERM 143."""

    def invoke(self, ctx: click.Context) -> Any:
        with ending_on_signals():
            try:
                return super().invoke(ctx)
            except click.UsageError as error:
                fail([usage_line(error)])
            except PluginError as error:
                if ctx.params.get("debug"):
                    traceback.print_exception(error)
                fail([str(error)])
