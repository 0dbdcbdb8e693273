"""What a swept study reports: the rows of ``results.csv``, ``summary.json``, its table.

``results.csv`` (:func:`result_rows`) has one row per point, series and
metric: the metric's mean and 95 % half-width over the point's replications
(empty when there is none: a saturated point has no mean, a single
replication no interval), the replications run and whether the point is
saturated (:mod:`tapesched.studies.results_file` writes it).

``summary.json`` (:func:`summary_document`) holds the settings, every
point's estimates per series and, when x is the arrival rate, each
series' maximum sustainable rate (:func:`max_sustainable_rate`).

:func:`report` is what the terminal shows: a table of every point, each
series' maximum sustainable rate, a map's best series per cell. The figure
is :mod:`tapesched.studies.sweeps.figure`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.table import Table

from tapesched.studies.experiment import Wide
from tapesched.studies.results_file import ResultRow
from tapesched.studies.sweeps.study import Study
from tapesched.studies.sweeps.sweep import PointResult, Precision


def by_series(results: Sequence[PointResult]) -> dict[str, list[PointResult]]:
    """The results grouped by series, in the order series and points first appear."""
    grouped: dict[str, list[PointResult]] = {}
    for result in results:
        grouped.setdefault(result.point.series, []).append(result)
    return grouped


def result_rows(study: Study, results: Sequence[PointResult]) -> list[ResultRow]:
    """The rows of ``results.csv``: a row per point, series and metric of ``study.metrics``."""
    return [
        ResultRow(study.name, r.point.series, study.axis.name, r.point.x, metric, estimate)
        for r in results
        for metric, estimate in ((m, r.estimates[m]) for m in study.metrics)
    ]


def max_sustainable_rate(results: Sequence[PointResult]) -> float | None:
    """The highest x (an arrival rate) of one series' points that is not saturated; ``None``
    when every point is."""
    kept = [r.point.x for r in results if not r.saturated]
    return max(kept) if kept else None


def lowest_saturated_rate(results: Sequence[PointResult]) -> float | None:
    """The lowest x of one series' points that is saturated; ``None`` when none is.

    Beside :func:`max_sustainable_rate`: a saturated point below the highest
    sustained one says that the two disagree (the replications are too few or
    too short to tell near the limit).
    """
    saturated = [r.point.x for r in results if r.saturated]
    return min(saturated) if saturated else None


def summary_document(
    study: Study,
    results: Sequence[PointResult],
    settings: Mapping[str, object],
    precision: Precision,
) -> dict[str, object]:
    """The ``summary.json`` document.

    Keys: ``experiment``, ``title``, ``figure``; ``settings`` (``settings``
    given, and the precision sought); ``series``, per series its
    ``points`` (``x``, ``replications``, ``saturated``, ``seeds`` and each
    metric of :data:`simulator.results.records.METRICS` as
    :meth:`simulator.results.records.Estimate.to_dict` gives it) and, when x is the
    arrival rate, ``max_sustainable_rate_per_h`` and
    ``lowest_saturated_rate_per_h`` (``..._rate_per_min`` where x is per
    minute); for a map (``gol-fig14``), ``best``: the best series at each
    size factor and x (:func:`best_map`).
    """
    series: dict[str, object] = {}
    for name, group in by_series(results).items():
        entry: dict[str, object] = {
            "points": [
                {
                    "x": r.point.x,
                    "replications": len(r.runs),
                    "saturated": r.saturated,
                    "seeds": list(r.seeds),
                    "estimates": {k: e.to_dict() for k, e in r.estimates.items()},
                }
                for r in group
            ]
        }
        if study.axis.is_rate:
            entry[f"max_sustainable_{study.axis.name}"] = max_sustainable_rate(group)
            entry[f"lowest_saturated_{study.axis.name}"] = lowest_saturated_rate(group)
        series[name] = entry
    extra: dict[str, object] = {}
    if study.kind == "map":
        extra["best"] = [
            {"scale": scale, "x": x, "vector": vector}
            for (scale, x), vector in sorted(best_map(results).items())
        ]
    return {
        **extra,
        "experiment": study.name,
        "title": study.title,
        "figure": study.figure,
        "settings": {
            **settings,
            "x_name": study.axis.name,
            "x_label": study.axis.label,
            "series": list(study.series),
            "precision": {
                "metric": precision.metric,
                "half_width_share": precision.share,
                "min_replications": precision.min_replications,
                "max_replications": precision.max_replications,
            },
        },
        "series": series,
    }


def metric_rows(
    results: Sequence[PointResult], metric: str, *, experiment: str = "", x_name: str = "x"
) -> list[ResultRow]:
    """The rows of ``metric``, a point each, in the order of ``results`` (what a figure of
    ``metric`` draws)."""
    return [
        ResultRow(experiment, r.point.series, x_name, r.point.x, metric, r.estimates[metric])
        for r in results
    ]


def _best_points(rows: Sequence[ResultRow]) -> dict[float, str]:
    """At each x, the series of lowest mean among the points not saturated."""
    best: dict[float, tuple[float, str]] = {}
    for row in rows:
        mean = row.estimate.mean
        if row.estimate.saturated or mean is None:
            continue
        if row.x not in best or mean < best[row.x][0]:
            best[row.x] = (mean, row.series)
    return {x: name for x, (_, name) in sorted(best.items())}


def best_by_x(results: Sequence[PointResult], metric: str) -> dict[float, str]:
    """At each x, the series with the lowest mean of ``metric`` among those not saturated
    (an x where every series is saturated has none)."""
    return _best_points(metric_rows(results, metric))


def split_series(name: str) -> tuple[str, float]:
    """A map's series name (``"122 x2"``) as its vector and size factor (``1`` without one)."""
    vector, _, factor = name.partition(" x")
    return vector, float(factor) if factor else 1.0


def best_cells(rows: Sequence[ResultRow]) -> dict[tuple[float, float], str]:
    """For each (size factor, x) of a map's rows, the best vector."""
    by_scale: dict[float, list[ResultRow]] = {}
    for row in rows:
        by_scale.setdefault(split_series(row.series)[1], []).append(row)
    out: dict[tuple[float, float], str] = {}
    for scale, group in by_scale.items():
        for x, name in _best_points(group).items():
            out[(scale, x)] = split_series(name)[0]
    return out


def best_map(
    results: Sequence[PointResult], metric: str = "mean_response_s"
) -> dict[tuple[float, float], str]:
    """For each (size factor, x) of a map, the best vector (:func:`best_by_x` per factor)."""
    return best_cells(metric_rows(results, metric))


HEADINGS = {
    "mean_weighted_response_s_per_gb": "weighted response (s/GB)",
    "mean_response_s": "response (s)",
    "drive_busy_share_over_horizon": "drive utilisation",
    "arm_busy_share_over_horizon": "arm utilisation",
    "mean_stretch": "stretch",
    "throughput_mb_s_over_window": "throughput (MB/s)",
}
"""The table's heading of each metric a study reports (:attr:`Study.metrics`)."""


def _cell(result: PointResult, metric: str) -> str:
    """A metric's mean ± 95 % half-width, or why there is none."""
    if result.saturated:
        return "saturated"
    e = result.estimates[metric]
    if e.mean is None:
        return e.reason
    return f"{e.mean:.4g}" if e.half_width is None else f"{e.mean:.4g} ± {e.half_width:.2g}"


def report(study: Study, results: Sequence[PointResult]) -> list[str | Wide]:
    """What the terminal shows of a sweep: a table, a row per point; then, over arrival
    rates, each series' maximum sustainable rate, and on a map the best series per cell."""
    metrics = study.metrics
    table = Table(title=f"{study.name} ({study.figure}): {study.title}; mean ± 95 % half-width")
    table.add_column("series")
    table.add_column(study.axis.name, justify="right")
    for metric in metrics:
        table.add_column(HEADINGS.get(metric, metric), justify="right")
    table.add_column("replications", justify="right")
    for r in results:
        table.add_row(
            r.point.series,
            f"{r.point.x:g}",
            *(_cell(r, m) for m in metrics),
            str(len(r.runs)),
        )
    shown: list[str | Wide] = [Wide(table, 120)]
    if study.axis.is_rate:
        for name, group in by_series(results).items():
            rate = max_sustainable_rate(group)
            unit = study.axis.name.removeprefix("rate_per_")
            said = "none (every rate saturated)" if rate is None else f"{rate:g} requests/{unit}"
            shown.append(f"{name}: maximum sustainable rate {said}")
    if study.kind == "map":
        for (scale, x), vector in sorted(best_map(results, metrics[0]).items()):
            shown.append(f"sizes x{scale:g}, {study.axis.name} {x:g}: best {vector}")
    return shown
