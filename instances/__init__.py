"""The data that ships with tapesched: instances, scenarios, load files, traces.

Installed as ``tapesched.instances`` (setup.cfg maps this folder, and lists its files as
package data), so that a regular ``pip install`` carries what the commands read by default:
the Blue Waters and Golubchik scenarios the experiments start from, the ECMWF trace with its
SL8500 layout and cartridge map, the SDSC load. :func:`shipped` finds a file wherever the
package is installed; README.md here says where each file comes from.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["shipped"]


def shipped(*parts: str) -> Path:
    """The path of a shipped file or folder, ``shipped("scenarios", "blue-waters.json")``."""
    return Path(str(files(__name__).joinpath(*parts)))
