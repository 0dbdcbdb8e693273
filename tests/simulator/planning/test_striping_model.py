"""The closed forms of Golubchik et al.'s Section 3, against the paper's own Ampex numbers."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tapesched.simulator.planning.striping_model import (
    LibraryTimes,
    no_load_best_width,
    service_s,
    stability_limit_per_s,
    vector_no_load_response_s,
    vector_stability_limit_per_s,
)

AMPEX = LibraryTimes(
    load_s=33, rewind_eject_s=14, mount_s=10, dismount_s=10, rate_mb_s=12.5, drives=4
)
"""The paper's Section 3 example: C = 47 s, L = 20 s, T = 80 s a GB, K = 4."""

GB = 1000.0


def test_the_papers_ampex_example_1_gb_costs_147_s_striped_or_not():
    assert (AMPEX.drive_s, AMPEX.arm_s, AMPEX.transfer_s(GB)) == (47, 20, 80)
    assert service_s(AMPEX, GB, 1) == service_s(AMPEX, GB, 4) == 147


def test_the_papers_stability_limits_4_over_147_against_1_over_147_and_2_14_at_4_gb():
    assert stability_limit_per_s(AMPEX, GB, 1) == pytest.approx(4 / 147)
    assert stability_limit_per_s(AMPEX, GB, 4) == pytest.approx(1 / 147)
    ratio = stability_limit_per_s(AMPEX, 4 * GB, 1) / stability_limit_per_s(AMPEX, 4 * GB, 4)
    assert ratio == pytest.approx(2.14, abs=0.005)


@pytest.mark.parametrize(("size_mb", "width"), [(100, 1), (GB, 2), (2 * GB, 3), (4 * GB, 4)])
def test_the_no_load_width_minimises_l_s_plus_t_over_s(size_mb, width):
    assert no_load_best_width(AMPEX, size_mb) == width


def test_one_class_vectors_are_the_single_class_forms():
    assert vector_no_load_response_s(AMPEX, [GB], [1.0], [3]) == service_s(AMPEX, GB, 3)
    assert vector_stability_limit_per_s(AMPEX, [GB], [1.0], [2]) == pytest.approx(
        stability_limit_per_s(AMPEX, GB, 2)
    )


def test_a_mix_weighs_its_classes():
    got = vector_no_load_response_s(AMPEX, [GB, 2 * GB], [0.25, 0.75], [1, 2])
    assert got == pytest.approx(0.25 * 147 + 0.75 * (47 + 40 + 80))


@pytest.mark.parametrize(
    "build",
    [
        lambda: LibraryTimes(-1, 0, 0, 0, 1, 1),
        lambda: LibraryTimes(0, 0, 0, 0, 0, 1),
        lambda: LibraryTimes(0, 0, 0, 0, 1, 0),
        lambda: LibraryTimes(0, 0, 0, 0, 1, 1, arms=0),
        lambda: service_s(AMPEX, GB, 0),
        lambda: service_s(AMPEX, GB, 5),
        lambda: vector_no_load_response_s(AMPEX, [GB], [0.5], [1]),
        lambda: vector_no_load_response_s(AMPEX, [GB, GB], [0.5, 0.5], [1]),
    ],
)
def test_bad_values_are_refused(build):
    with pytest.raises(ValueError):
        build()


times = st.builds(
    LibraryTimes,
    load_s=st.floats(0, 300),
    rewind_eject_s=st.floats(0, 300),
    mount_s=st.floats(0, 60),
    dismount_s=st.floats(0, 60),
    rate_mb_s=st.floats(0.1, 500),
    drives=st.integers(1, 12),
)


@given(times, st.floats(1, 1e6))
def test_striping_never_raises_the_heavy_load_limit(library, size_mb):
    unstriped = stability_limit_per_s(library, size_mb, 1)
    for width in library.widths():
        assert stability_limit_per_s(library, size_mb, width) <= unstriped * (1 + 1e-12)


@given(times, st.floats(1, 1e6))
def test_the_no_load_width_is_the_least_service(library, size_mb):
    best = service_s(library, size_mb, no_load_best_width(library, size_mb))
    assert all(best <= service_s(library, size_mb, w) for w in library.widths())
    assert math.isfinite(best)
