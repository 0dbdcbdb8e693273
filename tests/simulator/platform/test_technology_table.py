"""The simulator's drive models, scenario drive names and SL8500 timings read the one table."""

from __future__ import annotations

from tapesched.simulator.platform.technology import DRIVE_MODELS, Duration
from tapesched.simulator.replay.sl8500 import SL8500Timings
from tapesched.simulator.scenario.document import load_scenario
from tapesched.toolkit.hardware.technology import DRIVES, LIBRARIES
from tests.conftest import INSTANCES


def test_every_drive_model_is_a_row_of_the_table_with_fixed_times():
    assert list(DRIVE_MODELS) == list(DRIVES)
    for name, model in DRIVE_MODELS.items():
        row = DRIVES[name]
        assert model.name == name and model.source == row.source
        assert (model.rate_mb_s, model.locate_mb_s, model.capacity_mb) == (
            row.rate_mb_s,
            row.locate_mb_s,
            row.capacity_mb,
        )
        assert (model.load_s, model.unload_s) == (Duration(row.load_s), Duration(row.unload_s))


def test_a_scenario_drive_model_name_is_the_tables_row():
    platform = load_scenario(INSTANCES / "scenarios" / "exabyte.json").platform
    library = LIBRARIES["exabyte"]
    assert {d.model for d in platform.drives} == {DRIVE_MODELS[library.drive.name]}
    assert len(platform.drives) == library.drives
    assert platform.libraries[0].arms == library.arms
    assert platform.libraries[0].mount_s == Duration(library.mount_s)


def test_sl8500_timings_default_to_the_tables_sl8500_and_t10000d_rows():
    timings, row = SL8500Timings(), LIBRARIES["SL8500"]
    assert timings.exchange_s == row.mount_s == row.dismount_s
    assert (timings.load_s, timings.unload_s) == (row.drive.load_s, row.drive.unload_s)
    assert row.drive is DRIVES["T10000D"]
    assert DRIVE_MODELS["T10000D"].load_s == Duration(timings.load_s)
    assert (timings.elevator_s, timings.pass_through_s, timings.rails_per_library) == (
        row.elevator_s,
        row.pass_through_s,
        row.rails_per_library,
    )
