"""``tapesched check``: read an instance, a scenario or a site file and say what it holds, or
every problem.

The file's ``format`` key says what it is: an instance is checked against the
core problem's rules, a scenario against the simulator's (every key it needs,
every bound), a site against the site format's (:mod:`toolkit.site`); a schedule is
refused with a pointer to ``tapesched verify``, which judges a schedule against its
instance.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from tapesched.cli.common import NAME_SHOWN, describe, fail, instance_summary, reports_bad_input
from tapesched.toolkit.errors import shown
from tapesched.toolkit.files.instance_file import instance_from_dict
from tapesched.toolkit.files.json_documents import kind_of, read_json
from tapesched.toolkit.model import SCHEDULE_FORMAT
from tapesched.toolkit.runtime.gc_pause import paused_gc

if TYPE_CHECKING:
    from tapesched.simulator.scenario.spec import Scenario


def scenario_summary(scenario: Scenario) -> dict[str, object]:
    """What a scenario holds (``check --json`` prints it; :func:`describe_scenario` words it)."""
    p, w = scenario.platform, scenario.workload
    return {
        "name": scenario.name,
        "policy": scenario.policy,
        "policy_params": dict(sorted(scenario.policy_params.items())),
        "scheduler": str(scenario.run.scheduler),
        "libraries": len(p.libraries),
        "arms": sum(lib.arms for lib in p.libraries),
        "drives": len(p.drives),
        "movers": len(p.movers),
        "tape_capacity_mb": p.tape_capacity_mb,
        "rate_per_h": w.rate_per_s * 3600,
        "duration_s": w.duration_s,
        "sizes_mb": [w.min_size_mb, w.max_size_mb],
        "schemes": {str(s): share for s, share in w.schemes},
        "replications": scenario.run.replications,
        "seed": scenario.run.seed,
    }


def describe_scenario(scenario: Scenario) -> str:
    """One line saying what a scenario holds (``check`` prints it)."""
    p, w = scenario.platform, scenario.workload
    arms = sum(lib.arms for lib in p.libraries)
    params = ", ".join(f"{k} {v:g}" for k, v in sorted(scenario.policy_params.items()))
    schemes = ", ".join(f"{s} {share:g}" for s, share in w.schemes)
    return (
        f"scenario {shown(scenario.name, NAME_SHOWN)}: policy {scenario.policy}"
        + (f" ({params})" if params else "")
        + f", scheduler {scenario.run.scheduler}, {len(p.libraries)} libraries ({arms} arms), "
        f"{len(p.drives)} drives ({f'{len(p.movers)} movers' if p.movers else 'no movers'}), "
        f"tapes of {p.tape_capacity_mb:,.0f} MB; {w.rate_per_s * 3600:g} requests/h "
        f"for {w.duration_s / 86400:g} d, sizes {w.min_size_mb:g}-{w.max_size_mb:g} MB, "
        f"schemes {schemes}; {scenario.run.replications} replication(s) from seed "
        f"{scenario.run.seed}"
    )


@click.command(short_help="Check an instance, a scenario or a site file.")
@click.argument("instance_file", type=click.Path())
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print what the file holds as JSON: kind, format, then its counts.",
)
@reports_bad_input
def check(instance_file: str, as_json: bool) -> None:
    """Check an instance, a scenario or a site file: exit 0 with a summary, or 2 with every
    problem.

    ``--json`` prints ``{"file", "kind", "format", ...}``: for an instance
    (kind ``instance``) its name, counts of libraries, arms, drives, tapes,
    tapes mounted at time 0 (``initial``), requests, gangs, the widest gang
    and the objective; for a scenario (kind ``scenario``) its name, policy
    and parameters, scheduler, counts of libraries, arms, drives and movers,
    tape capacity, arrival rate per hour, duration, size range, schemes and
    shares, replications and seed; for a site (kind ``site``) its name, counts of
    libraries, arms, drives, drives by model (``drive_models``), cartridges listed, pools,
    their formats, slots, whether it is a complex, the format of unlisted cartridges and
    the seed of hashed homes.
    """
    with paused_gc():
        document = read_json(instance_file)
        kind = kind_of(document)
        if kind == "schedule":
            fail(
                [
                    f"{instance_file}: format: this is a schedule file ({SCHEDULE_FORMAT}); "
                    "check takes an instance, a scenario or a site; "
                    "use tapesched verify INSTANCE SCHEDULE"
                ]
            )
        notes: list[str] = []
        if kind == "site":
            from tapesched.toolkit.site.reader import site_from_dict
            from tapesched.toolkit.site.summary import describe_site, site_summary

            site = site_from_dict(document, instance_file)
            summary, line = site_summary(site), describe_site(site)
        elif kind == "scenario":
            from tapesched.simulator.scenario.document import scenario_from_dict
            from tapesched.simulator.scenario.spec import named_code

            scenario = scenario_from_dict(document, instance_file)
            summary, line = scenario_summary(scenario), describe_scenario(scenario)
            notes = [
                f"note: {path} names code ({shown(spec)}), not imported by check; "
                "a run imports it only with --allow-plugins"
                for path, spec in named_code(scenario)
            ]
        else:
            instance = instance_from_dict(document, instance_file)
            summary, line = instance_summary(instance), describe(instance)
    if as_json:
        head = {"file": instance_file, "kind": kind, "format": document["format"]}
        click.echo(json.dumps({**head, **summary}, indent=1))
    else:
        click.echo(f"ok: {line}")
        for note in notes:
            click.echo(note)
