"""fmus/H100Control.fmu through fmpy: validation, the interface (one command per thruster of the
vehicle file), each controller selectable, state restore bit for bit, errors by name."""
from __future__ import annotations

import math

import pytest

pytest.importorskip("fmpy")
from fmpy.fmi1 import FMICallException  # noqa: E402

from tests.harness import DISCARD, ERROR, FMU_DIR, Instances, build, unpack  # noqa: E402
from auv_cosim.vehicles.h100.stack.control import CONTROLLERS

NAME = "H100Control"
AT_REST = {"MeasuredDepth": 5.0, "UsblPosition": (0.0, 0.0, 5.0), "UsblFixCount": 1, "DepthCommand": 5.0}


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    build(NAME)
    return unpack(NAME, tmp_path_factory.mktemp(NAME))


@pytest.fixture
def make(unpacked):
    instances = Instances({NAME: unpacked})
    yield lambda: instances(NAME)
    instances.close()


def test_fmpy_validate_reports_no_problem():
    from fmpy.validation import validate_fmu
    build(NAME)
    assert validate_fmu(str(FMU_DIR / f"{NAME}.fmu")) == []


def test_interface(unpacked):
    md, _ = unpacked
    by_name = {v.name: v for v in md.modelVariables}
    commands = [n for n in by_name if n.startswith("ThrusterCommand[")]
    assert len(commands) == 8 and all(by_name[n].causality == "output" for n in commands)
    assert by_name["Controller"].type == "String" and by_name["Controller"].causality == "parameter"
    assert by_name["Controller"].start == "pid"
    for name in ("RefPosition[3]", "RefHeading", "PositionError[1]", "HeadingError", "DesiredWrench[6]",
                 "UnmetWrench", "NavPosition[2]"):
        assert by_name[name].causality == "output", name
    for name in ("MeasuredEuler[1]", "MeasuredOmega[3]", "MeasuredVelocity[2]", "DvlValid", "MeasuredDepth",
                 "UsblPosition[1]", "UsblFixTime", "UsblFixCount", "DepthCommand", "HeadingCommand"):
        assert by_name[name].causality == "input", name
    assert all(v.description for v in md.modelVariables)


def test_parameters_are_the_configurations_declared_fields(unpacked):
    """One declaration style: every parameter is a field of the stack's configurations, declared
    beside it (unit, description; the field's default is the start value), and nothing else."""
    from auv_cosim.fmu.declare import parameters_of
    from auv_cosim.vehicles.h100.stack.control import ControllerConfig
    from auv_cosim.vehicles.h100.stack.guidance import GuidanceConfig
    from auv_cosim.vehicles.h100.stack.navigation import NavigationConfig
    from auv_cosim.vehicles.h100.stack.stack import StackConfig

    md, _ = unpacked
    parameters = [v for v in md.modelVariables if v.causality == "parameter"]
    declared = {row.name: row for cls in (GuidanceConfig, ControllerConfig, NavigationConfig, StackConfig)
                for row in parameters_of(cls)}
    assert sorted(v.name for v in parameters) == sorted(declared) and len(declared) == 45
    for v in parameters:
        row = declared[v.name]
        assert (v.type, v.unit, v.description, v.variability) == (row.type, row.unit, row.description, "fixed")
        start = {"Real": float, "String": str, "Boolean": lambda text: text == "true"}[v.type](v.start)
        assert start == row.start, v.name
    # the names the scenarios and the stack file use (FMI 2.0 interface unchanged by the move)
    assert [v.name for v in parameters][:8] == ["Controller", "Mode", "Waypoints", "HoldInitialPose",
                                                 "HoldPosition[1]", "HoldPosition[2]", "HoldPosition[3]",
                                                 "HoldHeading"]


def test_a_held_pose_other_than_the_initial_one(make):
    c = make().initialize(HoldInitialPose=False, HoldPosition=(1.0, -2.0, 6.0), HoldHeading=0.5, **AT_REST)
    assert list(c.vector("RefPosition")) == [1.0, -2.0, 6.0] and c.get("RefHeading") == 0.5
    c.fmu.doStep(0.0, 0.1)
    assert c.errors() == []


@pytest.mark.parametrize("controller", list(CONTROLLERS))
def test_each_controller_holds_the_heavy_vehicle_up_at_rest(make, controller):
    c = make().initialize(Controller=controller, **AT_REST)
    c.fmu.doStep(0.0, 0.1)
    # 0.982 N heavy: the wrench is all heave, up; the four vertical thrusters share it
    wrench = c.get(*[f"DesiredWrench[{i}]" for i in range(1, 7)])
    assert wrench[2] == pytest.approx(-0.982, abs=1e-3) and max(abs(w) for i, w in enumerate(wrench) if i != 2) < 1e-6
    commands = c.get(*[f"ThrusterCommand[{i}]" for i in range(1, 9)])
    assert all(x > 0.05 for x in commands[4:]) and all(abs(x) < 1e-6 for x in commands[:4])
    assert c.get("LayoutRank") == 6 and c.errors() == []


def _run(c, start, steps=40):
    out = []
    for k in range(steps):
        c.set(MeasuredDepth=5.0 + 0.01 * math.sin(0.3 * (start + k)), UsblFixCount=1 + (start + k) // 10,
              UsblPosition=(0.1, -0.05, 5.0), UsblFixTime=0.1 * (start + k))
        c.fmu.doStep(0.1 * (start + k), 0.1)
        out.append(c.get(*[f"ThrusterCommand[{i}]" for i in range(1, 9)]))
    return out


@pytest.mark.parametrize("controller", list(CONTROLLERS))
def test_state_restore_is_bit_for_bit(make, controller):
    c = make().initialize(Controller=controller, Mode="waypoints", Waypoints="3,0,5; 3,3,6", **AT_REST)
    _run(c, 0, 30)
    state = c.fmu.getFMUstate()
    first = _run(c, 30)
    c.fmu.setFMUstate(state)
    assert _run(c, 30) == first
    data = c.fmu.serializeFMUstate(state)
    c.fmu.freeFMUstate(state)
    other = make().initialize(Controller=controller, Mode="waypoints", Waypoints="3,0,5; 3,3,6", **AT_REST)
    restored = other.fmu.deSerializeFMUstate(data)
    other.fmu.setFMUstate(restored)
    other.fmu.freeFMUstate(restored)
    assert _run(other, 30) == first and c.errors() == [] and other.errors() == []


@pytest.mark.parametrize("parameters, fragment", [
    (dict(Controller="mpc"), "Controller"),
    (dict(Mode="waypoints", Waypoints="1,2"), "Waypoints"),
    (dict(PositionGain=-1.0), "PositionGain"),
    (dict(Allocator="magic"), "Allocator"),
    (dict(EfficiencyBelief=0.0), "EfficiencyBelief"),
])
def test_bad_parameter_fails_initialisation_naming_it(make, parameters, fragment):
    c = make()
    with pytest.raises(FMICallException):
        c.initialize(**parameters, **AT_REST)
    assert any(fragment in m for m in c.errors()), c.messages


def test_non_finite_input_fails_the_step_naming_it_and_recovers(make):
    c = make().initialize(**AT_REST)
    saved = c.fmu.getFMUstate()
    c.set(**{"MeasuredVelocity": (0.0, math.nan, 0.0)})
    with pytest.raises(FMICallException) as failure:
        c.fmu.doStep(0.0, 0.1)
    assert failure.value.status in (DISCARD, ERROR)
    assert any("MeasuredVelocity[2]" in m for m in c.errors())
    c.fmu.setFMUstate(saved)                             # FMI 2.0: out of Error by a saved state
    c.set(**{"MeasuredVelocity": (0.0, 0.0, 0.0)})
    c.fmu.doStep(0.0, 0.1)
