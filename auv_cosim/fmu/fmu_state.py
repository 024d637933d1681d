"""The FMU state (fmi2GetFMUstate / fmi2SetFMUstate / serialisation): `FmuStateStore`, a part of
`FmuSlave` (auv_cosim.fmu.slave). A state holds every registered variable, the instance's state
of the FMI state machine, plus whatever the subclass returns from `fmu_get_state`.
"""
from __future__ import annotations

import json
from typing import Any, Dict

from pythonfmu.variables import Boolean, Integer, Real, String

from .errors import FmuError

#: the layout of a serialized FMU state (fmi2SerializeFMUstate). Raised whenever a slave's own
#: ``fmu_get_state`` changes what it holds, so that a state saved by an older build is refused
#: by name instead of failing on a missing key: 2 since the AUV's instruments and control keep
#: their state for the compiled kernels (auv_cosim/vehicles/auv/stack/instruments_kernel.py, control_kernel.py)
STATE_FORMAT = 2


class FmuStateStore:
    """The FMU-state functions of `FmuSlave` (see the module documentation)."""

    _CONVERTERS = {Real: float, Integer: int, Boolean: bool, String: str}

    def _get_fmu_state(self) -> Dict[str, Any]:
        try:
            values = [self._CONVERTERS[type(var)](var.getter()) for var in self.vars.values()]
            return {
                "format": STATE_FORMAT,
                "model": type(self).__name__,
                "phase": self._phase,
                "failed_initialization": self._failed_initialization,
                "variables": values,
                "internal": self.fmu_get_state(),
            }
        except Exception as error:
            self.fail(f"fmi2GetFMUstate: {self._describe(error)}")

    def _set_fmu_state(self, state: Dict[str, Any]):
        try:
            if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
                if isinstance(state, dict) and isinstance(state.get("format"), int):
                    raise FmuError(f"a state saved by another build of this FMU (state format "
                                   f"{state['format']}; this build reads format {STATE_FORMAT})")
                raise FmuError(f"not an FMU state of this FMU: {state.get('error', 'unknown format')}"
                               if isinstance(state, dict) else "not an FMU state of this FMU")
            if state.get("model") != type(self).__name__ or len(state["variables"]) != len(self.vars):
                raise FmuError(f"the state belongs to {state.get('model')} with "
                               f"{len(state['variables'])} variables, not to "
                               f"{type(self).__name__} with {len(self.vars)}")
            for var, value in zip(self.vars.values(), state["variables"]):
                if var.setter is not None:
                    var.setter(value)
            self._phase = state["phase"]
            self._failed_initialization = state["failed_initialization"]
            self.parameters_changed = True
            self.values_changed = True
            self.fmu_set_state(state["internal"])
        except Exception as error:
            self.fail(f"fmi2SetFMUstate: {self._describe(error)}")

    @staticmethod
    def _fmu_state_to_bytes(state: Dict[str, Any]) -> bytes:
        # json writes floats with repr(), which round-trips every double exactly (NaN and inf
        # as the non-standard NaN / Infinity tokens that json.loads reads back).
        return json.dumps(state, separators=(",", ":")).encode("utf-8")

    def _fmu_state_from_bytes(self, state: bytes) -> Dict[str, Any]:
        """fmi2DeSerializeFMUstate: the state the bytes hold, checked to be one this FMU wrote
        (its format, model, variables and their types, phase and internal parts); bytes that are
        not (garbage, empty, truncated, another FMU's) raise FmuError naming what is wrong, so
        the call returns fmi2Error there and leaves this instance as it was."""
        data = bytes(state)
        if not data:
            raise FmuError("fmi2DeSerializeFMUstate: the serialized state is empty (0 bytes)")
        try:
            decoded = json.loads(data.decode("utf-8"))
        except Exception as error:
            raise FmuError(f"fmi2DeSerializeFMUstate: {len(data)} bytes that are not a serialized state of "
                           f"{type(self).__name__} (cut short or not written by fmi2SerializeFMUstate): "
                           f"{error}") from None
        problem = self._state_problem(decoded)
        if problem:
            raise FmuError(f"fmi2DeSerializeFMUstate: {len(data)} bytes that are not a serialized state of "
                           f"{type(self).__name__}: {problem}")
        return decoded

    def _state_problem(self, state: Any) -> str:
        """Why `state` is not a state this build of the FMU wrote ('' when it is)."""
        if not isinstance(state, dict):
            return f"a JSON {type(state).__name__}, not an object"
        if state.get("format") != STATE_FORMAT:
            if isinstance(state.get("format"), int):
                return (f"a state saved by another build of this FMU (state format {state['format']}; "
                        f"this build reads format {STATE_FORMAT})")
            return "no state format"
        if set(state) != {"format", "model", "phase", "failed_initialization", "variables", "internal"}:
            return f"the parts {sorted(state)}"
        if state["model"] != type(self).__name__:
            return f"the state belongs to {state['model']!r}"
        values = state["variables"]
        if not isinstance(values, list) or len(values) != len(self.vars):
            return (f"{len(values) if isinstance(values, list) else 'no list of'} variables, not "
                    f"{len(self.vars)}")
        for var, value in zip(self.vars.values(), values):
            kind = type(var)
            good = (isinstance(value, (int, float)) and not isinstance(value, bool) if kind is Real else
                    isinstance(value, int) and not isinstance(value, bool) if kind is Integer else
                    isinstance(value, self._CONVERTERS.get(kind, object)))
            if not good:
                return f"{var.name} = {value!r} is not a {kind.__name__}"
        if state["phase"] not in ("instantiated", "initialization", "stepping", "terminated", "error"):
            return f"the phase {state['phase']!r}"
        if not isinstance(state["failed_initialization"], bool):
            return "failed_initialization is not a boolean"
        mine = self.fmu_get_state()
        internal = state["internal"]
        if type(internal) is not type(mine) or (isinstance(mine, dict) and set(internal) != set(mine)):
            return f"its internal part is not this FMU's (parts {sorted(internal) if isinstance(internal, dict) else type(internal).__name__})"
        return ""
