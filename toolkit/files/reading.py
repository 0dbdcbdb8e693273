"""The one reader of input files: a regular file, read as a stream within the limits.

Every file the toolkit reads (instances, schedules, scenarios, load files,
recall files, results, traces, layouts, cartridge maps, CSV workloads) comes
through :func:`read_bytes` or :func:`read_text`, which

- refuse what is not a regular file (a directory, a FIFO, a device such as
  ``/dev/zero``) before reading a byte, opening it without blocking (a FIFO
  without a writer would otherwise wait for ever), except a pipe on the
  standard input named ``/dev/stdin``;
- refuse a plain file larger than :data:`~toolkit.runtime.limits.MAX_INPUT_BYTES` by
  its size, before reading it;
- read in chunks, decompressing a name ending in ``.bz2``, ``.gz`` or ``.zst`` (every
  stream of a file of concatenated streams), and stop as soon as the bytes
  read pass :data:`~toolkit.runtime.limits.MAX_INPUT_BYTES`;
- for line-oriented inputs, stop at the first line longer than
  :data:`~toolkit.runtime.limits.MAX_LINE_BYTES`.

:func:`read_lines` gives a line-oriented input a line at a time, under the same checks,
never holding more of the file than a chunk and a line (a site's request log of millions
of lines, :mod:`.request_log`).

Each refusal is one :class:`~toolkit.errors.InputError` naming the file:
``FILE: cannot read file: REASON``. Reading never imports or calls code.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from typing import IO, BinaryIO, cast

from tapesched.toolkit.errors import InputError, Problem
from tapesched.toolkit.runtime.limits import MAX_INPUT_BYTES, MAX_LINE_BYTES, MiB

CHUNK_BYTES = MiB
"""Bytes read at a time: at most :data:`~toolkit.runtime.limits.MAX_LINE_BYTES`, so that a line
within one chunk is never too long and only lines across chunks need counting."""

ZSTD_PIECE_BYTES = 2048
"""Compressed bytes of a ``.zst`` file decompressed at a time: a zstd block of 128 KiB may be
written in 4 bytes, so a piece decompresses to at most some 64 MiB, within
:data:`~toolkit.runtime.limits.MAX_INPUT_BYTES`, before the limit is checked."""


class _ZstdFrames(io.RawIOBase):
    """The frames of a ``.zst`` file one after the other, decompressed as they are read.

    zstandard's own ``stream_reader`` ends quietly where a truncated file ends; this reads
    :data:`ZSTD_PIECE_BYTES` at a time through a decompression object per frame, and raises
    :class:`EOFError` when the file ends inside a frame, as ``bz2`` and ``gzip`` do. Data that
    is not zstd raises :class:`OSError`.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        import zstandard  # only a .zst file needs it

        self._raw = raw
        self._zstd = zstandard
        self._context = zstandard.ZstdDecompressor()
        self._frame: zstandard.ZstdDecompressionObj | None = None
        self._pending = b""
        self._out = bytearray()

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        want = CHUNK_BYTES if size is None or size < 0 else size
        while len(self._out) < want:
            data = self._pending or self._raw.read(ZSTD_PIECE_BYTES)
            self._pending = b""
            if not data:
                if self._frame is not None and not self._frame.eof:
                    raise EOFError("truncated zst data")
                break
            if self._frame is None or self._frame.eof:
                self._frame = self._context.decompressobj()
            try:
                self._out += self._frame.decompress(data)
            except self._zstd.ZstdError as exc:
                raise OSError(f"not zst data ({exc})") from None
            if self._frame.eof:
                self._pending = self._frame.unused_data
        out = bytes(self._out[:want])
        del self._out[:want]
        return out

    def close(self) -> None:
        self._raw.close()
        super().close()


_DECOMPRESSORS: dict[str, Callable[[IO[bytes]], BinaryIO]] = {
    ".bz2": lambda raw: cast(BinaryIO, bz2.BZ2File(raw)),
    ".gz": lambda raw: cast(BinaryIO, gzip.GzipFile(fileobj=raw)),
    ".zst": lambda raw: cast(BinaryIO, _ZstdFrames(raw)),
}
"""How a name ending in each suffix is decompressed while it is read."""

STANDARD_INPUT = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
"""Names of the standard input: a pipe there is read (``solve ... --out - | verify INSTANCE
/dev/stdin``), within the same size limit; a FIFO by any other name is refused, since
opening it would wait for a writer that may never come."""

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _refused(source: str, reason: str) -> InputError:
    return InputError(source, [Problem("", f"cannot read file: {reason}")])


def _describe(bytes_: int) -> str:
    return f"{bytes_ / MiB:g} MiB" if bytes_ >= MiB else f"{bytes_:,} bytes"


def _not_regular(mode: int) -> str | None:
    """Why a file of ``mode`` is not read, or ``None`` for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return os.strerror(errno.EISDIR)
    kind = next((name for test, name in _KINDS if test(mode)), "a special file")
    return f"not a regular file ({kind})"


def _open(
    path: str | os.PathLike[str], source: str, most_bytes: int, follow_links: bool = True
) -> IO[bytes]:
    """``path`` opened for reading once it is known to be a regular file within the size."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_links:
            raise _refused(source, "a symbolic link, not followed") from None
        raise _refused(source, exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        piped = source in STANDARD_INPUT and stat.S_ISFIFO(info.st_mode)
        if piped:  # the other end of a pipe: read it, waiting for what it writes
            os.set_blocking(fd, True)
        why = None if piped else _not_regular(info.st_mode)
        if why is None and info.st_size > most_bytes:
            why = f"{info.st_size:,} bytes, more than the limit of {_describe(most_bytes)}"
        if why is not None:
            raise _refused(source, why)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _chunks(
    path: str | os.PathLike[str], source: str, most_bytes: int, whole: bool, follow_links: bool
) -> tuple[IO[bytes], Callable[[], bytes]]:
    """The open stream of ``path`` (decompressed by its suffix) and a reader of its chunks:
    :data:`CHUNK_BYTES` at a time, or (``whole``, for a plain file) the file in one chunk if it
    is within ``most_bytes`` (not held twice, as chunks and joined)."""
    raw = _open(path, source, most_bytes, follow_links)
    decompress = _DECOMPRESSORS.get(os.path.splitext(source)[1].lower())
    if decompress is None and whole:
        return raw, lambda: raw.read(most_bytes + 1)
    stream = raw if decompress is None else decompress(raw)
    return stream, lambda: stream.read(CHUNK_BYTES)


def read_bytes(
    path: str | os.PathLike[str],
    *,
    most_bytes: int = MAX_INPUT_BYTES,
    line_bytes: int | None = None,
    follow_links: bool = True,
) -> bytes:
    """The bytes of the file ``path``, decompressed when its name ends in ``.bz2``, ``.gz`` or
    ``.zst``.

    Parameters
    ----------
    path
        The file.
    most_bytes
        Most bytes read (as stored and once decompressed).
    line_bytes
        Longest line accepted (at least :data:`CHUNK_BYTES`); ``None`` for no limit
        (JSON, whose one line may be the whole file).
    follow_links
        Read what a symbolic link leads to; else refuse the link (a cache
        entry, which only this program writes).

    Raises
    ------
    InputError
        ``FILE: cannot read file: REASON`` when the file is missing, not a
        regular file, larger than the limit, not valid compressed data, or
        has a line longer than the limit.
    """
    source = str(path)
    compressed = os.path.splitext(source)[1].lower() in _DECOMPRESSORS
    stream, read = _chunks(path, source, most_bytes, line_bytes is None, follow_links)
    chunks: list[bytes] = []
    total = run = lines = 0
    with stream:
        try:
            while chunk := read():
                total += len(chunk)
                if total > most_bytes:
                    what = "decompresses to" if compressed else "holds"
                    raise _refused(source, f"{what} more than the limit of {_describe(most_bytes)}")
                if line_bytes is not None:
                    first = chunk.find(b"\n")
                    if first < 0:
                        run += len(chunk)
                    else:
                        run += first
                    if run > line_bytes:
                        why = f"line {lines + 1} is longer than {_describe(line_bytes)}"
                        raise _refused(source, why)
                    if first >= 0:
                        lines += chunk.count(b"\n")
                        run = len(chunk) - chunk.rfind(b"\n") - 1
                chunks.append(chunk)
        except EOFError:
            kind = os.path.splitext(source)[1][1:]
            raise _refused(source, f"truncated {kind} data") from None
        except (OSError, zlib.error) as exc:
            raise _refused(source, getattr(exc, "strerror", None) or str(exc)) from None
    return b"".join(chunks)


def read_text(
    path: str | os.PathLike[str],
    *,
    most_bytes: int = MAX_INPUT_BYTES,
    line_bytes: int | None = MAX_LINE_BYTES,
) -> str:
    """The UTF-8 text of the file ``path`` (:func:`read_bytes`, with its line limit by default).

    Raises
    ------
    InputError
        As :func:`read_bytes`, and ``FILE: line N: not UTF-8 text``.
    """
    data = read_bytes(path, most_bytes=most_bytes, line_bytes=line_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(str(path), [Problem(f"line {line}", "not UTF-8 text")]) from None


def read_lines(
    path: str | os.PathLike[str],
    *,
    most_bytes: int = MAX_INPUT_BYTES,
    line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[str]:
    """The UTF-8 lines of the file ``path``, each ending in a newline but maybe the last,
    read and decompressed (as :func:`read_bytes`) a chunk at a time, as they are asked for.

    The file is opened and checked when the first line is asked for, and closed when the
    lines run out or the iterator is closed.

    Raises
    ------
    InputError
        As :func:`read_bytes` (at most ``most_bytes`` decompressed, no line longer than
        ``line_bytes``), and ``FILE: line N: not UTF-8 text``.
    """
    source = str(path)
    compressed = os.path.splitext(source)[1].lower() in _DECOMPRESSORS
    stream, read = _chunks(path, source, most_bytes, False, True)

    def chunk() -> bytes:
        try:
            return read()
        except EOFError:
            raise _refused(source, f"truncated {os.path.splitext(source)[1][1:]} data") from None
        except (OSError, zlib.error) as exc:
            raise _refused(source, getattr(exc, "strerror", None) or str(exc)) from None

    def text(line: bytes, number: int) -> str:
        if len(line) > line_bytes:
            raise _refused(source, f"line {number} is longer than {_describe(line_bytes)}")
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(source, [Problem(f"line {number}", "not UTF-8 text")]) from None

    total = number = 0
    rest = b""
    with stream:
        while data := chunk():
            total += len(data)
            if total > most_bytes:
                what = "decompresses to" if compressed else "holds"
                raise _refused(source, f"{what} more than the limit of {_describe(most_bytes)}")
            lines = (rest + data).split(b"\n")
            rest = lines.pop()
            if len(rest) > line_bytes:
                text(rest, number + len(lines) + 1)
            for line in lines:
                number += 1
                yield text(line, number) + "\n"
    if rest:
        yield text(rest, number + 1)
