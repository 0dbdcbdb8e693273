"""``tapesched order``: the order to read files from one mounted tape, and its estimated time.

Reads a recall file (:mod:`toolkit.files.recall_file`: the tape as a CTA site
knows it, or a technology and byte offsets), orders its files with a recall
orderer of :data:`solvers.registry.ORDERERS` (the project's, of
:mod:`solvers.recall_order`, an installed package's, or ``module.path:Attr``)
under a locate model of :mod:`toolkit.hardware.tape_geometry`, and prints the
order (each file's wrap, LPOS, locate and read) and the estimated time, as a
table or JSON.
"""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import NumberType, RegistryChoice, fail, reports_bad_input
from tapesched.solvers.registry import ORDERERS, resolve_orderer
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.recall_file import RecallFile, load_recall
from tapesched.toolkit.hardware.tape_geometry import (
    MB,
    CtaCostHeuristic,
    LocateModel,
    PhysicalLocate,
)
from tapesched.toolkit.hardware.technology import TAPE_FORMATS
from tapesched.toolkit.model import LOCATE_MODEL_NAMES
from tapesched.toolkit.runtime.limits import MAX_DENSE_FILES


def _model(name: str, recall: RecallFile, source: str) -> LocateModel:
    """The locate model named ``name`` for the recall file's tape."""
    if name == "cta-lto":
        return CtaCostHeuristic()
    same = [f for f in TAPE_FORMATS.values() if f.wraps == recall.tape.wraps]
    if not same:
        fail([f"{source}: wraps: no technology has {recall.tape.wraps} wraps, and the physical "
              "locate model takes its figures from one; use --locate cta-lto"])  # fmt: skip
    return PhysicalLocate.for_format(same[0])


def _steps(
    recall: RecallFile, model: LocateModel, order: tuple[int, ...]
) -> list[dict[str, object]]:
    tape, head, steps = recall.tape, recall.head_block, []
    for k in order:
        f = recall.files[k]
        steps.append(
            {
                "id": f.id,
                "block": f.block,
                "wrap": int(tape.wrap(f.block)),
                "lpos": int(tape.lpos(f.block)),
                "locate_s": float(model.locate_s(tape, head, f.block)),
                "read_s": f.read_s(tape),
            }
        )
        head = f.end_block(tape)
    return steps


@click.command(short_help="Order the files to read from one mounted tape.")
@click.argument("files_file", metavar="FILES.json", type=click.Path())
@click.option(
    "--algorithm",
    type=RegistryChoice(ORDERERS, specs=True, lazy=True),
    default="sltf",
    show_default=True,
    help="none: request order; offset: block order (ERADAT); sltf: shortest locate first "
    "(CTA); exact: the cheapest order (a TSP path), within --time-limit; or an installed "
    "package's recall orderer, or module.path:Attr.",
)
@click.option(
    "--locate",
    "locate_model",
    type=click.Choice(LOCATE_MODEL_NAMES),
    default="cta-lto",
    show_default=True,
    help="Locate-time model: CTA's LTO cost heuristic, or a physical head model.",
)
@click.option(
    "--time-limit",
    type=NumberType(min=0.01, max=86400.0),
    default=10.0,
    show_default=True,
    help="Seconds the exact orderer may search.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the order and its estimate as JSON.")
@reports_bad_input
def order(
    files_file: str, algorithm: str, locate_model: str, time_limit: float, as_json: bool
) -> None:
    """Order the files of FILES.json, to read from one mounted tape, and estimate the time.

    FILES.json gives the tape as a CTA site knows it (wraps, min_lpos,
    max_lpos, end_of_wrap_blocks, block_bytes, rate_mb_s) and its files (id,
    block, size_bytes), or a technology (LTO-7, LTO-8, LTO-9, TS1150) and
    files with byte offsets. The estimate is every locate plus every read.
    """
    recall = load_recall(files_file)
    if algorithm == "exact" and len(recall.files) > MAX_DENSE_FILES:
        fail([f"{files_file}: files: {len(recall.files):,} files, more than the "
              f"{MAX_DENSE_FILES:,} --algorithm exact orders (its locate matrix grows as n^2); "
              "use --algorithm sltf"])  # fmt: skip
    model = _model(locate_model, recall, files_file)
    orderer = resolve_orderer(algorithm)  # OR-Tools: imported once the input is known good
    result = orderer(recall.tape, model, recall.head_block, recall.files, time_limit_s=time_limit)
    steps = _steps(recall, model, result.order)
    total_mb = sum(f.size_bytes for f in recall.files) / MB
    document = {
        "files_file": files_file,
        "algorithm": algorithm,
        "locate_model": locate_model,
        "files": len(recall.files),
        "head_block": recall.head_block,
        "order": [recall.files[k].id for k in result.order],
        "time_s": result.time_s,
        "locate_s": result.locate_s,
        "read_s": result.time_s - result.locate_s,
        "throughput_mb_s": total_mb / result.time_s if result.time_s > 0 else None,
        "status": result.status,
        "lower_bound_s": result.lower_bound_s,
        "solve_s": result.solve_s,
        "steps": steps,
    }
    if as_json:
        click.echo(dumps(document))
        return
    table = Table(title=f"{algorithm} order, {locate_model} locate model")
    for heading in ("#", "id", "block", "wrap", "lpos", "locate (s)", "read (s)"):
        table.add_column(heading, justify="left" if heading == "id" else "right")
    for rank, step in enumerate(steps, 1):
        cells = [rank, step["id"], step["block"], step["wrap"], step["lpos"]]
        times = [f"{step[key]:.2f}" for key in ("locate_s", "read_s")]
        table.add_row(*(str(c) for c in cells), *times)
    Console(width=120).print(table)
    bound = "" if result.lower_bound_s is None else f", lower bound {result.lower_bound_s:.2f} s"
    click.echo(
        f"{algorithm}: {len(steps)} files, estimated {result.time_s:.2f} s "
        f"(locates {result.locate_s:.2f} s, reads {result.time_s - result.locate_s:.2f} s), "
        f"{document['throughput_mb_s'] or 0:.1f} MB/s; {result.status}{bound}"
    )
