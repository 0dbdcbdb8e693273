"""Golubchik, Muntz and Watson's striping study (1994, Section 5) as experiments.

Beside the Blue Waters experiments (:mod:`tapesched.studies.blue_waters.figures`), these run the
Ampex library of their Section 5 table (``instances/scenarios/golubchik/
ampex.json``) under their service discipline (the ``golubchik`` scheduler,
:mod:`simulator.schedulers.golubchik`), three request classes of probability 1/3 each,
and sweep the arrival rate (requests per minute, as the paper) with one
series per *striping vector*: the stripe widths ``w_1 w_2 w_3`` of the
classes, named as the paper names them (``"111"`` unstriped, ``"122"``,
``"444"``). The metrics are the mean response time (arrival to the end of
the data; the paper's measure), beside the drive utilisation (the paper's
Figures 9, 11 and 13, drawn as a second panel) and the arm's.

- ``gol-fig8``, ``gol-fig10``, ``gol-fig12``: small (1, 2, 3 GB), medium
  (2, 4, 6 GB) and large (4, 8, 12 GB) classes (Figures 8-13);
- ``gol-fig14``: the map of the best vector (lowest mean response among
  the points not saturated) over the arrival rate and a factor on the
  small classes' sizes (x0.25 to x6: 0.25-0.75 GB to 6-18 GB; ``--quick``
  x0.25 to x4), each cell labelled with its vector (Figure 14).

Chosen here (the paper gives neither its points nor its horizons): the
vectors of a full run are the 20 whose widths do not decrease with the
class's size (a larger file is never striped over fewer tapes than a
smaller one; they hold every curve the paper draws, 333 included);
``--quick`` runs the six the paper discusses most (111, 112, 122, 222, 333,
444) over fewer rates and shorter horizons. A replication of ``--quick``
simulates 4 days, of a full run 20 days, the first tenth a warm-up.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from tapesched.instances import shipped
from tapesched.simulator.schedulers.registry import GOLUBCHIK
from tapesched.studies.sweeps.study import DAY_S, Axis, Study
from tapesched.studies.sweeps.swept_study import SweptStudy

SCENARIO_FILE = shipped("scenarios", "golubchik", "ampex.json")
"""The Ampex library of the paper's Section 5 table, three classes of 1/3 each."""

RATE_PER_MIN = Axis("rate_per_min", "arrival rate (requests/min)", "rate_per_s", 1 / 60)
"""The paper's x: requests per minute."""

METRICS = (
    "mean_response_s",
    "drive_busy_share_over_horizon",
    "arm_busy_share_over_horizon",
)
"""What a striping study reports: the response time (judged for precision), then utilisations."""

PAPER_VECTORS = ("111", "112", "122", "222", "333", "444")
"""The vectors the paper's Figures 8-15 discuss most: ``--quick``'s series."""

MONOTONE_VECTORS = tuple(
    "".join(str(w) for w in v) for v in combinations_with_replacement(range(1, 5), 3)
)
"""Every vector of K = 4 drives and J = 3 classes whose widths do not decrease (20)."""


def _figure(
    name: str,
    figure: str,
    sizes_gb: tuple[float, float, float],
    rates: tuple[float, ...],
    quick_rates: tuple[float, ...],
) -> Study:
    label = "/".join(f"{s:g}" for s in sizes_gb)
    return Study(
        name,
        f"Response time against arrival rate per striping vector, {label} GB classes",
        figure,
        f"{label} GB",
        RATE_PER_MIN,
        rates,
        quick_rates,
        MONOTONE_VECTORS,
        20 * DAY_S,
        4 * DAY_S,
        log_y=True,
        scenario_file=SCENARIO_FILE,
        scheduler=GOLUBCHIK,
        class_sizes_mb=tuple(s * 1000.0 for s in sizes_gb),
        quick_series=PAPER_VECTORS,
        metrics=METRICS,
        y_label="average response time (s)",
    )


GOL_FIG8 = SweptStudy(
    _figure(
        "gol-fig8",
        "Figures 8-9",
        (1, 2, 3),
        (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8),
        (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6),
    )
)

GOL_FIG10 = SweptStudy(
    _figure(
        "gol-fig10",
        "Figures 10-11",
        (2, 4, 6),
        (0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5),
        (0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5),
    )
)

GOL_FIG12 = SweptStudy(
    _figure(
        "gol-fig12",
        "Figures 12-13",
        (4, 8, 12),
        (0.0125, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3),
        (0.0125, 0.025, 0.05, 0.1, 0.15, 0.2, 0.28),
    )
)

GOL_FIG14 = SweptStudy(
    Study(
        "gol-fig14",
        "The best striping vector over arrival rate and request size (x 1/2/3 GB)",
        "Figure 14",
        "x 1/2/3 GB",
        RATE_PER_MIN,
        (0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.3),
        (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0),
        MONOTONE_VECTORS,
        20 * DAY_S,
        4 * DAY_S,
        scenario_file=SCENARIO_FILE,
        scheduler=GOLUBCHIK,
        class_sizes_mb=(1000.0, 2000.0, 3000.0),
        scales=(0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0),
        quick_scales=(0.25, 0.5, 1.0, 2.0, 4.0),
        quick_series=PAPER_VECTORS,
        metrics=METRICS,
        y_label="size factor on the 1/2/3 GB classes",
        kind="map",
    )
)
