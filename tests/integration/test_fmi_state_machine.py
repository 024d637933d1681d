"""FMI 2.0's state machine (section 4.2.4) on every FMU the build makes, from a host (fmpy):
each call of the table made in a state where the standard does not allow it returns fmi2Error
with a message naming the call and the state, and leaves the instance in Error (only the
getters, the FMU-state functions, fmi2Reset and fmi2FreeInstance from there)."""
from __future__ import annotations

from ctypes import byref, c_int

import pytest
from fmpy.fmi1 import FMICallException

from tests.harness import ERROR, Instance, build, unpack

FMUS = ("Auv", "AuvSensors", "AuvControl", "H100Sensors", "H100", "H100Control", "H100_6", "H100Control_6",
        "Tether")
STATES = ("Instantiated", "Initialization Mode", "Step Complete", "Terminated", "Error")

#: call -> the states FMI 2.0 allows it in (co-simulation)
GETTABLE = ("Initialization Mode", "Step Complete", "Terminated", "Error")
SETTABLE = ("Instantiated", "Initialization Mode", "Step Complete")
ALLOWED = {
    "fmi2SetupExperiment": ("Instantiated",),
    "fmi2EnterInitializationMode": ("Instantiated",),
    "fmi2ExitInitializationMode": ("Initialization Mode",),
    "fmi2DoStep": ("Step Complete",),
    "fmi2Terminate": ("Step Complete",),
    **{f"fmi2Get{kind}": GETTABLE for kind in ("Real", "Integer", "Boolean", "String")},
    **{f"fmi2Set{kind}": SETTABLE for kind in ("Real", "Integer", "Boolean", "String")},
    "fmi2GetStatus": ("Step Complete", "Terminated"),
}
CASES = [(call, state) for call, allowed in ALLOWED.items() for state in STATES if state not in allowed]


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    build(*FMUS)
    return {name: unpack(name, tmp_path_factory.mktemp(name)) for name in FMUS}


def first_vr(inst: Instance, kind: str) -> int:
    """A value reference of a `kind` variable, else of any: the state is checked first."""
    found = [v.valueReference for v in inst.md.modelVariables if v.type == kind]
    return found[0] if found else inst.md.modelVariables[0].valueReference


def status_of(action) -> int:
    try:
        result = action()
    except FMICallException as error:
        return error.status
    return result if isinstance(result, int) else 0


def brought_to(inst: Instance, state: str) -> Instance:
    """The instance (just instantiated) taken to `state` by the calls the table allows."""
    if state == "Error":   # any refused call: here a step before initialisation
        assert status_of(lambda: inst.fmu.doStep(0.0, 0.1)) == ERROR
        return inst
    if state == "Instantiated":
        return inst
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    if state == "Initialization Mode":
        return inst
    inst.fmu.exitInitializationMode()
    if state == "Terminated":
        inst.fmu.terminate()
    return inst


def call(inst: Instance, name: str) -> int:
    fmu = inst.fmu
    if name[7:] in ("Real", "Integer", "Boolean", "String"):
        kind, vr = name[7:], first_vr(inst, name[7:])
        if name.startswith("fmi2Get"):
            return status_of(lambda: getattr(fmu, f"get{kind}")([vr]))
        value = {"Real": 0.0, "Integer": 0, "Boolean": False, "String": ""}[kind]
        return status_of(lambda: getattr(fmu, f"set{kind}")([vr], [value]))
    if name == "fmi2GetStatus":
        return status_of(lambda: fmu.fmi2GetStatus(fmu.component, 0, byref(c_int())))
    actions = {"fmi2SetupExperiment": lambda: fmu.setupExperiment(startTime=0.0),
               "fmi2EnterInitializationMode": fmu.enterInitializationMode,
               "fmi2ExitInitializationMode": fmu.exitInitializationMode,
               "fmi2DoStep": lambda: fmu.doStep(0.0, 0.1),
               "fmi2Terminate": fmu.terminate}
    return status_of(actions[name])


@pytest.mark.parametrize("model", FMUS)
def test_every_call_in_a_state_the_table_refuses_is_an_error_naming_call_and_state(unpacked, model):
    wrong = []
    for name, state in CASES:
        inst = brought_to(Instance(unpacked[model], model, f"{model.lower()}_state"), state)
        before = len(inst.errors())
        status = call(inst, name)
        said = inst.errors()[before:]
        if status != ERROR or not any(f"{name}" in m and f"not allowed in state {state}" in m for m in said):
            wrong.append((name, state, status, said))
        elif name != "fmi2GetStatus":   # now in Error: a step is refused, a read still allowed
            assert status_of(lambda: inst.fmu.doStep(0.0, 0.1)) == ERROR
        inst.close()
    assert not wrong, wrong


@pytest.mark.parametrize("model", ("Auv", "H100"))
def test_the_allowed_sequence_is_all_ok_and_a_reset_leaves_error(unpacked, model):
    inst = brought_to(Instance(unpacked[model], model, "ok"), "Step Complete")
    for _ in range(3):
        inst.fmu.doStep(inst.time, 0.1)
        inst.time += 0.1
    assert status_of(lambda: inst.fmu.fmi2GetStatus(inst.fmu.component, 0, byref(c_int()))) == 2   # fmi2Discard
    assert status_of(inst.fmu.exitInitializationMode) == ERROR                   # a second exit
    assert status_of(lambda: inst.fmu.doStep(inst.time, 0.1)) == ERROR           # Error now
    inst.fmu.reset()
    brought_to(inst, "Terminated")
    assert status_of(inst.fmu.terminate) == ERROR                                # a second terminate
    assert not [m for m in inst.errors()[:-1] if "not allowed" not in m], inst.errors()
    inst.close()
