"""Recall orderers of one's own: by name, from ``module.path:Attr`` and from an entry point.

The plug-in reads the files backwards, so that its order is seen in what
``tapesched order`` prints.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.solvers.recall_order import request_order
from tapesched.solvers.registry import (
    ORDERER_GROUP,
    ORDERERS,
    OrdererSpecError,
    UnknownOrdererError,
    resolve_orderer,
)
from tests.conftest import INSTANCES, dist_info

MODULE = "tapesched_test_orderers"

PLUGS = '''
from tapesched.solvers.recall_order import RecallOrder
from tapesched.toolkit.hardware.tape_geometry import order_time_s


def backwards(tape, model, head_block, files, *, time_limit_s=0.0):
    """The files in the reverse of the order given."""
    order = tuple(reversed(range(len(files))))
    total = order_time_s(tape, model, head_block, files, order)
    reads = sum(f.read_s(tape) for f in files)
    return RecallOrder("backwards", order, total, total - reads)


not_an_orderer = 3
'''

LTO7 = str(INSTANCES / "recall" / "lto7-files.json")


@pytest.fixture
def plugs(plug_module: Callable[[str, str], Path]) -> Path:
    """The module :data:`MODULE`, importable, and a package declaring ``backwards``."""
    site = plug_module(MODULE, PLUGS)
    dist_info(site, "more-orderers", ORDERER_GROUP, {"backwards": f"{MODULE}:backwards"})
    return site


def order(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["order", LTO7, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_the_orderers_are_found_by_name():
    assert ORDERERS.names() == ("none", "offset", "sltf", "exact")
    assert resolve_orderer("none") is request_order
    assert resolve_orderer(request_order) is request_order
    with pytest.raises(UnknownOrdererError) as caught:
        resolve_orderer("zz")
    assert str(caught.value) == (
        "unknown recall orderer 'zz'; known: none, offset, sltf, exact; or give module.path:Attr"
    )
    code, stdout, err = order("--algorithm", "zz")
    assert (code, stdout) == (2, "")
    assert err == "--algorithm: 'zz' is not one of 'none', 'offset', 'sltf', 'exact'.\n"


def test_an_orderer_from_module_path_orders_the_files(plugs):
    assert resolve_orderer(f"{MODULE}:backwards") is sys.modules[MODULE].backwards
    code, stdout, err = order("--algorithm", f"{MODULE}:backwards", "--json")
    assert code == 0, err
    _, given, _ = order("--algorithm", "none", "--json")
    assert json.loads(stdout)["order"] == json.loads(given)["order"][::-1]
    with pytest.raises(OrdererSpecError, match=r"^tapesched_test_orderers:not_an_orderer: a int "):
        resolve_orderer(f"{MODULE}:not_an_orderer")


def test_an_installed_orderer_is_a_choice_of_the_command(plugs):
    assert ORDERERS.known() == ("none", "offset", "sltf", "exact", "backwards")
    result = CliRunner().invoke(main, ["order", "--help"])
    assert "[none|offset|sltf|exact|backwards]" in result.stdout
    code, by_name, err = order("--algorithm", "backwards", "--json")
    assert code == 0, err
    _, by_module, _ = order("--algorithm", f"{MODULE}:backwards", "--json")
    assert json.loads(by_name)["order"] == json.loads(by_module)["order"]
    assert json.loads(by_name)["algorithm"] == "backwards"


def test_a_broken_installed_orderer_is_one_line_of_bad_input(plugs):
    dist_info(plugs, "broken-orderers", ORDERER_GROUP, {"gone": "tapesched_no_such_module:f"})
    code, stdout, err = order("--algorithm", "gone")
    assert (code, stdout) == (2, "")
    assert err == (
        "--algorithm: gone: cannot load the entry point tapesched_no_such_module:f of "
        "broken-orderers 1.0: ModuleNotFoundError: No module named 'tapesched_no_such_module'\n"
    )
