"""Output files and directories written the way users of Unix tools expect.

Every file and directory the toolkit writes goes through this module, so that
a run that fails, or is interrupted, never leaves a partial output behind and a
mistyped target never destroys what is there.

Files
    A file is written to a temporary file in the target's own directory and
    renamed over the target (``os.replace``, atomic on POSIX): readers see
    the old file or the new one, never half of one. A new file gets the mode
    ``0666 & ~umask`` (0644 under the usual umask 022), as ``>`` in a shell
    gives it: the temporary file is created with mode 0666 and the kernel
    applies the umask, so the umask is never read nor changed (reading it
    with ``os.umask`` means setting it, a race with other threads). A file
    that is replaced keeps its permission bits, as with ``>`` and ``cp``
    (its owner, ACLs and hard links are not carried over: it is a new file).
    A file that the user may not write (``chmod a-w``) is refused, as ``>``
    refuses it, and so is one that no one may write, to the superuser too
    (whom the system would let replace it). Missing parent directories are
    created, and removed again when the write fails.

Refusals
    A directory, a character or block device (``/dev/null`` included), a
    FIFO, a socket, or a symbolic link to any of these is refused as a file
    target, with one line naming the option, the path and what it is
    (``--out: out: is a directory``), raised as
    :class:`~toolkit.errors.InputError`. A symbolic link to a regular file
    is followed, as ``>`` follows it: the link is kept and the file it
    points to is replaced (a dangling link makes the file it names).

Standard output
    ``-`` (:data:`STDOUT`) names standard output for a file target
    (:func:`file_output`); the document is written there in one piece.

Directories
    A directory of files (:func:`directory_output`) is built in a temporary
    sibling directory and renamed into place when it is complete. An
    existing directory at the target is replaced as a whole only if it
    holds nothing but files the command writes (a directory written by an
    earlier run of the same command, or an empty one); anything else
    (``--out ~``) is refused, so a user's directory is never wiped. The
    old directory is moved aside, the new one moved in and the old one
    removed, with SIGINT and SIGTERM held for those few system calls so
    that an interrupt cannot leave the target missing. A symbolic link to
    a directory is followed (the link is kept, the directory it points to
    is replaced); a regular file, a device, a FIFO, a socket or a link to
    any of these, or a dangling link, is refused.

Kept directories
    A directory that files are kept in from run to run (``experiment``'s
    cache of replications, :func:`kept_directory`) is an existing directory
    the user may write in, or one that can be made; a regular file, a device
    (``/dev/null``), a FIFO, a socket, a link to any of these or a dangling
    link is refused before any work starts.

Temporary files and directories are removed on any exception,
``KeyboardInterrupt`` and ``SystemExit`` included. Targets are checked when
the output is named (:func:`file_output`, :func:`directory_output`, before
any long computation) and again just before the rename, since they may have
changed meanwhile.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import sys
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from attrs import frozen

from tapesched.toolkit.errors import InputError, Problem
from tapesched.toolkit.runtime.signals import signals_blocked

STDOUT = "-"
"""The target naming standard output."""

_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def _refusal(target: str, reason: str, option: str | None) -> InputError:
    """``OPTION: TARGET: reason``, or ``TARGET: reason`` without an option."""
    if option is None:
        return InputError(target, [Problem("", reason)])
    return InputError(option, [Problem(target, reason)])


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def _is(target: str, mode: int) -> str:
    """What a target is, saying so when it is a symbolic link to that."""
    what = _kind(mode)
    if os.path.islink(target):
        return f"is a symbolic link to {what} ({os.path.realpath(target)})"
    return f"is {what}"


def _stat(target: str, real: Path, option: str | None) -> os.stat_result | None:
    """The status of ``real`` (links followed), or None when nothing is there."""
    try:
        return real.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _refusal(target, exc.strerror or str(exc), option) from None


def _check_room(target: str, directory: Path, option: str | None) -> None:
    """Files can be made in ``directory`` or, when it is missing, in its nearest ancestor."""
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    if not directory.is_dir():
        raise _refusal(target, f"{directory} is not a directory", option)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise _refusal(target, f"cannot write in {directory}: permission denied", option)


def _writable(real: Path, status: os.stat_result) -> bool:
    """Whether the user may write the file: its access, and a write bit for someone, so that a
    file made read-only (``chmod a-w``) is kept even from the superuser, whom ``access``
    lets write anything."""
    return os.access(real, os.W_OK) and bool(status.st_mode & 0o222)


def _checked_file(target: str, option: str | None) -> Path:
    """The real path a file target writes to; refuses what a file must not replace."""
    if target.endswith(os.sep):
        raise _refusal(target, "names a directory (it ends with a slash)", option)
    real = Path(os.path.realpath(target))
    status = _stat(target, real, option)
    if status is not None:
        if not stat.S_ISREG(status.st_mode):
            raise _refusal(target, _is(target, status.st_mode), option)
        if not _writable(real, status):
            raise _refusal(target, "cannot write: permission denied", option)
    _check_room(target, real.parent, option)
    return real


def _written(entry: os.DirEntry[str], names: Collection[str]) -> bool:
    """Whether ``entry`` is what a command writing ``names`` writes.

    A file named in ``names``, or a directory named there with a trailing
    ``/`` that holds nothing but files (a command's directory of files, such
    as ``windows/``).
    """
    if entry.is_file(follow_symlinks=False):
        return entry.name in names
    if entry.name + "/" not in names or not entry.is_dir(follow_symlinks=False):
        return False
    return all(inner.is_file(follow_symlinks=False) for inner in os.scandir(entry.path))


def _checked_directory(target: str, names: Collection[str], option: str | None) -> Path:
    """The real path a directory target becomes; refuses what it must not replace."""
    real = Path(os.path.realpath(target))
    status = _stat(target, real, option)
    if status is None:
        if os.path.islink(target):
            raise _refusal(target, f"is a dangling symbolic link (to {real})", option)
    elif not stat.S_ISDIR(status.st_mode):
        raise _refusal(target, _is(target, status.st_mode), option)
    else:
        mount = os.path.ismount(real)
        if mount or Path.cwd().is_relative_to(real):
            where = "a mount point" if mount else "the current directory or above"
            raise _refusal(target, f"is {where}; give a directory to create", option)
        for entry in sorted(os.scandir(real), key=lambda e: e.name):
            if not _written(entry, names):
                raise _refusal(
                    target,
                    f"holds {entry.name!r}, which this command does not write; "
                    "give a new directory, an empty one or one it wrote before",
                    option,
                )
    _check_room(target, real.parent, option)
    return real


def _temporary_name(directory: Path, name: str, tag: str) -> Path:
    """A hidden name next to ``name`` in ``directory``, not in use when drawn."""
    while True:
        candidate = directory / f".{name[:120]}.{secrets.token_hex(4)}.{tag}"
        if not os.path.lexists(candidate):
            return candidate


def _make_parents(directory: Path) -> list[Path]:
    """Create ``directory`` and its missing ancestors; return those made, outermost first."""
    missing = []
    while not directory.exists() and directory != directory.parent:
        missing.append(directory)
        directory = directory.parent
    made = []
    try:
        for path in reversed(missing):
            try:
                path.mkdir()
            except FileExistsError:
                continue
            made.append(path)
    except BaseException:
        _remove_made(made)
        raise
    return made


def _remove_made(made: list[Path]) -> None:
    """Remove the directories :func:`_make_parents` made, if they are still empty."""
    for path in reversed(made):
        try:
            path.rmdir()
        except OSError:
            return


def _new_file(directory: Path, name: str) -> tuple[int, Path]:
    """Create a temporary file with mode 0666, which the kernel masks by the umask."""
    while True:
        path = _temporary_name(directory, name, "tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        try:
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue


def _replace_file(real: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to a temporary file beside ``real`` and rename it over
    ``real``."""
    try:
        kept_mode: int | None = stat.S_IMODE(real.stat().st_mode) & 0o777
    except FileNotFoundError:
        kept_mode = None
    tmp: Path | None = None
    try:
        fd, tmp = _new_file(real.parent, real.name)
        with os.fdopen(fd, "wb") as handle:
            if kept_mode is not None:
                os.fchmod(handle.fileno(), kept_mode)
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, real)
    except BaseException:
        if tmp is not None:
            with signals_blocked():
                tmp.unlink(missing_ok=True)
        raise


def write_file(path: str | os.PathLike[str], text: str | bytes, option: str | None = None) -> None:
    """Write ``text`` (UTF-8; bytes as they are) to the file ``path``, replacing it atomically.

    Parameters
    ----------
    path
        The file to write; a symbolic link to a regular file writes that file.
    text
        The whole content: text, or the bytes of a binary file (a PNG).
    option
        The command-line option that named ``path``, for the error message.

    Raises
    ------
    InputError
        One problem, when ``path`` is not a file that may be replaced (a
        directory, a device, a FIFO, a socket, a link to one, a read-only
        file) or cannot be written (``cannot write: No space left on
        device``); nothing is left behind then.
    """
    target = os.fspath(path)
    real = _checked_file(target, option)
    made: list[Path] = []
    try:
        made = _make_parents(real.parent)
        _replace_file(real, text)
    except BaseException as exc:
        _remove_made(made)
        if isinstance(exc, OSError):
            reason = f"cannot write: {exc.strerror or exc}"
            raise _refusal(target, reason, option) from None
        raise


@frozen
class FileOutput:
    """A checked file target: a file replaced atomically, or standard output.

    Made by :func:`file_output`. ``stream`` is standard output as it was
    when the target was checked (None for a file), so that a command may
    send its other lines elsewhere meanwhile.
    """

    given: str
    option: str | None = None
    stream: TextIO | None = None
    discard: bool = False
    """Whether the target is the null device: the document is made, and dropped."""

    @property
    def to_stdout(self) -> bool:
        """Whether the document goes to standard output."""
        return self.stream is not None

    def write(self, text: str) -> None:
        """Write the whole document: to standard output, or through :func:`write_file`, or
        nowhere for the null device."""
        if self.discard:
            return
        if self.stream is None:
            write_file(self.given, text, self.option)
        else:
            self.stream.write(text)
            self.stream.flush()


def file_output(target: str, option: str | None = "--out") -> FileOutput:
    """Check a file target now, before the document exists; ``-`` is standard output, and
    the null device (``/dev/null``, or a link to it) takes the document and keeps nothing.

    Raises
    ------
    InputError
        One problem, when ``target`` is refused (see :func:`write_file`).
    """
    if target == STDOUT:
        return FileOutput(target, option, sys.stdout)
    if os.path.realpath(target) == os.devnull:  # the shell's way to say "throw it away"
        return FileOutput(target, option, discard=True)
    _checked_file(target, option)
    return FileOutput(target, option)


@frozen
class DirectoryOutput:
    """A checked directory target, built elsewhere and moved into place whole.

    Made by :func:`directory_output`; ``names`` are the files the command
    writes into it, the only entries an existing directory may hold to be
    replaced.
    """

    given: str
    names: frozenset[str]
    option: str | None = None

    @contextmanager
    def building(self) -> Iterator[Path]:
        """A new empty directory to fill, which becomes the target when the block ends well.

        On any exception (``KeyboardInterrupt`` and ``SystemExit`` included)
        the directory and the parents made for it are removed and the target
        is left as it was.

        Raises
        ------
        InputError
            When the target has become something that may not be replaced,
            or cannot be written.
        """
        real = _checked_directory(self.given, self.names, self.option)
        made: list[Path] = []
        staging: Path | None = None
        try:
            made = _make_parents(real.parent)
            staging = _temporary_name(real.parent, real.name, "tmp")
            staging.mkdir()
            yield staging
            real = _checked_directory(self.given, self.names, self.option)
            _move_into_place(staging, real)
        except BaseException as exc:
            with signals_blocked():
                if staging is not None:
                    shutil.rmtree(staging, ignore_errors=True)
                _remove_made(made)
            if isinstance(exc, OSError):
                reason = f"cannot write: {exc.strerror or exc}"
                raise _refusal(self.given, reason, self.option) from None
            raise


def _move_into_place(staging: Path, real: Path) -> None:
    """Rename ``staging`` to ``real``; an existing ``real`` is moved aside, then removed."""
    try:
        kept_mode: int | None = stat.S_IMODE(real.stat().st_mode)
    except FileNotFoundError:
        kept_mode = None
    with signals_blocked():
        if kept_mode is None:
            os.rename(staging, real)
            return
        staging.chmod(kept_mode)
        aside = _temporary_name(real.parent, real.name, "old")
        os.rename(real, aside)
        try:
            os.rename(staging, real)
        except BaseException:
            os.rename(aside, real)
            raise
        shutil.rmtree(aside, ignore_errors=True)


def kept_directory(target: str, option: str | None = None) -> Path:
    """Check a directory files are kept in from run to run (a cache): the path to keep them in.

    Raises
    ------
    InputError
        One problem, when ``target`` is not a directory the user may write
        in, nor one that can be made there.
    """
    real = Path(os.path.realpath(target))
    status = _stat(target, real, option)
    if status is None:
        if os.path.islink(target):
            raise _refusal(target, f"is a dangling symbolic link (to {real})", option)
        _check_room(target, real.parent, option)
    elif not stat.S_ISDIR(status.st_mode):
        raise _refusal(target, _is(target, status.st_mode), option)
    elif not os.access(real, os.W_OK | os.X_OK):
        raise _refusal(target, "cannot write in it: permission denied", option)
    return real


def directory_output(
    target: str, names: Collection[str], option: str | None = "--out"
) -> DirectoryOutput:
    """Check a directory target now, before any of its files exist.

    Parameters
    ----------
    target
        The directory to write.
    names
        The names of the files the command writes into it.
    option
        The command-line option that named ``target``, for the error message.

    Raises
    ------
    InputError
        One problem, when ``target`` may not become the directory.
    """
    _checked_directory(target, names, option)
    return DirectoryOutput(target, frozenset(names), option)
