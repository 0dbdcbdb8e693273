"""The Gantt chart of a feasible schedule: a lane per drive, a lane per arm, the releases.

What is drawn comes from one reading of the schedule, the validator's
(:func:`toolkit.validator.validate` with ``timeline=True``): each drive's
transfers, loads, locates and unloads as the validator timed them when it
checked the rules (drive operations at the earliest time the rules allow;
see :mod:`toolkit.validator`), and the arm operations at the times the
schedule gives. Nothing is timed again here.

A schedule names the drive of each arm operation but not the arm, so the
operations of each library are put on its arms greedily (:func:`assign_arms`:
in start order, each on the lowest-numbered arm free then), which a
feasible schedule always allows, and the chart says so.

:func:`gantt_lanes` gives the lanes as data (what the tests check);
:func:`gantt_figure` draws them with matplotlib; :func:`toolkit.plots.figures.render`
turns the figure into PNG or SVG bytes.
"""

from __future__ import annotations

from collections import defaultdict

from attrs import frozen
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.plots.figures import new_figure
from tapesched.toolkit.validator import Report
from tapesched.toolkit.validator.violation import DRIVE_ACTIVITIES, EPS

ARM_ACTIVITIES: tuple[str, ...] = ("mount", "dismount")
"""The kinds of bars of an arm's lane."""

COLOURS: dict[str, str] = {
    "transfer": "#4c78a8",
    "load": "#54a24b",
    "locate": "#f58518",
    "unload": "#e45756",
    "mount": "#b279a2",
    "dismount": "#9d755d",
}
"""The colour of each kind of bar (drive and arm activities), the legend's order."""

ARMS_NOTE = "arms assigned greedily (a schedule does not name the arm of an operation)"
"""What the chart and the command say about the arm lanes."""

CHARACTERS_ACROSS = 130
"""About how many characters of a bar's label (7 points) fill the width of the time axis."""

DENSE_BARS = 500
"""Above this many bars, they are drawn without edges (which would hide the bars)."""


@frozen
class ArmActivity:
    """An arm operation of the schedule (its index ``operation``) on arm ``arm`` (from 1)."""

    kind: str
    library: str
    arm: int
    tape: str
    drive: str
    start_s: float
    end_s: float
    operation: int


@frozen
class Bar:
    """One interval of a lane: its kind (a colour), its times and its label (may be empty)."""

    kind: str
    start_s: float
    end_s: float
    label: str = ""


@frozen
class Lane:
    """A row of the chart: a drive (``d0``) or an arm (``L0 arm 1``) and its bars in time order."""

    name: str
    bars: tuple[Bar, ...]


def assign_arms(instance: Instance, schedule: Schedule) -> tuple[ArmActivity, ...]:
    """Put each arm operation on an arm of its drive's library, greedily.

    In order of start (then end, then file order), each operation goes on
    the lowest-numbered arm that is free when it starts (an arm is free from
    the end of its last operation, to :data:`~toolkit.validator.violation.EPS`, as the
    validator counts arms). A feasible schedule never has more operations at
    once than arms, so one is always free; for any other, the arm that frees
    first is taken, so that the result is still defined.

    Returns
    -------
    tuple of ArmActivity
        One per operation whose drive the instance knows, in the order placed.
    """
    drive_by_id = instance.drive_by_id
    per_library: dict[str, list[int]] = defaultdict(list)
    for index, op in enumerate(schedule.operations):
        drive = drive_by_id.get(op.drive)
        if drive is not None:
            per_library[drive.library].append(index)
    placed: list[ArmActivity] = []
    ops = schedule.operations
    for library in instance.libraries:
        free_at = [0.0] * library.arms
        order = sorted(per_library[library.id], key=lambda i: (ops[i].start_s, ops[i].end_s, i))
        for index in order:
            op = ops[index]
            arm = next(
                (k for k, t in enumerate(free_at) if t <= op.start_s + EPS),
                min(range(library.arms), key=free_at.__getitem__),
            )
            free_at[arm] = max(free_at[arm], op.end_s)
            placed.append(
                ArmActivity(
                    op.op, library.id, arm + 1, op.tape, op.drive, op.start_s, op.end_s, index
                )
            )
    return tuple(placed)


def arm_lane_name(library: str, arm: int, one_library: bool) -> str:
    """``arm 1``, or ``L0 arm 1`` when the instance has several libraries."""
    return f"arm {arm}" if one_library else f"{library} arm {arm}"


def gantt_lanes(instance: Instance, schedule: Schedule, report: Report) -> tuple[Lane, ...]:
    """The chart's lanes: every drive (instance order), then every arm of every library.

    Parameters
    ----------
    instance, schedule
        The instance and the schedule drawn.
    report
        The validator's report of ``schedule`` made with ``timeline=True``: its
        :attr:`~toolkit.validator.Report.activities` are the drives' bars.

    Returns
    -------
    tuple of Lane
        A drive's bars are its transfers (labelled by request id), loads,
        locates and unloads; an arm's, its mounts and dismounts (labelled
        ``tape→drive`` and ``tape←drive``).
    """
    of_drive: dict[str, list[Bar]] = defaultdict(list)
    for a in report.activities:
        label = a.request if a.kind == "transfer" and a.request is not None else ""
        of_drive[a.drive].append(Bar(a.kind, a.start_s, a.end_s, label))
    of_arm: dict[tuple[str, int], list[Bar]] = defaultdict(list)
    for op in assign_arms(instance, schedule):
        arrow = "→" if op.kind == "mount" else "←"
        bar = Bar(op.kind, op.start_s, op.end_s, f"{op.tape}{arrow}{op.drive}")
        of_arm[(op.library, op.arm)].append(bar)
    one_library = len(instance.libraries) == 1
    lanes = [Lane(d.id, tuple(sorted(of_drive[d.id], key=_when))) for d in instance.drives]
    for library in instance.libraries:
        for arm in range(1, library.arms + 1):
            bars = tuple(sorted(of_arm[(library.id, arm)], key=_when))
            lanes.append(Lane(arm_lane_name(library.id, arm, one_library), bars))
    return tuple(lanes)


def _when(bar: Bar) -> tuple[float, float]:
    return (bar.start_s, bar.end_s)


def releases(instance: Instance) -> tuple[tuple[float, str], ...]:
    """Each release time and the ids of the requests released then (``r1, r4``), in time order."""
    at: dict[float, list[str]] = defaultdict(list)
    for request in instance.requests:
        at[request.release_s].append(request.id)
    return tuple((t, ", ".join(ids)) for t, ids in sorted(at.items()))


def gantt_figure(
    instance: Instance, schedule: Schedule, report: Report, name: str | None = None
) -> Figure:
    """Draw the chart of a feasible schedule (see the module documentation).

    The lanes of :func:`gantt_lanes` from top to bottom under a lane of the
    releases (a marker at each release time, labelled by request id), bars
    coloured by kind (:data:`COLOURS`), transfers labelled by request id and
    arm operations by tape and drive, the time axis in seconds, a legend of
    every kind and a note saying how arms were assigned. A label is drawn
    where it fits (:func:`fits`), so that a chart of thousands of requests
    stays readable; on a small one every bar has its label.

    Parameters
    ----------
    name
        What the schedule is called in the title (its file's name), before
        the instance's name and the objective.
    """
    lanes = gantt_lanes(instance, schedule, report)
    rows = len(lanes) + 1
    end = max((bar.end_s for lane in lanes for bar in lane.bars), default=0.0)
    span = max(end, *(request.release_s for request in instance.requests), 1.0)
    dense = sum(len(lane.bars) for lane in lanes) > DENSE_BARS
    figure = new_figure(10.0, min(1.8 + 0.42 * rows, 40.0))
    axes = figure.add_subplot()
    for kind in (*DRIVE_ACTIVITIES, *ARM_ACTIVITIES):
        placed = [
            (y, bar) for y, lane in enumerate(lanes, 1) for bar in lane.bars if bar.kind == kind
        ]
        if not placed:
            continue
        axes.barh(
            [y for y, _ in placed],
            [bar.end_s - bar.start_s for _, bar in placed],
            left=[bar.start_s for _, bar in placed],
            height=0.6,
            color=COLOURS[kind],
            edgecolor="none" if dense else "black",
            linewidth=0.4,
        )
        for y, bar in placed:
            if bar.label and fits(bar.label, bar.end_s - bar.start_s, span):
                middle = (bar.start_s + bar.end_s) / 2
                axes.text(middle, y, bar.label, ha="center", va="center", fontsize=7)
    _draw_releases(axes, instance, span)
    axes.set_yticks(range(rows), ["releases", *(lane.name for lane in lanes)])
    axes.set_ylim(rows - 0.5, -0.6)
    axes.set_xlabel("time (s)")
    axes.set_xlim(-0.015 * span, 1.015 * span)
    axes.grid(True, axis="x", alpha=0.3)
    what = f"{name} on {instance.name}" if name else instance.name
    axes.set_title(f"{what}: {objective_text(report)}", fontsize=10, loc="left")
    axes.annotate(
        ARMS_NOTE,
        xy=(1.0, 0.0),
        xycoords="axes fraction",
        xytext=(0, -24),
        textcoords="offset points",
        ha="right",
        va="top",
        fontsize=7,
        color="dimgray",
    )
    handles: list[Artist] = [
        Patch(facecolor=COLOURS[k], edgecolor="black", label=k) for k in COLOURS
    ]
    handles.append(Line2D([], [], marker="v", linestyle="", color="black", label="release"))
    figure.legend(handles=handles, loc="outside upper center", ncols=len(handles), fontsize=8)
    return figure


def objective_text(report: Report) -> str:
    """``weighted-flow 19.1767``: the recomputed objective to 6 figures (whole above a million)."""
    value = report.objective
    if value is None:
        return f"{report.objective_name} unknown"
    shown = f"{value:,.0f}" if abs(value) >= 1e6 else f"{value:.6g}"
    return f"{report.objective_name} {shown}"


def fits(label: str, width_s: float, span_s: float) -> bool:
    """Whether ``label`` fits in ``width_s`` of a time axis ``span_s`` long (at
    :data:`CHARACTERS_ACROSS` characters of the labels' size across the axis)."""
    return width_s * CHARACTERS_ACROSS >= len(label) * span_s


def _draw_releases(axes: Axes, instance: Instance, span_s: float) -> None:
    """A marker at each release time on the top lane, with the ids released then.

    Labels go left to right, each where it clears the one before (:func:`fits`).
    """
    marks = releases(instance)
    axes.plot([t for t, _ in marks], [0] * len(marks), "v", color="black", markersize=6)
    clear_from = -span_s
    for t, ids in marks:
        half = len(ids) * span_s / CHARACTERS_ACROSS / 2
        if t - half >= clear_from:
            axes.text(t, -0.25, ids, ha="center", va="bottom", fontsize=7)
            clear_from = t + half
