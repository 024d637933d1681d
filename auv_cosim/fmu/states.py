"""The FMI 2.0 co-simulation state machine (the standard's section 4.2.4 table), as data.

A slave is in one of five states; the names on the left are the slave's `_phase`, those on the
right the standard's:

    instantiated     Instantiated          after fmi2Instantiate and fmi2Reset
    initialization   Initialization Mode   after fmi2EnterInitializationMode
    stepping         Step Complete         after fmi2ExitInitializationMode and each good step
    terminated       Terminated            after fmi2Terminate
    error            Error                 after any call returned fmi2Error

`ALLOWED` lists, per function of the standard that reaches the slave, the states the table
allows it in. A call in any other state is refused with fmi2Error (`refusal` says why) and, as
every fmi2Error, leaves the instance in Error: from there only the getters, the FMU-state
functions, fmi2Reset and fmi2FreeInstance are allowed (fmi2SetFMUstate brings back the state
saved, fmi2Reset a fresh Instantiated instance). fmi2Instantiate, fmi2FreeInstance,
fmi2Reset, fmi2SetDebugLogging and fmi2FreeFMUstate are allowed in every state and are
answered by the native wrapper itself; the functions this FMU does not provide
(fmi2GetDirectionalDerivative, fmi2SetRealInputDerivatives, fmi2GetRealOutputDerivatives,
fmi2CancelStep) return fmi2Error in every state.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Optional

#: the slave's phase -> the state's name in the standard
STATE_NAMES: Dict[str, str] = {
    "instantiated": "Instantiated",
    "initialization": "Initialization Mode",
    "stepping": "Step Complete",
    "terminated": "Terminated",
    "error": "Error",
}

_EVERY = frozenset(STATE_NAMES)
_GETTABLE = frozenset({"initialization", "stepping", "terminated", "error"})
_SETTABLE = frozenset({"instantiated", "initialization", "stepping"})

#: FMI function -> the phases the standard allows it in (co-simulation; no stepInProgress,
#: stepFailed or stepCanceled here: every step is synchronous and either completes or fails)
ALLOWED: Dict[str, FrozenSet[str]] = {
    "fmi2SetupExperiment": frozenset({"instantiated"}),
    "fmi2EnterInitializationMode": frozenset({"instantiated"}),
    "fmi2ExitInitializationMode": frozenset({"initialization"}),
    "fmi2DoStep": frozenset({"stepping"}),
    "fmi2Terminate": frozenset({"stepping"}),
    "fmi2GetReal": _GETTABLE, "fmi2GetInteger": _GETTABLE,
    "fmi2GetBoolean": _GETTABLE, "fmi2GetString": _GETTABLE,
    "fmi2SetReal": _SETTABLE, "fmi2SetInteger": _SETTABLE,
    "fmi2SetBoolean": _SETTABLE, "fmi2SetString": _SETTABLE,
    "fmi2GetFMUstate": _EVERY, "fmi2SetFMUstate": _EVERY,
    "fmi2SerializedFMUstateSize": _EVERY, "fmi2SerializeFMUstate": _EVERY,
    "fmi2DeSerializeFMUstate": _EVERY,
    "fmi2GetStatus": frozenset({"stepping", "terminated"}),
}


def state_name(phase: str) -> str:
    """The standard's name of a slave's phase."""
    return STATE_NAMES.get(phase, phase)


def refusal(function: str, phase: str) -> Optional[str]:
    """None when the table allows `function` in `phase`, else why not: the state the call was
    made in and the states the standard allows it in (the caller names the call)."""
    allowed = ALLOWED[function]
    if phase in allowed:
        return None
    where = ", ".join(state_name(p) for p in STATE_NAMES if p in allowed)
    after = (" (a call returned fmi2Error before: fmi2Reset, or fmi2SetFMUstate to a state "
             "saved before, brings the instance back)" if phase == "error" else "")
    return f"not allowed in state {state_name(phase)}{after}; FMI 2.0 allows it in: {where}"
