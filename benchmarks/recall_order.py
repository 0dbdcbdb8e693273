"""The exact recall orderer against SLTF and offset order on 100, 300 and 1,000 files.

One full LTO-7 tape (:data:`toolkit.hardware.technology.TAPE_FORMATS`, addressed by
byte offset) holds 1 GB files end to end, as BNL's small-file tape; each
size draws that many of them at random (seeded: random spacing) and orders
them with ``offset``, ``sltf`` and ``exact`` under CTA's cost heuristic,
from the beginning of the tape. For each it prints the estimated locate time
(the reads are the same for every order), the gain over offset order, the
exact orderer's status and lower bound, and each orderer's wall-clock time.
``exact`` runs CP-SAT's circuit up to
:data:`solvers.recall_order.CP_SAT_MAX_FILES` files and the routing solver
beyond.

Run with ``make bench`` or ``.venv/bin/python benchmarks/recall_order.py``
(``--sizes 100,300,1000``, ``--time-limit 60``; ``--quick``: a 10 s limit).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from tapesched.solvers.recall_order import exact_order, offset_order, sltf_order
from tapesched.toolkit.hardware.tape_geometry import CtaCostHeuristic, SerpentineTape, TapeFile
from tapesched.toolkit.hardware.technology import TAPE_FORMATS

FILE_BYTES = 1_000_000_000
"""Size of each file (BNL's small files)."""


def files_on_tape(tape: SerpentineTape, n: int, seed: int) -> list[TapeFile]:
    """``n`` of the tape's back-to-back 1 GB files, drawn at random, in a random request order."""
    slots = (tape.last_block + 1) // FILE_BYTES
    rng = np.random.default_rng(seed)
    chosen = rng.choice(slots, size=n, replace=False)
    return [TapeFile(f"f{int(s)}", int(s) * FILE_BYTES, FILE_BYTES) for s in chosen]


def main(argv: list[str] | None = None) -> int:
    """Print one row per size; exit 1 if ``exact`` were ever worse than ``sltf`` or ``offset``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,300,1000")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true", help="a 10 s limit for exact")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    limit = 10.0 if args.quick else args.time_limit
    tape = SerpentineTape.full(TAPE_FORMATS["LTO-7"])
    model = CtaCostHeuristic()
    print(
        f"full LTO-7 tape, 1 GB files at random, CTA cost heuristic, exact limit {limit:g} s "
        "(shared 2-core machine)"
    )
    print(
        f"{'files':>6} {'offset locates s':>17} {'sltf locates s':>15} {'exact locates s':>16} "
        f"{'bound s':>9} {'status':>9} {'sltf gain':>10} {'exact gain':>11} "
        f"{'sltf wall s':>12} {'exact wall s':>13}"
    )
    worse = False
    for n in (int(s) for s in args.sizes.split(",")):
        files = files_on_tape(tape, n, args.seed)
        offset = offset_order(tape, model, 0, files)
        sltf = sltf_order(tape, model, 0, files)
        exact = exact_order(tape, model, 0, files, time_limit_s=limit)
        reads = exact.time_s - exact.locate_s
        bound = (exact.lower_bound_s or 0.0) - reads
        worse |= exact.time_s > min(sltf.time_s, offset.time_s) + 1e-9
        print(
            f"{n:>6} {offset.locate_s:>17.1f} {sltf.locate_s:>15.1f} {exact.locate_s:>16.1f} "
            f"{bound:>9.1f} {exact.status:>9} "
            f"{offset.time_s / sltf.time_s - 1:>10.1%} {offset.time_s / exact.time_s - 1:>11.1%} "
            f"{sltf.solve_s:>12.2f} {exact.solve_s:>13.2f}"
        )
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
