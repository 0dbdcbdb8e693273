"""The one table of drive and library technologies: every figure has its source."""

from __future__ import annotations

import pytest

from tapesched.toolkit.golubchik_instances import TECHNOLOGIES, golubchik_instance
from tapesched.toolkit.hardware.technology import (
    DRIVE_FIGURES,
    DRIVES,
    GOLUBCHIK_LIBRARIES,
    LIBRARIES,
    LIBRARY_FIGURES,
    TAPE_FORMATS,
    DriveTechnology,
    LibraryTechnology,
    is_estimate,
    required,
)


def test_every_figure_of_every_row_names_its_source():
    for name, drive in DRIVES.items():
        assert drive.name == name
        assert set(drive.sources) == set(DRIVE_FIGURES)
        assert all(text.strip() for text in drive.sources.values())
    for name, library in LIBRARIES.items():
        assert library.name == name
        given = {f for f in LIBRARY_FIGURES if getattr(library, f) is not None}
        assert set(library.sources) == given >= {"mount_s", "dismount_s"}
        assert library.drive is DRIVES[library.drive.name]
        assert library.drive.source in library.source


def test_the_rows_the_shipped_files_depend_on():
    assert {"LTO-7", "T10000D", "TS1160", "ampex", "exabyte", "3590"} <= set(DRIVES)
    assert list(LIBRARIES)[:3] == ["ampex", "exabyte", "SL8500"]
    old = {n: DRIVES[n] for n in ("LTO-7", "T10000D", "TS1160", "3590")}
    assert {n: (d.rate_mb_s, d.capacity_mb, d.load_s, d.unload_s, d.half_tape_locate_s)
            for n, d in old.items()} == {
        "LTO-7": (300.0, 6e6, 15.0, 20.0, 60.0),
        "T10000D": (252.0, 8.5e6, 13.0, 23.0, 50.0),
        "TS1160": (400.0, 2e7, 13.0, 23.0, 60.0),
        "3590": (9.0, 1e4, 20.0, 20.0, 30.0),
    }  # fmt: skip
    ampex = DRIVES["ampex"]
    assert (ampex.rate_mb_s, ampex.load_s, ampex.unload_s, ampex.locate_mb_s) == (
        12.5,
        5.0,
        17.0,
        500.0,
    )
    sl8500 = LIBRARIES["SL8500"]
    assert (sl8500.mount_s, sl8500.dismount_s, sl8500.drive.name) == (11.0, 11.0, "T10000D")
    assert (sl8500.drive.load_s, sl8500.drive.unload_s) == (13.0, 23.0)


def test_the_current_drives_and_libraries_and_their_default_drives():
    assert {"LTO-8", "LTO-9", "LTO-10", "TS1170"} <= set(DRIVES)
    defaults = {n: LIBRARIES[n].drive.name for n in LIBRARIES if n not in GOLUBCHIK_LIBRARIES}
    assert defaults == {
        "SL8500": "T10000D",
        "TS4500": "LTO-9",
        "TS4300": "LTO-9",
        "SL3000": "T10000D",
        "TFinity": "LTO-9",
        "Scalar-i6000": "LTO-9",
    }
    assert LIBRARIES["TS4500"].mount_s == 3.0 and not is_estimate(
        LIBRARIES["TS4500"].sources["mount_s"]
    )
    assert is_estimate(LIBRARIES["TFinity"].sources["dismount_s"])
    lto10 = DRIVES["LTO-10"]
    assert (lto10.rate_mb_s, lto10.capacity_mb, lto10.load_s, lto10.unload_s) == (
        400.0,
        30e6,
        12.0,
        27.0,
    )
    assert is_estimate(DRIVES["TS1170"].sources["load_s"])
    assert not is_estimate(DRIVES["TS1170"].sources["capacity_mb"])


def test_a_drive_and_its_tape_format_agree():
    for name in set(DRIVES) & set(TAPE_FORMATS):
        drive, fmt = DRIVES[name], TAPE_FORMATS[name]
        assert (drive.capacity_mb, drive.rate_mb_s) == (fmt.capacity_mb, fmt.rate_mb_s)
    assert {"LTO-7", "LTO-8", "LTO-9"} <= set(DRIVES) & set(TAPE_FORMATS)


def test_a_figure_without_a_source_or_a_source_without_a_figure_is_refused():
    row = DRIVES["LTO-7"]
    sources = dict(row.sources)
    del sources["load_s"]
    with pytest.raises(ValueError, match=r"figures without a source \['load_s'\]"):
        DriveTechnology("x", "x", 1.0, 1.0, 1.0, 1.0, 1.0, sources=sources)
    with pytest.raises(ValueError, match=r"sources of no figure \['tapes'\]"):
        LibraryTechnology(
            "x", "x", row, 1.0, 1.0, sources={"mount_s": "a", "dismount_s": "b", "tapes": "c"}
        )


def test_estimates_say_so():
    sl8500 = LIBRARIES["SL8500"].sources
    assert sl8500["elevator_s"].startswith("estimate")
    assert sl8500["pass_through_s"].startswith("estimate")
    t10000d = DRIVES["T10000D"].sources
    assert t10000d["load_s"].startswith("estimate") and t10000d["unload_s"].startswith("estimate")


def test_locates_cross_half_a_tape_in_the_tabled_time():
    for drive in DRIVES.values():
        assert drive.capacity_mb / 2 / drive.locate_mb_s == pytest.approx(drive.half_tape_locate_s)


def test_a_tape_switch_is_unload_dismount_mount_load_in_that_order():
    for library in LIBRARIES.values():
        drive, mount_s, dismount_s = library.drive, library.mount_s, library.dismount_s
        expected = ((drive.unload_s + dismount_s) + mount_s) + drive.load_s
        assert drive.switch_s(mount_s, dismount_s) == expected
    # Added left to right (unload first): the other way round differs in the last bit.
    sources = dict.fromkeys(DRIVE_FIGURES, "a test")
    drive = DriveTechnology("x", "x", 1.0, 1.0, load_s=0.6, unload_s=0.1, half_tape_locate_s=1.0,
                            sources=sources)  # fmt: skip
    assert drive.switch_s(mount_s=0.3, dismount_s=0.2) == 1.2000000000000002
    assert ((0.6 + 0.3) + 0.2) + 0.1 == 1.2


def test_the_generator_reads_the_golubchik_rows():
    assert tuple(TECHNOLOGIES) == GOLUBCHIK_LIBRARIES
    for name in GOLUBCHIK_LIBRARIES:
        row = LIBRARIES[name]
        inst = golubchik_instance(3, technology=name, seed=1)
        lib, drive = inst.libraries[0], inst.drives[0]
        assert (lib.mount_s, lib.dismount_s) == (row.mount_s, row.dismount_s)
        assert (len(inst.drives), lib.arms, len(inst.tapes)) == (row.drives, row.arms, row.tapes)
        assert (drive.rate_mb_s, drive.load_s, drive.unload_s, drive.locate_mb_s) == (
            row.drive.rate_mb_s,
            row.drive.load_s,
            row.drive.unload_s,
            row.drive.locate_mb_s,
        )
        assert {t.capacity_mb for t in inst.tapes} == {row.drive.capacity_mb}


def test_required_refuses_a_figure_the_table_does_not_give():
    assert required(LIBRARIES["SL8500"].elevator_s, "elevator") == 20.0
    with pytest.raises(ValueError, match="gives no ampex elevator_s"):
        required(LIBRARIES["ampex"].elevator_s, "ampex elevator_s")
