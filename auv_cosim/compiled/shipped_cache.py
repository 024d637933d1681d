"""An FMU's own code where the FMU is extracted: its folders joined to the package it carries, and
numba's compiled-code cache it ships made valid there.

Every slave script of a built FMU starts with ``carry_fmu_code(__file__)`` (written there by
the build, auv_cosim/build/carry.py), before it imports anything else of the package:

* The FMU carries the project's code under its build's own package name, and only the modules
  its slave needs. When another FMU of the same build was loaded first into the interpreter,
  the package and some of its subpackages are already imported from that FMU's folder: this
  FMU's folders are added to their ``__path__``, so that a module only this FMU carries is
  found (packages imported later find every FMU's folder through pkgutil's ``extend_path``,
  which the build appends to each carried ``__init__.py``).
* numba (`@njit(cache=True)`) keeps compiled functions in ``__pycache__/*.nbi|*.nbc`` next to
  the sources and trusts them only while each source file keeps the modification time and size
  it had when they were written. An FMU is unzipped afresh by most hosts, which gives its files
  new modification times, so the physics would be compiled again (seconds) in every new
  process. The build gives every carried source the fixed time SOURCE_EPOCH, runs the slave
  once (compiling and caching) and ships the cache files; ``carry_fmu_code`` restores that time
  on the extracted sources. When anything does not match (another numba, another CPU, a
  read-only folder) numba just compiles again: the cache is an optimisation, never a
  requirement.

This module imports nothing of the project: it runs before the rest of the package.
"""
from __future__ import annotations

import os
import sys

#: 2000-01-01T00:00:00Z: the modification time of every source file carried in an FMU.
SOURCE_EPOCH = 946684800


def pin_source_times(package_dir: str) -> None:
    """Set the modification time of every .py file under `package_dir` to SOURCE_EPOCH."""
    for folder, _, files in os.walk(package_dir):
        for name in files:
            if name.endswith(".py"):
                try:
                    os.utime(os.path.join(folder, name), (SOURCE_EPOCH, SOURCE_EPOCH))
                except OSError:
                    pass


def join_package_folders(resources: str, package: str) -> None:
    """Add this FMU's folder of each already imported package of `package` (the package itself
    and its subpackages) to the package's ``__path__``, after the folders it has."""
    for name, module in list(sys.modules.items()):
        if name != package and not name.startswith(package + "."):
            continue
        path = getattr(module, "__path__", None)
        folder = os.path.join(resources, *name.split("."))
        if path is not None and folder not in path and os.path.isdir(folder):
            path.append(folder)


def carry_fmu_code(script_file: str) -> None:
    """What a slave script of a built FMU does first (see the module's docstring)."""
    resources = os.path.dirname(os.path.abspath(script_file))
    package = __name__.partition(".")[0]
    join_package_folders(resources, package)
    if os.path.exists(os.path.join(resources, "slavemodule.txt")):   # extracted: not the build's stage
        pin_source_times(os.path.join(resources, package))
