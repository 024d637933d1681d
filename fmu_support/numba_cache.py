"""Ship numba's compiled-code cache inside an FMU and make it valid where the FMU is extracted.

numba (`@njit(cache=True)`) keeps compiled functions in `__pycache__/*.nbi|*.nbc` next to the
sources and trusts them only while each source file keeps the modification time and size it
had when they were written. An FMU is unzipped afresh by most hosts, which gives its files new
modification times, so the physics would be compiled again (seconds) in every new process.

tools/build_fmus.py therefore gives every bundled source file the fixed time SOURCE_EPOCH,
runs the slave once (compiling and caching), and ships the cache files; at run time the slave
calls `pin_source_times` on its package before importing it, which restores that time. When
anything does not match (another numba, another CPU, a read-only folder) numba just compiles
again: the cache is an optimisation, never a requirement.
"""
from __future__ import annotations

import os

#: 2000-01-01T00:00:00Z: the modification time of every source file bundled in an FMU.
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


def running_from_fmu(script_file: str) -> bool:
    """True when `script_file` is a slave script inside an extracted FMU's resources folder."""
    return os.path.exists(os.path.join(os.path.dirname(os.path.abspath(script_file)), "slavemodule.txt"))
