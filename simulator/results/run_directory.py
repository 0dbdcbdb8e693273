"""A scenario's run and its directory: what ``tapesched simulate SCENARIO --out DIR`` writes.

:func:`scenario_run` runs every replication of a scenario
(:func:`~simulator.results.replications.run_scenario`) and gives a :class:`Run`;
:meth:`Run.write` writes its directory, the same files, byte for byte, as
the command line:

- ``summary.json`` (:meth:`Run.summary`, also what ``--json`` prints): each
  replication's metrics and their 95 % intervals;
- ``requests.csv`` (:meth:`Run.requests_csv`): a record per request of the
  first replication, the columns :data:`RECORD_COLUMNS`;
- ``events.jsonl``: the first replication's event log
  (:mod:`simulator.run.event_log`), when it was kept;
- ``instance.json`` and ``schedule.json``: the first replication as a
  core-problem instance and schedule (:mod:`simulator.results.export`), checked
  by the validator, when every time of the run is fixed (else
  :attr:`Run.not_exported` says why).

:func:`simulate_file` is the whole of ``tapesched simulate`` but its printing: a
scenario file read, the user's settings put in place of the file's and checked
(:func:`~simulator.results.replications.with_overrides`), and run; or a core-problem
instance file run as it is (:func:`~simulator.results.instance_run.run_instance`).

The directory appears whole, or not at all (:mod:`toolkit.files.outputs`):
it is built aside and moved into place, an existing one is replaced only if
it holds nothing but :data:`RUN_FILES`, and nothing is written when the
exported schedule is infeasible.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Mapping
from functools import cached_property

from attrs import asdict, frozen

from tapesched.simulator.results.export import RANDOM_TIMES, ExportError, export
from tapesched.simulator.results.instance_run import InstanceRun, run_instance
from tapesched.simulator.results.records import Estimate
from tapesched.simulator.results.replications import (
    Replication,
    RunOverrides,
    override,
    run_scenario,
    with_overrides,
)
from tapesched.simulator.scenario.document import Scenario
from tapesched.simulator.schedulers.registry import BW_MAIN
from tapesched.simulator.workload.workload import Workload, striping_label
from tapesched.toolkit.files.instance_file import save_instance
from tapesched.toolkit.files.json_documents import dumps, write_atomic
from tapesched.toolkit.files.outputs import DirectoryOutput, directory_output, write_file
from tapesched.toolkit.files.schedule_file import save_schedule
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.validator import Report, validate

RUN_FILES = ("summary.json", "requests.csv", "events.jsonl", "instance.json", "schedule.json")
"""What a run directory holds: an existing directory holding only these may be replaced."""

RECORD_COLUMNS = (
    "id", "kind", "file", "size_mb", "arrival_s", "start_s", "end_s", "free_s",
    "drives", "tapes", "host_mb", "mounts", "alone_s", "restarts", "rebuilt",
)  # fmt: skip
"""Columns of ``requests.csv`` (:class:`simulator.results.records.RequestRecord` fields)."""


@frozen
class Exported:
    """The first replication as a core-problem instance and schedule, and the validator's
    report on them."""

    instance: Instance
    schedule: Schedule
    report: Report


@frozen
class Run:
    """Every replication of a scenario, the metrics over them, and the first one's event log.

    Attributes
    ----------
    scenario
        The scenario run (with the settings that replaced its own).
    replications
        Each replication, by seed (the first keeps its records).
    estimates
        Each metric of :data:`simulator.results.records.METRICS` over the replications.
    events
        The first replication's event log, one JSON object a line (``None``: not kept).
    """

    scenario: Scenario
    replications: tuple[Replication, ...]
    estimates: Mapping[str, Estimate]
    events: bytes | None = None

    def summary(self) -> dict[str, object]:
        """The ``summary.json`` document.

        Keys: ``scenario``, ``policy``, ``scheduler`` (with ``bw-main``,
        ``bw_main``: its parameters), (with request classes) ``striping``, the
        widths as Golubchik et al. name them (``"122"``), ``rate_per_h``,
        ``duration_s``; ``replications``, one
        :class:`simulator.results.records.RunSummary` mapping per replication
        (seed, arrivals, completions, backlog, ``saturated`` and each metric,
        ``null`` where it cannot be measured); ``estimates``, each metric of
        :data:`simulator.results.records.METRICS` as
        :meth:`simulator.results.records.Estimate.to_dict` gives it (``mean``,
        ``half_width_95``, ``n``, ``degrees_of_freedom``, ``wider_than_mean``,
        ``missing``: why there is no mean); with a scenario's ``disk_cache``,
        ``disk_cache``, per replication the reads it served from disk and each
        service class's figures (:meth:`simulator.storage.disk_cache.ClassReport.to_dict`:
        hit rate, mean residency of the files evicted, the fill lifetime); with
        faults, ``faults`` (the fault model) and ``failed_requests``, each
        replication's failed requests with their reasons.
        """
        scenario, runs = self.scenario, self.replications
        bw_main = {}
        if scenario.run.scheduler == BW_MAIN:
            bw_main = {"bw_main": asdict(scenario.run.bw_main)}
        striping = {}
        if scenario.workload.classes:
            striping = {"striping": striping_label(scenario.workload.classes)}
        return {
            "scenario": scenario.name,
            "policy": scenario.policy,
            "scheduler": scenario.run.scheduler,
            **bw_main,
            **striping,
            "rate_per_h": scenario.workload.rate_per_s * 3600,
            "duration_s": scenario.workload.duration_s,
            "replications": [r.summary.to_dict() for r in runs],
            "estimates": {name: e.to_dict() for name, e in self.estimates.items()},
            **self._cache_document(),
            **self._faults_document(),
        }

    def _faults_document(self) -> dict[str, object]:
        """``faults``: the fault model, and each replication's failed requests with their
        reasons."""
        if self.scenario.faults is None:
            return {}
        failed = [r.failed for r in self.replications]
        return {
            "faults": asdict(self.scenario.faults),
            "failed_requests": [[asdict(f) for f in run] for run in failed],
        }

    def _cache_document(self) -> dict[str, object]:
        """``disk_cache``: each replication's reads served from disk and its classes' figures."""
        runs = self.replications
        if not runs or self.scenario.disk_cache is None:
            return {}
        return {
            "disk_cache": [
                {"served_from_disk": r.served_from_disk, "classes": list(r.cache_classes)}
                for r in runs
            ]
        }

    def requests_csv(self) -> str:
        """The ``requests.csv`` text: a header of :data:`RECORD_COLUMNS`, then a row per
        request the first replication completed (drives and tapes joined by spaces)."""
        rows = io.StringIO()
        writer = csv.writer(rows, lineterminator="\n")
        writer.writerow(RECORD_COLUMNS)
        for r in self.replications[0].records:
            row = {name: getattr(r, name) for name in RECORD_COLUMNS}
            row["drives"], row["tapes"] = " ".join(r.drives), " ".join(r.tapes)
            writer.writerow(row.values())
        return rows.getvalue()

    @cached_property
    def _export(self) -> Exported | ExportError:
        try:
            first = self.replications[0].simulation
            if first is None:  # dropped: its times were drawn at random (run_scenario)
                raise ExportError(RANDOM_TIMES)
            instance, schedule = export(first, name=self.scenario.name)
        except ExportError as exc:
            return exc
        return Exported(instance, schedule, validate(instance, schedule))

    @property
    def exported(self) -> Exported | None:
        """The first replication as an instance and schedule with the validator's report
        (``None``: it cannot be exported, :attr:`not_exported`). Made once, when first asked."""
        found = self._export
        return None if isinstance(found, ExportError) else found

    @property
    def not_exported(self) -> str | None:
        """Why the first replication cannot be exported (``None``: it can)."""
        found = self._export
        return str(found) if isinstance(found, ExportError) else None

    def write(self, directory: str | os.PathLike[str] | DirectoryOutput) -> None:
        """Write the run directory (see the module), whole or not at all.

        Parameters
        ----------
        directory
            Where: a path (an existing directory is replaced only if it
            holds nothing but :data:`RUN_FILES`), or a directory output
            checked already (``tapesched simulate --out``).

        Raises
        ------
        simulator.results.export.ExportError
            When the exported schedule is infeasible: nothing is written.
        toolkit.errors.InputError
            When the directory may not be replaced, or cannot be written.
        """
        if not isinstance(directory, DirectoryOutput):
            directory = directory_output(os.fspath(directory), RUN_FILES, None)
        exported = self.exported
        if exported is not None and not exported.report.feasible:
            raise ExportError(
                f"the exported schedule is infeasible; nothing written to {directory.given}"
            )
        with directory.building() as staging:
            write_atomic(staging / "summary.json", dumps(self.summary()))
            write_atomic(staging / "requests.csv", self.requests_csv())
            if self.events is not None:
                write_file(staging / "events.jsonl", self.events)
            if exported is not None:
                save_instance(exported.instance, staging / "instance.json")
                save_schedule(exported.schedule, staging / "schedule.json")


def scenario_run(
    scenario: Scenario,
    *,
    workload: Workload | None = None,
    log: bool = False,
    progress: Callable[[int, float], None] | None = None,
) -> Run:
    """Every replication of ``scenario``, as :func:`~simulator.results.replications.run_scenario`
    runs them, with the first one's event log when ``log``.

    ``workload`` is a trace every replication runs to its end (the
    scenario's own is drawn from each seed otherwise); ``progress(k, now)``
    is called as replication ``k`` advances.
    """
    events = io.BytesIO() if log else None
    runs, estimates = run_scenario(scenario, workload=workload, log=events, progress=progress)
    return Run(scenario, tuple(runs), estimates, None if events is None else events.getvalue())


@frozen
class RunProgress:
    """How far a run of :func:`simulate_file` is: replication ``replication`` (from 0) of
    ``replications``, at ``now_s`` of its ``duration_s`` simulated seconds."""

    replication: int
    replications: int
    now_s: float
    duration_s: float

    @property
    def done_s(self) -> float:
        """Simulated seconds run so far, over every replication."""
        return self.replication * self.duration_s + self.now_s

    @property
    def total_s(self) -> float:
        """Simulated seconds of the whole run."""
        return self.replications * self.duration_s


def simulate_file(
    path: str,
    settings: RunOverrides | None = None,
    *,
    workload_file: str | None = None,
    allow_plugins: bool = False,
    log: bool = False,
    progress: Callable[[RunProgress], None] | None = None,
    site: str | None = None,
) -> Run | InstanceRun:
    """Run the scenario of ``path``, or the core-problem instance of ``path`` as it is.

    Parameters
    ----------
    path
        A scenario file (:mod:`simulator.scenario.document`) or an instance file.
    settings
        What replaces the scenario's own settings
        (:class:`~simulator.results.replications.RunOverrides`); an instance reads only
        its ``scheduler`` (``fifo`` when not given) and ``mount_policy``.
    workload_file
        A CSV trace of file requests (:mod:`simulator.workload.requests_csv`) that every
        replication runs to its end instead of the scenario's workload; the duration is
        then the last arrival (or ``settings.duration_s``).
    allow_plugins
        Whether the code the scenario file names may be imported
        (:mod:`simulator.scenario.consent`).
    log
        Keep the (first replication's) event log.
    progress
        Called as the run advances (not for an instance).
    site
        A site file (:mod:`toolkit.site`) whose platform replaces the scenario's
        (:func:`simulator.site.platform.on_site`: the scenario's ``dismount`` kept, the
        site's disk cache where the scenario has none); not for an instance.

    Returns
    -------
    Run | simulator.results.instance_run.InstanceRun
        The scenario's replications, or the instance's schedule and verdict; either
        writes its directory (``write``).

    Raises
    ------
    toolkit.errors.InputError
        For a file that cannot be read or breaks its format (the site's too), code the
        scenario names that may not be imported, a trace that does not fit the scenario, or
        a scenario that cannot run on the site (a write that fits no mover of it).
    toolkit.errors.SettingsError
        For a setting that cannot be used (:func:`~simulator.results.replications.with_overrides`).
    """

    from tapesched.simulator.scenario.document import FORMAT, scenario_from_dict
    from tapesched.simulator.scenario.spec import check_trace
    from tapesched.simulator.workload.requests_csv import load_workload
    from tapesched.toolkit.errors import InputError, Problem, SettingProblem, SettingsError
    from tapesched.toolkit.files.instance_file import instance_from_dict
    from tapesched.toolkit.files.json_documents import kind_of, read_json
    from tapesched.toolkit.model import INSTANCE_FORMAT
    from tapesched.toolkit.site.reader import read_site

    settings = RunOverrides() if settings is None else settings
    document = read_json(path)
    kind = kind_of(document)
    if kind == "instance":
        if site is not None:
            why = "an instance runs on its own drives: a site replaces a scenario's platform"
            raise SettingsError([SettingProblem(("site",), why)])
        instance = instance_from_dict(document, path)
        scheduler = settings.scheduler or "fifo"
        return run_instance(instance, scheduler, mount_policy=settings.mount_policy, log=log)
    if isinstance(document, dict) and "format" in document and kind != "scenario":
        raise InputError(path, [Problem("format", f"expected {FORMAT!r} or {INSTANCE_FORMAT!r}")])
    scenario = scenario_from_dict(document, path, None if site is None else read_site(site))
    traced = workload_file is not None
    scenario = with_overrides(scenario, path, settings, allow_plugins=allow_plugins, trace=traced)
    trace = None
    if workload_file is not None:
        trace = load_workload(workload_file)
        unfit = check_trace(scenario, trace)
        if unfit:
            raise InputError(workload_file, unfit)
        last = max(r.arrival_s for r in trace.requests)
        scenario = override(scenario, duration_s=settings.duration_s or max(last, 1.0))
    advance = None
    if progress is not None:
        report = progress
        span_s, count = scenario.workload.duration_s, scenario.run.replications

        def advance(k: int, now_s: float) -> None:
            report(RunProgress(k, count, now_s, span_s))

    return scenario_run(scenario, workload=trace, log=log, progress=advance)
