"""``tapesched check``: read an instance or a scenario file and say what it holds, or every problem.

The file's ``format`` key says what it is: an instance is checked against the
core problem's rules, a scenario against the simulator's (every key it needs,
every bound); a schedule is refused with a pointer to ``tapesched verify``,
which judges a schedule against its instance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from toolkit.bulk import paused_gc
from toolkit.cli.common import describe, fail, reports_bad_input
from toolkit.io import instance_from_dict, kind_of, read_json
from toolkit.model import SCHEDULE_FORMAT

if TYPE_CHECKING:
    from simulator.scenario import Scenario


def describe_scenario(scenario: Scenario) -> str:
    """One line saying what a scenario holds (``check`` prints it)."""
    p, w = scenario.platform, scenario.workload
    arms = sum(lib.arms for lib in p.libraries)
    params = ", ".join(f"{k} {v:g}" for k, v in sorted(scenario.policy_params.items()))
    schemes = ", ".join(f"{s} {share:g}" for s, share in w.schemes)
    return (
        f"scenario {scenario.name!r}: policy {scenario.policy}"
        + (f" ({params})" if params else "")
        + f", scheduler {scenario.run.scheduler}, {len(p.libraries)} libraries ({arms} arms), "
        f"{len(p.drives)} drives ({f'{len(p.movers)} movers' if p.movers else 'no movers'}), "
        f"tapes of {p.tape_capacity_mb:,.0f} MB; {w.rate_per_s * 3600:g} requests/h "
        f"for {w.duration_s / 86400:g} d, sizes {w.min_size_mb:g}-{w.max_size_mb:g} MB, "
        f"schemes {schemes}; {scenario.run.replications} replication(s) from seed "
        f"{scenario.run.seed}"
    )


@click.command()
@click.argument("instance_file", type=click.Path())
@reports_bad_input
def check(instance_file: str) -> None:
    """Check an instance or a scenario file: exit 0 with a summary, or 2 with every problem."""
    with paused_gc():
        document = read_json(instance_file)
        kind = kind_of(document)
        if kind == "schedule":
            fail(
                [
                    f"{instance_file}: format: this is a schedule file ({SCHEDULE_FORMAT}); "
                    "check takes an instance or a scenario; "
                    "use tapesched verify INSTANCE SCHEDULE"
                ]
            )
        if kind == "scenario":
            from simulator.scenario import scenario_from_dict

            scenario = scenario_from_dict(document, instance_file)
            click.echo(f"ok: {describe_scenario(scenario)}")
            return
        instance = instance_from_dict(document, instance_file)
    click.echo(f"ok: {describe(instance)}")
