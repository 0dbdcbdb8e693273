"""The Blue Waters paper's experiments (Section 6, Figures 5-11), each a swept :class:`Study`.

Each is an experiment of the registry (:data:`tapesched.studies.registry.EXPERIMENTS`,
``bw-fig5`` ... ``bw-fig11``): the shipped ``blue-waters.json`` with a size range, a
fixed rate and block size, and the one setting its x changes; a series per
archival policy. What the paper does not give (the x values, the horizons) is
chosen as :mod:`tapesched.studies.sweeps.study` says.
"""

from __future__ import annotations

from tapesched.studies.sweeps.study import (
    DAY_S,
    LOG_RATE,
    MIN_LB_INTERVAL,
    RATE,
    WEEK_S,
    Axis,
    Study,
)
from tapesched.studies.sweeps.swept_study import SweptStudy

POLICIES = ("rait", "parallel", "vertical")
"""The archival policies every figure compares (Figure 11 adds HETERO)."""

BW_FIG5 = SweptStudy(
    Study(
        "bw-fig5",
        "RAIT block size B against weighted response time, 1 GB-1 TB files at 180/h",
        "Figure 5",
        "gb-tb",
        Axis("block_mb", "block size B (MB)", "block_mb", log=True),
        (1, 4, 16, 64, 192, 512, 1024, 2048, 4096, 8192),
        (1, 16, 192, 8192),
        POLICIES,
        4 * WEEK_S,
        2 * DAY_S,
        rate_per_h=180,
    )
)

BW_FIG6 = SweptStudy(
    Study(
        "bw-fig6",
        "Weighted response time against arrival rate, small files (10 MB-1 GB)",
        "Figure 6",
        "small",
        RATE,
        (200, 400, 600, 800, 1000, 1200, 1500, 2000, 3000, 4000, 5000, 6000),
        (400, 800, 1200, 2000, 4000, 6000),
        POLICIES,
        2 * WEEK_S,
        1 * DAY_S,
        block_mb=16,
    )
)

BW_FIG7 = SweptStudy(
    Study(
        "bw-fig7",
        "Weighted response time against arrival rate, medium files (1-100 GB)",
        "Figure 7",
        "medium",
        RATE,
        (50, 100, 200, 300, 400, 600, 800, 1200, 1600, 2400),
        (100, 200, 400, 800, 1600),
        POLICIES,
        4 * WEEK_S,
        2 * DAY_S,
        block_mb=256,
    )
)

BW_FIG8 = SweptStudy(
    Study(
        "bw-fig8",
        "Weighted response time against arrival rate, large files (1-100 TB)",
        "Figure 8",
        "large",
        RATE,
        (0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0),
        (0.1, 0.5, 1.0, 1.5, 2.0),
        POLICIES,
        26 * WEEK_S,
        4 * WEEK_S,
        block_mb=8192,
    )
)

BW_FIG9 = SweptStudy(
    Study(
        "bw-fig9",
        "EC compression ratio C_P against weighted response time, C_D = 3, at 65/h",
        "Figure 9",
        "gb-tb",
        Axis("ec_ratio", "EC compression ratio C_P (x)", "ec_ratio"),
        (1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0),
        (1.0, 2.0, 3.0),
        POLICIES,
        8 * WEEK_S,
        4 * DAY_S,
        rate_per_h=65,
        log_y=False,
        data_ratio=(3.0, 3.0),
    )
)

BW_FIG10 = SweptStudy(
    Study(
        "bw-fig10",
        "Load balancer period MINLBINTERVAL against weighted response time, at 65/h",
        "Figure 10",
        "gb-tb",
        Axis("min_lb_interval_d", "MINLBINTERVAL (days)", MIN_LB_INTERVAL, DAY_S, log=True),
        (0.5, 1, 3, 6, 12, 24, 48),
        (1, 6, 24),
        POLICIES,
        26 * WEEK_S,
        8 * WEEK_S,
        rate_per_h=65,
    )
)

BW_FIG11 = SweptStudy(
    Study(
        "bw-fig11",
        "HETERO against each single policy, 10 MB-10 TB files, by arrival rate",
        "Figure 11",
        "mixed",
        LOG_RATE,
        (0.003, 0.01, 0.03, 0.1, 0.3, 0.6, 1, 3, 7, 10, 30),
        (0.1, 0.3, 1, 3, 10),
        ("hetero", *POLICIES),
        26 * WEEK_S,
        12 * WEEK_S,
        block_mb=512,
    )
)
