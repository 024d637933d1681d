"""`FmuError`: a failure whose message is meant for the FMU's user."""
from __future__ import annotations

from pythonfmu.enums import Fmi2Status


class FmuError(Exception):
    """A failure whose message is meant for the FMU's user: it names the variable at fault.
    Under the project's native wrapper the call returns `fmi2_status` with this message."""

    fmi2_status = int(Fmi2Status.error)
