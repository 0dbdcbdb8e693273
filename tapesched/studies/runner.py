"""Run an experiment, and write what it gives: the one writer of every experiment's directory.

:func:`run_experiment` runs any :class:`~tapesched.studies.experiment.Experiment`, the
project's or a user's, by name, ``module.path:Class`` or the object itself: each
parameter takes the value given, else its ``--quick`` or full one; the experiment's
points are made and checked, run, turned into results, and the directory is
written by :func:`write_results`, whole or not at all (built aside and moved into
place, :class:`toolkit.files.outputs.DirectoryOutput`): ``results.csv``
(:mod:`tapesched.studies.results_file`), ``summary.json``, ``figure.png`` and the
experiment's other files. ``tapesched experiment NAME`` is this function with the
experiment's parameters as options (:mod:`tapesched.cli.archives.experiment`), and so is
``tapesched.run_experiment`` from Python::

    import tapesched

    results = tapesched.run_experiment("bw-fig6", "out/bw-fig6", quick=True, workers=1)
    print(results.rows[0])
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tapesched.studies.experiment import (
    OUT_FILES,
    Experiment,
    ExperimentError,
    ExperimentRun,
    Results,
    Show,
    Wide,
)
from tapesched.studies.registry import experiment_plugins, find_experiment
from tapesched.studies.results_file import results_csv
from tapesched.toolkit.files.json_documents import dumps, write_atomic
from tapesched.toolkit.files.outputs import DirectoryOutput, directory_output
from tapesched.toolkit.plots.figures import render
from tapesched.toolkit.runtime.plugin_calls import guarded

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def out_files(experiment: Experiment) -> tuple[str, ...]:
    """What ``experiment`` writes to its directory: :data:`OUT_FILES` and its own outputs."""
    return (*OUT_FILES, *experiment.outputs)


def run_experiment(
    experiment: str | Experiment,
    out: str | DirectoryOutput | None = None,
    *,
    quick: bool = False,
    show: Show | None = None,
    **values: object,
) -> Results:
    """Run ``experiment`` and write its directory ``out``; its results.

    Parameters
    ----------
    experiment
        A name of :data:`~tapesched.studies.registry.EXPERIMENTS`, ``module.path:Class``
        (:func:`~tapesched.studies.registry.find_experiment`), or an experiment.
    out
        The directory to write, checked first (``None``: none is written).
    quick
        Take each parameter's ``--quick`` value where none is given.
    show
        Where the run reports as it goes (default: nowhere, warnings on standard error).
    **values
        The parameters given, by name (``None``: not given).

    Raises
    ------
    ExperimentError
        For settings the experiment cannot run with (an unknown parameter, a bad
        value, a clash), one line each; nothing is run nor written.
    toolkit.errors.InputError
        For a file it reads that cannot be used, or a directory that may not be written.
    toolkit.registry.LoadError
        When ``experiment`` names none.
    toolkit.runtime.plugin_calls.PluginError
        When a user's experiment fails while it runs.
    """
    found = find_experiment(experiment) if isinstance(experiment, str) else experiment
    known = {p.name: p for p in found.parameters}
    unknown = [name for name in values if name not in known]
    if unknown:
        listed = ", ".join(known)
        raise ExperimentError(
            [f"{name}: not a parameter of {found.name} (it has {listed})" for name in unknown]
        )
    missing = [p.option for p in known.values() if p.required and values.get(p.name) is None]
    if missing:
        raise ExperimentError([f"{option}: required, and missing" for option in missing])
    target = directory_output(out, out_files(found)) if isinstance(out, str) else out
    run = ExperimentRun(
        found.name,
        quick,
        {name: p.value(values.get(name), quick) for name, p in known.items()},
        out=None if target is None else target.given,
        show=show or Show(),
    )
    with guarded(experiment_plugins(found)):
        points = found.points(run)
        began = time.perf_counter()
        outcomes = found.run_points(points, run)
        results = found.results(run, outcomes, time.perf_counter() - began)
        for item in results.report:
            if isinstance(item, Wide):
                run.show.render(item)
            else:
                run.show.line(item)
        if target is not None:
            write_results(target, results, found.figure(results))
            run.show.line(results.ending(target.given))
    return results


def write_results(out: DirectoryOutput, results: Results, figure: Figure) -> None:
    """Write ``results`` and ``figure`` to the directory ``out``, whole or not at all.

    ``results.csv`` (:func:`~tapesched.studies.results_file.results_csv`),
    ``summary.json``, ``figure.png`` and the experiment's other files
    (:attr:`~tapesched.studies.experiment.Results.files`, in folders of their own
    where their path says so).
    """
    with out.building() as staging:
        for name, text in results.files.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
        write_atomic(staging / OUT_FILES[0], results_csv(results.rows, results.columns))
        write_atomic(staging / OUT_FILES[1], dumps(dict(results.summary)))
        (staging / OUT_FILES[2]).write_bytes(render(figure, "png"))
