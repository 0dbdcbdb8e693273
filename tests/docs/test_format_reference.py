"""The format reference names every key each reader accepts, and no other.

``docs/reference/formats.md`` has a section per file format and a table per record
(``docs/scenario-format.md`` holds the scenario's); each reader's keys are taken from
its own declaration (the attrs classes files are structured into, or the key tables a
reader checks against) and compared with the page's table, both ways. Where the
declaration says so, a key's being required, its default and its type are compared
too; and each example of the page is read by its reader (the cartridge map, whose keys
are cartridge ids, has no key table: its example is read against the layout's). The
markdown is parsed: no site is built.
"""

from __future__ import annotations

import json
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest
from attrs import frozen

from tapesched.simulator.planning.sizing import DRIVE_FIELDS, LoadDocument, load_from_dict
from tapesched.simulator.platform.technology import DURATION_KEYS
from tapesched.simulator.replay.trace import (
    LayoutDocument,
    TraceLine,
    homes_from_dict,
    layout_from_dict,
    read_requests,
)
from tapesched.simulator.scenario.document import PolicySection, ScenarioDocument
from tapesched.simulator.scenario.platform_section import (
    MODEL_FIELDS,
    DriveGroup,
    LibraryEntry,
    PlatformSection,
)
from tapesched.simulator.scenario.run_section import BwMainSection, MountedSection, RunSection
from tapesched.simulator.scenario.workload_section import WorkloadSection
from tapesched.simulator.workload.requests_csv import (
    OPTIONAL,
    REQUIRED,
    RequestRow,
    workload_from_csv,
)
from tapesched.studies import results_file
from tapesched.studies.site_sweep.sweep_file import SweepDocument, read_sweep_file
from tapesched.toolkit.files import recall_file, request_log
from tapesched.toolkit.files.instance_file import VERSION_2_KEYS, instance_from_dict
from tapesched.toolkit.files.schedule_file import schedule_from_dict
from tapesched.toolkit.model import Instance, Library, Schedule
from tapesched.toolkit.site.document import PoolEntry, SiteDocument
from tapesched.toolkit.site.reader import site_from_dict
from tapesched.toolkit.validator import validate

DOCS = Path(__file__).resolve().parents[2] / "docs"
REFERENCE = DOCS / "reference" / "formats.md"
SCENARIO_PAGE = DOCS / "scenario-format.md"

# --- the page ---------------------------------------------------------------------------------


@frozen
class Row:
    """A row of a key table: the keys its first cell names, its cells by column."""

    keys: tuple[str, ...]
    cells: Mapping[str, str]


@frozen
class Table:
    """A key table (first column ``key`` or ``column``) and the heading it is under."""

    heading: str
    rows: tuple[Row, ...]

    def row(self, key: str) -> Row:
        return next(r for r in self.rows if key in r.keys)

    @property
    def keys(self) -> set[str]:
        return {k for r in self.rows for k in r.keys}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _heading(line: str) -> str:
    return re.sub(r"\s*\{#[^}]*\}\s*$", "", line.lstrip("#").strip())


def key_tables(text: str) -> list[Table]:
    """Every key table of ``text``, each with the heading above it."""
    lines = text.splitlines()
    out: list[Table] = []
    heading, i = "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = _heading(line)
        if line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("| ---"):
            header = [c.lower() for c in _cells(line)]
            i += 2
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = _cells(lines[i])
                keys = tuple(re.findall(r"`([^`]+)`", cells[0]))
                rows.append(Row(keys, dict(zip(header, cells, strict=True))))
                i += 1
            if header[0] in ("key", "column"):
                out.append(Table(heading, tuple(rows)))
            continue
        i += 1
    return out


def section(text: str, anchor: str) -> str:
    """The part of ``text`` under the heading ``## ... {#anchor}``, to the next ``##``."""
    start = text.index(f"{{#{anchor}}}")
    end = text.find("\n## ", start)
    return text[start : None if end < 0 else end]


def examples(text: str) -> list[tuple[str, str]]:
    """The fenced data blocks of ``text``: (language, content)."""
    return re.findall(r"```(json|csv)\n(.*?)```", text, re.S)


# --- the readers ------------------------------------------------------------------------------


@frozen
class Record:
    """What a reader accepts of one object (or a CSV line): its keys, and when the
    declaration says so, which are required, their defaults and their JSON types."""

    keys: frozenset[str]
    required: frozenset[str] | None = None
    defaults: Mapping[str, Any] = {}
    types: Mapping[str, str] = {}


Shapes = Mapping[tuple[type, str], tuple[tuple[str, Any], ...]]
"""The objects a field of several shapes (:func:`toolkit.fields.parsed`) may be given as:
``(record name, attrs class or keys)`` for each; ``()`` for a field of scalars and lists."""

_TYPE_WORDS = {float: "number", int: "integer", str: "string", tuple: "list", dict: "object"}


def _inner(hint: Any) -> list[Any]:
    """``hint`` without ``None``, ``Annotated`` and unions: the types it may be."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return [t for a in typing.get_args(hint) if a is not type(None) for t in _inner(a)]
    if typing.get_origin(hint) is typing.Annotated:
        return _inner(hint.__origin__)
    return [hint]


def _type_word(hint: Any) -> str | None:
    inner = _inner(hint)
    if len(inner) != 1:
        return None
    t = inner[0]
    if attrs.has(t):
        return "object"
    return _TYPE_WORDS.get(typing.get_origin(t) or t)


def _checkable_default(default: Any) -> bool:
    return default == () or (type(default) in (int, float, str) and default is not None)


def walk(
    cls: type, shapes: Shapes, path: str = "", out: dict[str, Record] | None = None
) -> dict[str, Record]:
    """The records of ``cls`` and of every object its fields hold, by path
    (``requests[i].pieces[i]``), through optionals, tuples and mappings."""
    out = {} if out is None else out
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = attrs.fields(cls)
    out[path] = Record(
        keys=frozenset(a.name for a in fields),
        required=frozenset(a.name for a in fields if a.default is attrs.NOTHING),
        defaults={
            a.name: a.default
            for a in fields
            if "parse" not in a.metadata and _checkable_default(a.default)
        },
        types={
            a.name: word
            for a in fields
            if "parse" not in a.metadata and (word := _type_word(hints[a.name]))
        },
    )
    for a in fields:
        sub = f"{path}.{a.name}" if path else a.name
        if "parse" in a.metadata:
            assert (cls, a.name) in shapes, f"{cls.__name__}.{a.name}: say which objects it takes"
            for name, shape in shapes[(cls, a.name)]:
                if attrs.has(shape):
                    walk(shape, shapes, name, out)
                else:
                    out[name] = Record(frozenset(shape))
            continue
        for t in _inner(hints[a.name]):
            origin, args = typing.get_origin(t), typing.get_args(t)
            if attrs.has(t):
                walk(t, shapes, sub, out)
            elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
                if attrs.has(args[0]):
                    walk(args[0], shapes, f"{sub}[i]", out)
            elif origin is dict and attrs.has(_inner(args[1])[0]):
                walk(_inner(args[1])[0], shapes, f"{sub}.N", out)
    return out


def with_format(records: dict[str, Record]) -> dict[str, Record]:
    """The records of a format whose ``format`` tag the reader checks apart from its class
    (:func:`toolkit.files.json_documents.check_format`): a required string at the top."""
    top = records[""]
    records[""] = attrs.evolve(
        top,
        keys=top.keys | {"format"},
        required=(top.required or frozenset()) | {"format"},
        types={**top.types, "format": "string"},
    )
    return records


def instance_records() -> dict[str, Record]:
    return with_format(walk(Instance, {(Library, "arms_available_s"): ()}))


def schedule_records() -> dict[str, Record]:
    return with_format(walk(Schedule, {}))


def scenario_records() -> dict[str, Record]:
    time = (("time object", DURATION_KEYS),)
    shapes: Shapes = {
        (LibraryEntry, "mount_s"): time,
        (LibraryEntry, "dismount_s"): time,
        (PlatformSection, "pass_through_s"): time,
        # a drive model's locate is an instance's drives[i].locate, checked there
        (DriveGroup, "model"): (("platform.drives[i].model", ("base", *MODEL_FIELDS)),),
        (RunSection, "scheduler"): (
            ("run.scheduler with a mount policy", MountedSection),
            ("run.scheduler for bw-main", BwMainSection),
        ),
        (PolicySection, "name"): (),
        (MountedSection, "name"): (),
        (MountedSection, "mount_policy"): (),
        (BwMainSection, "min_lb_interval"): (),
        (BwMainSection, "max_waiting_time"): (),
        **{(WorkloadSection, k): () for k in ("sizes", "rate", "duration", "schemes")},
        (WorkloadSection, "data_ratio"): (),
    }
    return walk(ScenarioDocument, shapes)


def load_records() -> dict[str, Record]:
    return walk(LoadDocument, {(LoadDocument, "drive"): (("drive", ("base", *DRIVE_FIELDS)),)})


def recall_records() -> dict[str, Record]:
    r = recall_file
    return {
        "": Record(frozenset({*r.COMMON_KEYS, *r.CTA_KEYS, *r.TECHNOLOGY_KEYS})),
        "files[i]": Record(frozenset({*r.CTA_FILE_KEYS, *r.TECHNOLOGY_FILE_KEYS})),
    }


def request_trace_records() -> dict[str, Record]:
    records = walk(RequestRow, {(RequestRow, "scheme"): ()})
    assert records[""].keys == {*REQUIRED, *OPTIONAL}
    assert records[""].required == set(REQUIRED)
    return records


def request_log_records() -> dict[str, Record]:
    records = walk(request_log.LogRow, {(request_log.LogRow, "time"): ()})
    assert records[""].keys == set(request_log.COLUMNS)
    assert records[""].required == set(request_log.REQUIRED)
    return records


def ecmwf_trace_records() -> dict[str, Record]:
    return walk(TraceLine, {(TraceLine, "time"): ()})


def site_records() -> dict[str, Record]:
    return with_format(walk(SiteDocument, {(PoolEntry, "ids"): ()}))


def sweep_records() -> dict[str, Record]:
    return walk(SweepDocument, {(SweepDocument, "vary"): (), (SweepDocument, "columns"): ()})


def layout_records() -> dict[str, Record]:
    return walk(LayoutDocument, {})


def results_records() -> dict[str, Record]:
    """The writer's columns (``COLUMNS``), each required by the reader, whose line
    (``_Line``) gives their types."""
    line = walk(results_file._Line, {})[""]
    assert line.keys == set(results_file.COLUMNS)
    columns = frozenset(results_file.COLUMNS)
    return {"": attrs.evolve(line, keys=columns, required=columns)}


# --- page against readers ---------------------------------------------------------------------


@frozen
class Format:
    """A format: its reader's records, where the page documents them."""

    records: Callable[[], dict[str, Record]]
    page: Path
    anchor: str | None = None
    """The page's section (``## ... {#anchor}``); ``None``: the whole page."""
    headings: Mapping[str, str] = {"": "Top level"}
    """The heading of a record whose heading's first code span is not its path."""


FORMATS = {
    "instance": Format(instance_records, REFERENCE, "instance"),
    "schedule": Format(schedule_records, REFERENCE, "schedule"),
    "scenario": Format(
        scenario_records,
        SCENARIO_PAGE,
        headings={
            "": "The top level",
            "time object": "A time as an object",
            "platform.drives[i].model": "Drive models",
            "run.scheduler with a mount policy": "A scheduler and its mount policy",
            "run.scheduler for bw-main": "`bw-main` and its parameters",
        },
    ),
    "request trace": Format(request_trace_records, REFERENCE, "request-trace", {"": "Columns"}),
    "load file": Format(load_records, REFERENCE, "load-file"),
    "recall file": Format(recall_records, REFERENCE, "recall-file"),
    "ecmwf trace": Format(ecmwf_trace_records, REFERENCE, "ecmwf-trace", {"": "Columns"}),
    "request log": Format(request_log_records, REFERENCE, "request-log", {"": "Columns"}),
    "library layout": Format(layout_records, REFERENCE, "library-layout"),
    "site": Format(site_records, REFERENCE, "site"),
    "sweep file": Format(sweep_records, REFERENCE, "sweep-file"),
    "results.csv": Format(results_records, REFERENCE, "resultscsv", {"": "Columns"}),
}


def _table_of(fmt: Format, path: str, tables: list[Table]) -> Table | str:
    """The one key table of the record at ``path``, or why there is none."""

    def first_code(heading: str) -> str | None:
        found = re.search(r"`([^`]+)`", heading)
        return found.group(1) if found else None

    wanted = fmt.headings.get(path)
    found = [
        t
        for t in tables
        if (t.heading == wanted if wanted is not None else first_code(t.heading) == path)
    ]
    if len(found) != 1:
        return f"{path or 'top level'}: {len(found)} key tables on the page, not 1"
    return found[0]


def _is_required(row: Row) -> bool | None:
    if "required" in row.cells:
        return row.cells["required"].lower().startswith("yes")
    if "default" in row.cells:
        return row.cells["default"].strip("* ").lower().startswith("required")
    return None


def _same(documented: Any, default: Any) -> bool:
    if isinstance(default, tuple):
        return documented == list(default)
    if isinstance(default, int | float) and isinstance(documented, int | float):
        return math.isclose(documented, default, rel_tol=1e-3)
    return bool(documented == default)


def _row_mismatches(where: str, key: str, row: Row, record: Record) -> list[str]:
    """What a row says of ``key`` otherwise than the reader: required, default, type."""
    out = []
    if record.required is not None:
        said = _is_required(row)
        if said is None or said != (key in record.required):
            out.append(f"{where}: required is {key in record.required}")
    if key in record.defaults:
        default = record.defaults[key]
        code = re.search(r"`([^`]+)`", row.cells.get("default", ""))
        try:
            documented = json.loads(code.group(1)) if code else None
        except ValueError:
            documented = code.group(1) if code else None
        if not _same(documented, default):
            out.append(f"{where}: default is {default!r}, the page says {documented!r}")
    if key in record.types and "type" in row.cells:
        if not row.cells["type"].startswith(record.types[key]):
            out.append(f"{where}: type is {record.types[key]}")
    return out


def mismatches(fmt: Format) -> list[str]:
    """What the page says otherwise than the reader, one line each."""
    text = fmt.page.read_text(encoding="utf-8")
    tables = key_tables(text if fmt.anchor is None else section(text, fmt.anchor))
    records: dict[str, Record] = fmt.records()
    out: list[str] = []
    claimed: set[int] = set()
    for path, record in records.items():
        table = _table_of(fmt, path, tables)
        if isinstance(table, str):
            out.append(table)
            continue
        claimed.add(id(table))
        where = path or "top level"
        for key in sorted(record.keys - table.keys):
            out.append(f"{where}: the reader accepts {key!r}, the page does not name it")
        for key in sorted(table.keys - record.keys):
            out.append(f"{where}: the page names {key!r}, which the reader refuses")
        for key in sorted(record.keys & table.keys):
            out += _row_mismatches(f"{where}.{key}", key, table.row(key), record)
    for table in tables:
        if id(table) not in claimed:
            out.append(f"the table under {table.heading!r} is no record the reader has")
    return out


@pytest.mark.parametrize("name", FORMATS)
def test_the_page_names_every_key_the_reader_accepts_and_no_other(name: str) -> None:
    assert mismatches(FORMATS[name]) == []


def test_a_key_table_that_differs_from_its_reader_is_found(tmp_path: Path) -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    for row, wrong in (
        ("| `head_mb` | number | MB | `0` |", "| `head_mb` | string | MB | `1` |"),
        ("| `weight` | number | | **required** |", "| `weighed` | number | | `1` |"),
    ):
        assert text.count(row) == 1
        text = text.replace(row, wrong)
    page = tmp_path / "formats.md"
    page.write_text(text, encoding="utf-8")
    found = mismatches(attrs.evolve(FORMATS["instance"], page=page))
    assert sorted(found) == [
        "initial[i].head_mb: default is 0.0, the page says 1",
        "initial[i].head_mb: type is number",
        "requests[i]: the page names 'weighed', which the reader refuses",
        "requests[i]: the reader accepts 'weight', the page does not name it",
    ]


def test_the_version_2_keys_are_those_the_instance_reader_refuses_in_version_1() -> None:
    tables = key_tables(section(REFERENCE.read_text(encoding="utf-8"), "instance"))
    marked = {
        (t.heading.strip("`").removesuffix("[i]"), key)
        for t in tables
        for row in t.rows
        if "version 2" in row.cells["meaning"]
        for key in row.keys
    }
    assert marked == set(VERSION_2_KEYS)


# --- the examples -----------------------------------------------------------------------------


def _examples(anchor: str) -> list[str]:
    found = examples(section(REFERENCE.read_text(encoding="utf-8"), anchor))
    assert len(found) == 1, anchor
    return [found[0][1]]


def test_the_instance_and_schedule_examples_read_and_the_schedule_is_feasible() -> None:
    (instance_text,) = _examples("instance")
    (schedule_text,) = _examples("schedule")
    instance = instance_from_dict(json.loads(instance_text))
    schedule = schedule_from_dict(json.loads(schedule_text))
    report = validate(instance, schedule)
    assert report.feasible and report.objective == 21 and report.warnings == ()
    assert schedule.instance == instance.name == "one-read"


def test_the_csv_examples_read(tmp_path: Path) -> None:
    (workload,) = _examples("request-trace")
    requests = workload_from_csv(workload).requests
    assert [(r.id, r.kind, r.file.id) for r in requests] == [
        ("r2", "write", "f1"),
        ("r3", "read", "f1"),
        ("r4", "read", "old7"),
    ]
    (trace,) = _examples("ecmwf-trace")
    path = tmp_path / "trace.csv"
    path.write_text(trace)
    assert [(r.cartridge, r.arrival_s) for r in read_requests(path)] == [
        ("CB1172", 0.0),
        ("WB2950", 3.0),
        ("WB1695", 7.0),
    ]
    (log,) = _examples("request-log")
    path.write_text(log)
    assert [
        (r.cartridge, r.time_s, r.block, r.size_mb, r.kind)
        for r in request_log.read_request_log(path).requests
    ] == [
        ("CB1172", 3.0, 1200, 52.4288, "read"),
        ("WB2950", 0.0, None, None, "write"),
    ]
    (results,) = _examples("resultscsv")
    rows = results_file.read_results_csv(results)
    assert [(r.x, r.estimate.mean, r.estimate.saturated) for r in rows] == [
        (60.0, 412.5, False),
        (120.0, None, True),
    ]


def test_the_json_examples_read(tmp_path: Path) -> None:
    (load,) = _examples("load-file")
    read = load_from_dict(json.loads(load))
    assert [c.name for c in read.classes] == ["small", "large"]
    assert read.drive.name == "3590*" and read.drive.rate_mb_s == 20
    (recall,) = _examples("recall-file")
    files = recall_file.recall_from_dict(json.loads(recall)).files
    assert [(f.id, f.block) for f in files] == [("a", 300000), ("b", 1000)]
    (layout_text,) = _examples("library-layout")
    layout = layout_from_dict(json.loads(layout_text))
    assert [(lv.id, lv.slots, lv.drives) for lv in layout.levels] == [
        (0, 3, ("D_00_00", "D_00_01")),
        (1, 2, ("D_01_00",)),
    ]
    (site_text,) = _examples("site")
    site = site_from_dict(json.loads(site_text))
    assert [d.id for d in site.drives][-3:] == ["lib0-d15", "x1", "x2"]
    assert (site.cartridge_count, site.slots, site.placement.unlisted_format) == (
        3002,
        3750,
        "T10000D",
    )
    (sweep_text,) = _examples("sweep-file")
    sweep_file = tmp_path / "sweep.json"
    sweep_file.write_text(sweep_text)
    swept = read_sweep_file(sweep_file)
    assert swept.vary == (("drives", (8, 12)), ("mount-policy", ("lru", "at-once")))
    assert (swept.columns, swept.limit) == ((("time", "ts"),), 2000)
    (homes,) = _examples("cartridge-map")
    assert homes_from_dict(json.loads(homes), layout) == {"CB1172": 0, "WB2950": 1, "WB1695": 0}
