"""Golubchik, Muntz & Watson's library (1994) as a seeded instance of the core problem.

"Analysis of striping techniques in robotic storage libraries" simulates one
library of ``K`` drives serving ``J`` classes of requests, each class a size
striped over a fixed number of tapes, arriving as a Poisson process.
:func:`golubchik_instance` lays it out; the drive and arm parameters of the
paper's two technologies are in :data:`TECHNOLOGIES`. Its random choices go
through a :class:`~tapesched.toolkit.generators.Chooser`, as the random
instances' do (:mod:`tapesched.toolkit.generators`), so that the same seed gives
the same instance and :mod:`tapesched.toolkit.strategies` can run the same code
over Hypothesis' ``draw``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tapesched.toolkit.generators import (
    Chooser,
    RandomChooser,
    arrival_problems,
    draw_releases,
    place_piece,
)
from tapesched.toolkit.hardware.technology import (
    GOLUBCHIK_LIBRARIES,
    LIBRARIES,
    MB_PER_GB,
    LibraryTechnology,
    required,
)
from tapesched.toolkit.model import (
    OBJECTIVES,
    Drive,
    Instance,
    Library,
    Request,
    Tape,
)

TECHNOLOGIES: dict[str, LibraryTechnology] = {name: LIBRARIES[name] for name in GOLUBCHIK_LIBRARIES}
"""The two library technologies of Golubchik et al. (1994), keyed by name.

Their figures and sources are those of the one table, :mod:`toolkit.hardware.technology`.
The paper's times map to the core problem as follows: an arm move
(``mount_s``, ``dismount_s``) is the robot load or unload; ``load_s`` is the
drive load; the core problem's fixed ``unload_s`` is the rewind of half a
tape plus the eject, since the paper assumes half a tape is searched and
rewound per request; ``locate_mb_s`` makes a locate over half a tape take
the paper's half-tape search time.
"""


def _weighted_index(choose: Chooser, weights: Sequence[float]) -> int:
    u = choose.real(0.0, sum(weights))
    acc = 0.0
    for j, w in enumerate(weights):
        acc += w
        if u < acc:
            return j
    return max(j for j, w in enumerate(weights) if w > 0)


def build_golubchik(
    choose: Chooser,
    name: str,
    *,
    n_requests: int,
    technology: str,
    drives: int,
    arms: int,
    tapes: int | None,
    sizes_gb: Sequence[float],
    widths: Sequence[int],
    probabilities: Sequence[float],
    arrival_rate_per_s: float,
    objective: str,
) -> Instance:
    """Build the instance of :func:`golubchik_instance` from the choices of ``choose``."""
    tech = TECHNOLOGIES.get(technology)
    if tech is None:
        known = ", ".join(TECHNOLOGIES)
        raise ValueError(f"technology: must be one of {known}, got {technology!r}")
    n_tapes = required(tech.tapes, f"{technology} tapes") if tapes is None else tapes
    problems: list[str] = arrival_problems(n_requests, arrival_rate_per_s)
    if problems:  # refused whole before anything else is looked at
        raise ValueError("invalid Golubchik instance: " + "; ".join(problems))
    if n_requests < 0:
        problems.append(f"n_requests: must be >= 0, got {n_requests}")
    if drives < 1 or arms < 1 or n_tapes < 1:
        problems.append(f"drives, arms, tapes: must be >= 1, got {drives}, {arms}, {n_tapes}")
    if not len(sizes_gb) == len(widths) == len(probabilities) >= 1:
        problems.append("sizes_gb, widths, probabilities: must have one entry per class")
    if any(p < 0 for p in probabilities) or not sum(probabilities) > 0:
        problems.append("probabilities: must be >= 0 with a positive sum")
    for j, (s, w) in enumerate(zip(sizes_gb, widths, strict=False)):
        if not 1 <= w <= min(drives, n_tapes):
            problems.append(f"widths[{j}]: must be in 1..{min(drives, n_tapes)}, got {w}")
        elif not 0 < s * MB_PER_GB / w <= tech.drive.capacity_mb:
            problems.append(f"sizes_gb[{j}]: a stripe of {s} GB / {w} does not fit a tape")
    if not 0 < arrival_rate_per_s < math.inf:
        problems.append(f"arrival_rate_per_s: must be > 0, got {arrival_rate_per_s}")
    if objective not in OBJECTIVES:
        problems.append(f"objective: must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if problems:
        raise ValueError("invalid Golubchik instance: " + "; ".join(problems))

    library = Library(id="L0", arms=arms, mount_s=tech.mount_s, dismount_s=tech.dismount_s)
    drive_tech = tech.drive
    drive_list = tuple(
        Drive(
            id=f"d{k}",
            library="L0",
            rate_mb_s=drive_tech.rate_mb_s,
            load_s=drive_tech.load_s,
            unload_s=drive_tech.unload_s,
            locate_mb_s=drive_tech.locate_mb_s,
        )
        for k in range(drives)
    )
    tape_list = tuple(
        Tape(id=f"T{k}", library="L0", capacity_mb=drive_tech.capacity_mb) for k in range(n_tapes)
    )
    releases = draw_releases(choose, n_requests, 0.0, arrival_rate_per_s)
    requests: list[Request] = []
    for i, release in enumerate(releases):
        j = _weighted_index(choose, probabilities)
        size_mb = sizes_gb[j] * MB_PER_GB
        chosen = choose.sample(tape_list, widths[j])
        requests.append(
            Request(
                id=f"r{i}",
                release_s=release,
                weight=MB_PER_GB / size_mb,
                kind="read",
                pieces=tuple(place_piece(choose, t, size_mb / widths[j]) for t in chosen),
            )
        )
    return Instance(
        name=name,
        libraries=(library,),
        drives=drive_list,
        tapes=tape_list,
        requests=tuple(requests),
        objective=objective,
    )


def golubchik_instance(
    n_requests: int = 100,
    *,
    technology: str = "ampex",
    drives: int = 4,
    arms: int = 1,
    tapes: int | None = None,
    sizes_gb: Sequence[float] = (1.0, 2.0, 3.0),
    widths: Sequence[int] = (1, 1, 1),
    probabilities: Sequence[float] = (1 / 3, 1 / 3, 1 / 3),
    arrival_rate_per_s: float = 0.3 / 60,
    seed: int = 0,
    objective: str = "weighted-flow",
    name: str | None = None,
) -> Instance:
    """The library and workload of Golubchik, Muntz & Watson (1994).

    One library ``L0`` of ``drives`` drives and ``arms`` arms with the
    parameters of ``technology`` (see :data:`TECHNOLOGIES`, and
    :mod:`toolkit.hardware.technology` for the numbers and their sources), its tapes empty of
    drives at time 0 (the paper unloads a tape as soon as its transfer ends).
    Requests arrive as a Poisson process of rate ``arrival_rate_per_s``; each
    is of class ``j`` with probability ``probabilities[j]`` (normalised), of
    ``sizes_gb[j]`` GB striped evenly over ``widths[j]`` distinct tapes chosen
    uniformly, each stripe at a uniform offset where it fits, so that on
    average about half a tape is searched, as the paper assumes. The weight is
    ``1 / size in GB``.

    The defaults are the "small request sizes" workload of the paper's
    Figure 8 (three classes of 1, 2 and 3 GB, each of probability 1/3) under
    policy "111" (no striping) on the Ampex library of its Section 5
    simulation (K = 4 drives, one arm). The paper plots Figure 8 against
    arrival rates of about 0.1 to 0.5 (per minute, the unit of its simulation
    table); the default 0.3 per minute lies between its policy switch points.

    Parameters
    ----------
    n_requests
        Number of requests.
    technology
        ``"ampex"`` or ``"exabyte"``.
    drives
        Number of drives K.
    arms
        Number of robot arms R.
    tapes
        Number of tapes; the technology's library size when not given.
    sizes_gb
        Size of each class in GB (1 GB = 1000 MB).
    widths
        Stripe width of each class, in ``1 .. drives``.
    probabilities
        Relative frequency of each class.
    arrival_rate_per_s
        Poisson arrival rate lambda, in requests per second.
    seed
        Seed of the private generator.
    objective
        Objective named in the instance.
    name
        Name of the instance, ``golubchik-<technology>-<seed>`` when not given.

    Raises
    ------
    ValueError
        When a class cannot be laid out: a width outside ``1 .. drives`` or a
        stripe larger than a tape.
    """
    return build_golubchik(
        RandomChooser(seed),
        name or f"golubchik-{technology}-{seed}",
        n_requests=n_requests,
        technology=technology,
        drives=drives,
        arms=arms,
        tapes=tapes,
        sizes_gb=sizes_gb,
        widths=widths,
        probabilities=probabilities,
        arrival_rate_per_s=arrival_rate_per_s,
        objective=objective,
    )


__all__ = ["TECHNOLOGIES", "build_golubchik", "golubchik_instance"]
