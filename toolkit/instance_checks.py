"""Rules of an instance that span several objects: ids, references, capacity, gang width.

These run on the parsed JSON rather than on model objects, so that they still
report what they can when other parts of the same file are malformed: a user
fixing a file sees all of its problems in one run. Values of the wrong type are
skipped here; the loader reports those.
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from typing import Any

from tapesched.toolkit.errors import Problem
from tapesched.toolkit.model import Instance


def _items(data: dict[str, Any], key: str) -> list[tuple[int, dict[str, Any]]]:
    value = data.get(key)
    if type(value) is not list:
        return []
    return [(i, x) for i, x in enumerate(value) if type(x) is dict]


def _str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return value if type(value) is str else None


def _num(obj: dict[str, Any], key: str) -> float | None:
    value = obj.get(key)
    return value if type(value) in (int, float) else None


def _reference(
    obj: dict[str, Any], key: str, known: Container[str], path: str, out: list[Problem]
) -> str | None:
    """The id that ``obj[key]`` names (a library, drive or tape), if ``known`` has it.

    An unknown id is reported at ``path.key``; a missing one, or one that is
    not a string (the loader's to report), is None too.
    """
    ident = _str(obj, key)
    if ident is not None and ident not in known:
        out.append(Problem(f"{path}.{key}", f"unknown {key} {ident!r}"))
        return None
    return ident


def _ids(data: dict[str, Any], key: str, kind: str, out: list[Problem]) -> dict[str, int]:
    """Index of each id in the ``key`` array, reporting duplicates."""
    seen: dict[str, int] = {}
    for i, obj in _items(data, key):
        ident = _str(obj, "id")
        if ident is None:
            continue
        if ident in seen:
            out.append(
                Problem(
                    f"{key}[{i}].id",
                    f"duplicate {kind} id {ident!r} (first at {key}[{seen[ident]}])",
                )
            )
        else:
            seen[ident] = i
    return seen


def check_instance(data: dict[str, Any]) -> list[Problem]:
    """Every cross-object problem of a parsed instance document.

    Parameters
    ----------
    data
        The parsed JSON object of an instance file.

    Returns
    -------
    list of Problem
        Duplicate ids, references to unknown libraries, drives or tapes,
        initial tapes that conflict, pieces on repeated tapes or on several
        libraries, pieces past their tape's capacity, and gangs wider than the
        drives of their library; empty when there are none.
    """
    out: list[Problem] = []
    libraries = _ids(data, "libraries", "library", out)
    drive_index = _ids(data, "drives", "drive", out)
    tape_index = _ids(data, "tapes", "tape", out)
    _ids(data, "requests", "request", out)

    drive_library: dict[str, str] = {}
    drives_per_library: dict[str, int] = {}
    for ident, lib, _ in _in_libraries(data, "drives", drive_index, libraries, out):
        drive_library[ident] = lib
        drives_per_library[lib] = drives_per_library.get(lib, 0) + 1

    tapes: dict[str, tuple[str, float | None]] = {}
    for ident, lib, tape in _in_libraries(data, "tapes", tape_index, libraries, out):
        tapes[ident] = (lib, _num(tape, "capacity_mb"))

    _check_initial(data, drive_library, drive_index, tapes, out)
    _check_requests(data, tapes, drives_per_library, out)
    _check_arm_times(data, out)
    return out


def _check_arm_times(data: dict[str, Any], out: list[Problem]) -> None:
    """A library's list of ``arms_available_s`` holds one time per arm (version 2)."""
    for i, lib in _items(data, "libraries"):
        times, arms = lib.get("arms_available_s"), lib.get("arms")
        if type(times) is list and type(arms) is int and len(times) != arms:
            out.append(
                Problem(
                    f"libraries[{i}].arms_available_s",
                    f"{len(times)} time(s) for {arms} arm(s): give one per arm, or one number",
                )
            )


def _in_libraries(
    data: dict[str, Any],
    key: str,
    index: dict[str, int],
    libraries: dict[str, int],
    out: list[Problem],
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Id, library and object of each entry of the ``key`` array (drives or tapes) to index.

    An entry naming an unknown library is reported; one whose id is missing
    or repeats an earlier entry's (reported by :func:`_ids`) is passed over.
    """
    for i, obj in _items(data, key):
        lib = _reference(obj, "library", libraries, f"{key}[{i}]", out)
        ident = _str(obj, "id")
        if lib is not None and ident is not None and index.get(ident) == i:
            yield ident, lib, obj


def _check_initial(
    data: dict[str, Any],
    drive_library: dict[str, str],
    drive_index: dict[str, int],
    tapes: dict[str, tuple[str, float | None]],
    out: list[Problem],
) -> None:
    holder: dict[str, str] = {}
    filled: dict[str, int] = {}
    for i, entry in _items(data, "initial"):
        drive = _reference(entry, "drive", drive_index, f"initial[{i}]", out)
        if drive is not None:
            if drive in filled:
                out.append(
                    Problem(
                        f"initial[{i}].drive",
                        f"drive {drive!r} already holds a tape (initial[{filled[drive]}])",
                    )
                )
                drive = None
            else:
                filled[drive] = i
        tape = _reference(entry, "tape", tapes, f"initial[{i}]", out)
        if tape is not None:
            if tape in holder:
                out.append(
                    Problem(
                        f"initial[{i}].tape", f"tape {tape!r} is already in drive {holder[tape]!r}"
                    )
                )
                continue
            capacity, head = tapes[tape][1], _num(entry, "head_mb")
            if capacity is not None and head is not None and head > capacity:
                out.append(
                    Problem(
                        f"initial[{i}].head_mb",
                        f"head at {head:g} MB, past the capacity {capacity:g} MB of tape {tape!r}",
                    )
                )
            if drive is not None:
                holder[tape] = drive
                tape_lib, drive_lib = tapes[tape][0], drive_library.get(drive)
                if drive_lib is not None and tape_lib != drive_lib:
                    out.append(
                        Problem(
                            f"initial[{i}].tape",
                            f"tape {tape!r} is in library {tape_lib!r}, "
                            f"drive {drive!r} in library {drive_lib!r}",
                        )
                    )


def _check_requests(
    data: dict[str, Any],
    tapes: dict[str, tuple[str, float | None]],
    drives_per_library: dict[str, int],
    out: list[Problem],
) -> None:
    for i, request in _items(data, "requests"):
        pieces = request.get("pieces")
        if type(pieces) is not list:
            continue
        seen: dict[str, int] = {}
        libs: set[str] = set()
        for k, piece in enumerate(pieces):
            if type(piece) is not dict:
                continue
            path = f"requests[{i}].pieces[{k}]"
            tape = _reference(piece, "tape", tapes, path, out)
            if tape is None:
                continue
            if tape in seen:
                out.append(
                    Problem(f"{path}.tape", f"tape {tape!r} already holds pieces[{seen[tape]}]")
                )
            seen.setdefault(tape, k)
            lib, capacity = tapes[tape]
            if libs and lib not in libs:
                out.append(
                    Problem(
                        f"{path}.tape",
                        f"tape {tape!r} is in library {lib!r}, other pieces in {sorted(libs)[0]!r}",
                    )
                )
            libs.add(lib)
            offset, size = _num(piece, "offset_mb"), _num(piece, "size_mb")
            if capacity is not None and offset is not None and size is not None:
                if offset + size > capacity:
                    out.append(
                        Problem(
                            f"{path}.size_mb",
                            f"piece ends at {offset + size:g} MB, past the capacity "
                            f"{capacity:g} MB of tape {tape!r}",
                        )
                    )
        if len(libs) == 1:
            lib = next(iter(libs))
            available = drives_per_library.get(lib, 0)
            if len(pieces) > available:
                out.append(
                    Problem(
                        f"requests[{i}].pieces",
                        f"gang of {len(pieces)} pieces but library {lib!r} has {available} drives",
                    )
                )


def _unique(ids: list[str]) -> bool:
    return len(set(ids)) == len(ids)


def is_consistent(instance: Instance) -> bool:
    """True when a well-formed instance breaks none of the rules of :func:`check_instance`.

    The fast path of loading: it runs on model objects, whose types are already
    checked, and stops at the first problem, so that a valid file of 100,000
    requests costs a fraction of a second; :func:`check_instance` then names
    each problem of an invalid one.
    """
    libraries = {lib.id for lib in instance.libraries}
    if not (
        len(libraries) == len(instance.libraries)
        and _unique([d.id for d in instance.drives])
        and _unique([t.id for t in instance.tapes])
        and _unique([r.id for r in instance.requests])
    ):
        return False
    width: dict[str, int] = dict.fromkeys(libraries, 0)
    for drive in instance.drives:
        if drive.library not in libraries:
            return False
        width[drive.library] += 1
    tapes: dict[str, tuple[str, float]] = {}
    for tape in instance.tapes:
        if tape.library not in libraries:
            return False
        tapes[tape.id] = (tape.library, tape.capacity_mb)
    drive_library = {d.id: d.library for d in instance.drives}
    held = [x.tape for x in instance.initial]
    if not (_unique([x.drive for x in instance.initial]) and _unique(held)):
        return False
    for entry in instance.initial:
        info = tapes.get(entry.tape)
        if info is None or drive_library.get(entry.drive) != info[0]:
            return False
        if entry.head_mb > info[1]:
            return False
    for lib in instance.libraries:
        if isinstance(lib.arms_available_s, tuple) and len(lib.arms_available_s) != lib.arms:
            return False
    for request in instance.requests:
        pieces = request.pieces
        library = None
        for piece in pieces:
            info = tapes.get(piece.tape)
            if info is None or piece.offset_mb + piece.size_mb > info[1]:
                return False
            if library is None:
                library = info[0]
            elif info[0] != library:
                return False
        if library is None or len(pieces) > width[library]:
            return False
        if len(pieces) > 1 and not _unique([p.tape for p in pieces]):
            return False
    return True
