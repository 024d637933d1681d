"""Which native wrapper an FMU carries, and so which status its failures return.

The build (auv_cosim/build/) puts the project's wrapper (auv_cosim/build/native/python_fmu.c) into each FMU when a C
compiler is found, else keeps pythonfmu 0.7.0's stock binary; the two report failures
differently (auv_cosim/fmu/slave.py, "Status codes"). Tests that check a status ask here.
"""
from __future__ import annotations

from pathlib import Path

from auv_cosim.build import native_wrapper

OK, WARNING, DISCARD, ERROR, FATAL = 0, 1, 2, 3, 4


def has_native_wrapper(fmu: Path) -> bool:
    return native_wrapper.has_native_wrapper(Path(fmu))


def bad_parameter_status(fmu: Path) -> int:
    """fmi2ExitInitializationMode's status for a bad parameter."""
    return ERROR if has_native_wrapper(fmu) else FATAL


def failed_step_status(fmu: Path) -> int:
    """fmi2DoStep's status for a non-finite input or an integrator failure."""
    return ERROR if has_native_wrapper(fmu) else DISCARD
