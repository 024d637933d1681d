"""fmus/AuvSensors.fmu and fmus/AuvControl.fmu through fmpy's FMI 2.0 API: validation, the
model description, exact copies, reproducible noise, FMU state with the generator, error
reporting."""
from __future__ import annotations

import math
import zipfile

import pytest

from fmpy.fmi1 import FMICallException

from tests.harness import FMU_DIR, Instances, build, unpack
from tests.wrapper_kind import bad_parameter_status, failed_step_status

NOISELESS = dict(DepthNoiseStd=0.0, DepthLag=0.0, AttitudeNoiseStd=0.0, HeadingNoiseStd=0.0,
                 AhrsLag=0.0, SpeedNoiseStd=0.0, AltitudeNoiseStd=0.0, DvlLag=0.0,
                 NavNoiseStd=0.0, NavLag=0.0)


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    build("AuvSensors", "AuvControl")
    return {name: unpack(name, tmp_path_factory.mktemp(name)) for name in ("AuvSensors", "AuvControl")}


@pytest.fixture
def make(unpacked):
    instances = Instances(unpacked)
    yield instances
    instances.close()


@pytest.mark.parametrize("name", ["AuvSensors", "AuvControl"])
def test_fmpy_validate_reports_no_problem(name):
    from fmpy.validation import validate_fmu
    build("AuvSensors", "AuvControl")
    assert validate_fmu(str(FMU_DIR / f"{name}.fmu")) == []


@pytest.mark.parametrize("name", ["AuvSensors", "AuvControl"])
def test_model_description(unpacked, name):
    md, _ = unpacked[name]
    assert md.coSimulation.canGetAndSetFMUstate and md.coSimulation.canSerializeFMUstate
    for v in md.modelVariables:
        assert v.description, v.name
        if v.type != "Real":
            assert v.variability in ("fixed", "discrete"), v.name      # explicit, legal
        if v.causality == "parameter":
            assert v.variability == "fixed", v.name
    outputs = {v.name for v in md.modelVariables if v.causality == "output"}
    assert {u.variable.name for u in md.initialUnknowns} == outputs
    by_name = {v.name: v for v in md.modelVariables}
    if name == "AuvSensors":
        assert by_name["Seed"].type == "Integer" and by_name["Seed"].causality == "parameter"
        assert by_name["AltitudeValid"].type == "Boolean" and by_name["AltitudeValid"].variability == "discrete"
        assert by_name["MeasuredHeading"].unit == "rad" and by_name["DepthNoiseStd"].unit == "m"
        assert outputs == {"MeasuredDepth", "MeasuredRoll", "MeasuredPitch", "MeasuredHeading",
                           "MeasuredSpeed", "MeasuredAltitude", "AltitudeValid", "NavNorth", "NavEast",
                           "MeasuredAltimeter", "AltimeterValid", "DvlBeamsInRange"}
        # the beams' variables, added later, follow every other: no value reference moved
        later = {"BathymetryFile", "OriginLatitude", "OriginLongitude", "DvlBeamAngle", "AltimeterRange",
                 "AltimeterNoiseStd", "MeasuredAltimeter", "AltimeterValid", "DvlBeamsInRange", "GpsFixDepth"}
        assert min(by_name[n].valueReference for n in later) > max(
            v.valueReference for v in md.modelVariables if v.name not in later)
        # and the navigation's drift after those (auv_cosim/vehicles/auv/stack/navigation.py)
        assert by_name["GpsFixDepth"].valueReference == max(v.valueReference for v in md.modelVariables)
    else:
        for s in ("GuidanceMode", "Waypoints", "DiveMode"):
            assert by_name[s].type == "String" and by_name[s].variability == "fixed"
        assert by_name["WaypointIndex"].type == "Integer" and by_name["WaypointIndex"].variability == "discrete"
        assert by_name["MissionFinished"].type == "Boolean"
        assert by_name["ThrustPower"].unit == "W" and by_name["DepthKp"].unit == "rad/m"
        assert float(by_name["DiveAngle"].start) == pytest.approx(0.349)
        assert float(by_name["MaxPropulsionPower"].start) == 120.0
        # the altitude mode's look-ahead, added later, follows every other: no value reference moved
        assert by_name["TerrainSlopeDistance"].valueReference == max(v.valueReference for v in md.modelVariables)
        assert outputs == {"ThrustPower", "RudderYaw", "RudderDive", "SpeedRef", "HeadingRef",
                           "DepthRef", "PitchRef", "CrossTrackError", "WaypointIndex", "MissionFinished"}


def test_fmus_carry_their_own_code_and_no_vehicle_physics():
    """Each carries the modules its slave imports under its build's package name
    (auv_cosim/build/carry.py), the instruments' or the control's, and nothing of the vehicle's
    physics: of the vehicles' folder only the AUV's stack and the two package doors above it
    (both lazy: importing the stack imports no physics)."""
    doors = {"vehicles/__init__.py", "vehicles/auv/__init__.py"}
    for name, module in (("AuvSensors", "vehicles/auv/stack/instruments.py"),
                         ("AuvControl", "vehicles/auv/stack/control.py")):
        with zipfile.ZipFile(FMU_DIR / f"{name}.fmu") as archive:
            names = set(archive.namelist())
            script = archive.read("resources/slavemodule.txt").decode()
        vendor = script[: -len(f"_{name}")]
        assert vendor.startswith("_auv_cosim_") and f"resources/{script}.py" in names
        assert f"resources/{vendor}/{module}" in names
        assert f"resources/{vendor}/fmu/slave.py" in names
        vehicles = [n[len(f"resources/{vendor}/"):] for n in names if n.startswith(f"resources/{vendor}/vehicles/")
                    and n.endswith(".py")]
        assert vehicles and not [n for n in vehicles if n not in doors and not n.startswith("vehicles/auv/stack/")], name
        assert not [n for n in names if n.startswith("resources/auv_cosim/")], name


TRUTH = {"Pos[1]": 12.5, "Pos[2]": -3.25, "Pos[3]": 7.0, "Euler[1]": 0.01, "Euler[2]": -0.05,
         "Euler[3]": -3.0, "Depth": 7.0, "Speed": 1.43, "Altitude": 20.0}


def test_noiseless_sensors_copy_the_truth(make):
    s = make("AuvSensors")
    s.fmu.setupExperiment(startTime=0.0)
    s.fmu.enterInitializationMode()
    s.set(**NOISELESS, **TRUTH)
    s.fmu.exitInitializationMode()
    expect = [7.0, 0.01, -0.05, -3.0, 1.43, 20.0, True, 12.5, -3.25]
    names = ("MeasuredDepth", "MeasuredRoll", "MeasuredPitch", "MeasuredHeading", "MeasuredSpeed",
             "MeasuredAltitude", "AltitudeValid", "NavNorth", "NavEast")
    assert list(s.get(*names)) == expect
    s.set(**{"Euler[3]": 3.1, "Altitude": 45.0, "Depth": 8.0})
    s.fmu.doStep(0.0, 0.1)
    assert s.get("MeasuredHeading", "MeasuredDepth") == [3.1, 8.0]
    assert s.get("AltitudeValid", "MeasuredAltitude") == [False, 20.0]     # held
    assert s.errors() == []


def noisy_run(s, n=40, seed=5):
    s.initialize(Seed=seed, **TRUTH)
    rows = []
    for k in range(n):
        s.fmu.doStep(k * 0.1, 0.1)
        rows.append(tuple(s.get("MeasuredDepth", "MeasuredHeading", "MeasuredAltitude", "NavNorth")))
    return rows


def test_seeded_noise_is_reproducible_across_instances(make):
    a, b, c = noisy_run(make("AuvSensors")), noisy_run(make("AuvSensors")), noisy_run(make("AuvSensors"), seed=6)
    assert a == b and a != c


def test_sensor_state_restore_replays_the_noise_bit_for_bit(make):
    s = make("AuvSensors")
    noisy_run(s, n=10)
    state = s.fmu.getFMUstate()
    first = [(s.fmu.doStep(1.0 + k * 0.1, 0.1), s.get("MeasuredDepth", "MeasuredHeading", "NavEast"))[1]
             for k in range(30)]
    s.fmu.setFMUstate(state)
    again = [(s.fmu.doStep(1.0 + k * 0.1, 0.1), s.get("MeasuredDepth", "MeasuredHeading", "NavEast"))[1]
             for k in range(30)]
    assert again == first
    data = s.fmu.serializeFMUstate(state)
    s.fmu.freeFMUstate(state)
    other = make("AuvSensors").initialize(Seed=99)
    restored = other.fmu.deSerializeFMUstate(data)
    other.fmu.setFMUstate(restored)
    other.fmu.freeFMUstate(restored)
    third = [(other.fmu.doStep(1.0 + k * 0.1, 0.1), other.get("MeasuredDepth", "MeasuredHeading", "NavEast"))[1]
             for k in range(30)]
    assert third == first
    assert s.errors() == [] and other.errors() == []


def control_pattern(c, n, k0=0):
    rows = []
    for k in range(k0, k0 + n):
        c.set(MeasuredDepth=4.0 + 0.02 * k, MeasuredPitch=0.001 * k, MeasuredHeading=0.01 * k,
              MeasuredSpeed=1.4, NavNorth=0.6 * k, NavEast=0.05 * k)
        c.fmu.doStep(k * 0.1, 0.1)
        rows.append(tuple(c.get("ThrustPower", "RudderYaw", "RudderDive", "WaypointIndex", "MissionFinished")))
    return rows


def test_control_state_restore_is_bit_for_bit(make):
    c = make("AuvControl").initialize(Waypoints="30,0,5; 30,30,6; 0,30,5")
    control_pattern(c, 40)
    state = c.fmu.getFMUstate()
    first = control_pattern(c, 60, 40)
    assert first[-1][3] >= 1                                         # switched meanwhile
    c.fmu.setFMUstate(state)
    assert control_pattern(c, 60, 40) == first
    data = c.fmu.serializeFMUstate(state)
    c.fmu.freeFMUstate(state)
    other = make("AuvControl").initialize(Waypoints="30,0,5; 30,30,6; 0,30,5")
    restored = other.fmu.deSerializeFMUstate(data)
    other.fmu.setFMUstate(restored)
    other.fmu.freeFMUstate(restored)
    assert control_pattern(other, 60, 40) == first


def _serialized(inst, name):
    state = inst.fmu.getFMUstate()
    data = inst.fmu.serializeFMUstate(state)
    inst.fmu.freeFMUstate(state)
    return data


@pytest.mark.parametrize("name, other", [("AuvSensors", "AuvControl"), ("AuvControl", "AuvSensors")])
def test_bytes_that_are_no_state_of_the_fmu_are_refused_at_deserialisation(make, name, other):
    """Garbage, empty, truncated bytes and another FMU's state: fmi2DeSerializeFMUstate returns
    fmi2Error naming what is wrong, and the instance goes on as if nothing happened (it steps
    as its twin does, and a good state still deserialises and restores)."""
    parameters = {"AuvSensors": dict(Seed=5, **TRUTH), "AuvControl": dict(Waypoints="30,0,5; 30,30,6")}
    a, twin = (make(name).initialize(**parameters[name]) for _ in range(2))
    good = _serialized(a, name)
    foreign = _serialized(make(other).initialize(**parameters[other]), other)
    for bad, fragment in ((b"", "empty"), (b"\x00\xffgarbage", "not a serialized state"),
                          (good[: len(good) // 2], "not a serialized state"),
                          (good.replace(b'"phase":"stepping"', b'"phase":"flying"')
                           .replace(b'"phase":"initialization"', b'"phase":"flying"'), "the phase 'flying'"),
                          (foreign, f"the state belongs to '{other}'")):
        with pytest.raises(FMICallException) as failure:
            a.fmu.deSerializeFMUstate(bad)
        assert failure.value.status == 3, bad[:40]                       # fmi2Error
        assert any("fmi2DeSerializeFMUstate" in m and fragment in m for m in a.errors()), (fragment, a.messages)
    for k in range(5):
        a.fmu.doStep(k * 0.1, 0.1)
        twin.fmu.doStep(k * 0.1, 0.1)
    names = [v.name for v in a.md.modelVariables if v.causality == "output" and v.type == "Real"]
    assert a.get(*names) == twin.get(*names)
    restored = a.fmu.deSerializeFMUstate(good)
    a.fmu.setFMUstate(restored)
    a.fmu.freeFMUstate(restored)
    a.fmu.doStep(0.0, 0.1)


def test_control_signs_through_the_fmu(make):
    c = make("AuvControl").initialize(GuidanceMode="hold", MeasuredSpeed=1.5, MeasuredDepth=10.0,
                                      MeasuredHeading=math.radians(10),
                                      HeadingCommand=math.radians(350), DepthCommand=12.0)
    yaw, dive, pitch_ref = c.get("RudderYaw", "RudderDive", "PitchRef")
    assert yaw < 0.0 and dive > 0.0 and pitch_ref < 0.0
    assert c.errors() == []


@pytest.mark.parametrize("parameters, fragment", [
    ({"Waypoints": "10,0,5; 20,abc,5"}, "Waypoints entry 2"),
    ({"Waypoints": "10,0"}, "expected 3 (north,east,depth)"),
    ({"GuidanceMode": "survey"}, "GuidanceMode"),
    ({"SpeedKp": -1.0}, "SpeedKp"),
])
def test_bad_control_parameter_fails_initialisation_naming_it(make, parameters, fragment):
    c = make("AuvControl")
    with pytest.raises(FMICallException) as failure:
        c.initialize(**parameters)
    assert failure.value.status == bad_parameter_status(FMU_DIR / "AuvControl.fmu")
    assert any(fragment in m for m in c.errors()), c.messages
    c.close()   # terminate + free after the failure must not crash the host


def test_bad_sensor_parameter_fails_initialisation_naming_it(make):
    s = make("AuvSensors")
    with pytest.raises(FMICallException):
        s.initialize(DepthNoiseStd=-1.0)
    assert any("DepthNoiseStd" in m for m in s.errors()), s.messages
    s.close()


def test_nan_input_fails_the_step_and_recovers(make):
    s = make("AuvSensors").initialize(**NOISELESS, **TRUTH)
    saved = s.fmu.getFMUstate()
    s.set(Depth=float("nan"))
    with pytest.raises(FMICallException) as failure:
        s.fmu.doStep(0.0, 0.1)
    assert failure.value.status == failed_step_status(FMU_DIR / "AuvSensors.fmu")
    assert any("Depth" in m for m in s.errors())
    s.fmu.setFMUstate(saved)                             # FMI 2.0: out of Error by a saved state
    s.set(Depth=9.0)
    s.fmu.doStep(0.0, 0.1)
    assert s.get("MeasuredDepth") == 9.0
    c = make("AuvControl").initialize(GuidanceMode="hold")
    c.set(MeasuredHeading=float("nan"))
    with pytest.raises(FMICallException):
        c.fmu.doStep(0.0, 0.1)
    assert any("MeasuredHeading" in m for m in c.errors())
