"""fmus/Auv.fmu driven through fmpy's FMI 2.0 co-simulation API, as another tool would drive it.

The FMU is (re)built by tools/build_fmus.py when its sources changed, extracted once for the
module, and every test creates its own instance(s) of it (tests/harness.py).
"""
from __future__ import annotations

import importlib.util
import math
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from fmpy.fmi1 import FMICallException

from tests.harness import FMU_DIR, ROOT, WARNING, Instance, build, unpack
from tests.wrapper_kind import bad_parameter_status, failed_step_status

FMU = FMU_DIR / "Auv.fmu"
CRUISE_SPEED_30W = 1.438        # SPEC 2.4, default fins, neutral trim
HOTEL_POWER = 15.0


@pytest.fixture(scope="module")
def auv_fmu(tmp_path_factory):
    """(model description, extracted folder) of an up-to-date fmus/Auv.fmu."""
    build("Auv")
    return unpack("Auv", tmp_path_factory.mktemp("Auv"))


def Run(auv_fmu, name="auv", **parameters):
    """One instance of Auv.fmu with its log messages captured (tests.harness.Instance)."""
    return Instance(auv_fmu, "Auv", name, **parameters)


@pytest.fixture
def run(auv_fmu):
    runs = []

    def make(**parameters):
        r = Run(auv_fmu, name=f"auv{len(runs)}", **parameters)
        runs.append(r)
        return r

    yield make
    for r in runs:
        r.close()


NEUTRAL = dict(AverageDensity=1025.0)  # SPEC 2.4: the speed figures are at neutral trim


# ------------------------------------------------------------------------------ the FMU file
def test_fmpy_and_fmutool_report_no_problem():
    from fmpy.validation import validate_fmu
    assert FMU.exists()
    assert validate_fmu(str(FMU)) == []
    fmutool = shutil.which("fmutool") or str(Path(sys.executable).with_name("fmutool"))
    result = subprocess.run([fmutool, "-input", str(FMU), "-check"], capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "ERROR" not in output, output
    assert "No semantic error" in output


def test_interface_matches_the_contract(auv_fmu):
    md, _ = auv_fmu
    by_name = {v.name: v for v in md.modelVariables}
    inputs = {v.name for v in md.modelVariables if v.causality == "input"}
    outputs = {v.name for v in md.modelVariables if v.causality == "output"}
    vec = lambda name, n: {f"{name}[{i + 1}]" for i in range(n)}  # noqa: E731
    rows = {f"WakeSources[{k},{j}]" for k in (1, 2, 3) for j in range(1, 16)}   # SPEC 9.3
    assert inputs == {"ThrustPower", "RudderYaw", "RudderDive"} | vec("ExternalForce", 3) | rows
    assert outputs == (vec("Pos", 3) | vec("Vel", 3) | vec("Quater", 4) | vec("Euler", 3)
                       | {"Heading", "Pitch", "Depth", "Speed", "Altitude", "SeaDepth", "Battery",
                          "BatteryFraction", "Thrust"} | vec("WakeSource", 15) | vec("WakeVelocity", 3)
                       | vec("Omega", 3) | {"Latitude", "Longitude", "SeabedContact"})
    for v in md.modelVariables:
        assert v.description, v.name
        if v.name in ("WaveMode", "WaveComponents", "WaveSeed"):   # SPEC 8's whole numbers
            assert v.type == "Integer" and v.causality == "parameter", v.name
        elif v.name in ("CastWake", "ExternalWakeUpdate", "BathymetryFile"):   # SPEC 9's switch and mode, the grid
            assert v.type == ("Boolean" if v.name == "CastWake" else "String"), v.name
            assert v.causality == "parameter" and v.variability == "fixed", v.name
        elif v.name == "SeabedContact":   # the seabed's contact: a Boolean output
            assert v.type == "Boolean" and v.causality == "output" and v.variability == "discrete", v.name
        else:
            assert v.type == "Real" and v.unit, v.name
    units = {v.name: v.unit for v in md.modelVariables}
    assert units["ThrustPower"] == "W" and units["RudderYaw"] == "rad" and units["Pos[1]"] == "m"
    assert units["Vel[2]"] == "m/s" and units["Battery"] == "J" and units["Thrust"] == "N"
    assert units["AddedMass[1]"] == "kg" and units["AddedMass[5]"] == "kg.m2"
    assert units["Latitude"] == units["OriginLongitude"] == "deg"
    assert units["Rho"] == "kg/m3" and units["ThrustPerPower"] == "N/W"
    definitions = {u.name: u.baseUnit for u in md.unitDefinitions}
    assert (definitions["N"].kg, definitions["N"].m, definitions["N"].s) == (1, 1, -2)
    # angles computed in radians, shown in degrees: the display units a tool offers by default
    shown = {u.name: [(d.name, d.factor, d.offset) for d in u.displayUnits] for u in md.unitDefinitions}
    assert shown["rad"] == [("deg", pytest.approx(180.0 / math.pi, rel=1e-15), 0.0)]
    assert shown["rad/s"] == [("deg/s", pytest.approx(180.0 / math.pi, rel=1e-15), 0.0)] and shown["m"] == []
    assert {v.displayUnit for v in md.modelVariables if v.unit in ("rad", "rad/s")} == {"deg", "deg/s"}
    assert all(v.displayUnit in (None, "") for v in md.modelVariables if v.unit not in ("rad", "rad/s"))
    assert (definitions["W"].kg, definitions["W"].m, definitions["W"].s) == (1, 2, -3)
    assert (definitions["deg"].rad, definitions["deg"].factor) == (1, pytest.approx(math.pi / 180))
    # seed-001 parameters with their defaults
    defaults = {"Length": 2.0, "Diameter": 0.2, "AverageDensity": 1020.0, "Rho": 1025.0,
                "ThrustPerPower": 0.3, "MaxPropulsionPower": 120.0, "HotelPower": 15.0,
                "RudderArea": 0.016, "MaxRudderAngle": 0.35, "InitialBattery": 1.8e6,
                "COG[3]": 0.02, "AddedMass[2]": 58.0, "RudderPos[1]": -0.85,
                "Quater0[1]": 1.0, "SeaFloorDepth": 100.0, "Gravity": 9.81}
    for name, value in defaults.items():
        assert by_name[name].causality == "parameter", name
        assert float(by_name[name].start) == pytest.approx(value), name
    for name in ("Pos0[3]", "LocalVel0[1]", "Omega0[2]", "Battery0", "CurrentVelocity[1]",
                 "CurrentDepthGradient[3]", "RelativeTolerance", "AbsoluteTolerance"):
        assert by_name[name].causality == "parameter", name
    assert by_name["Length"].variability == "fixed"
    assert by_name["CurrentVelocity[1]"].variability == "tunable"
    assert md.coSimulation.canGetAndSetFMUstate and md.coSimulation.canSerializeFMUstate
    initial_unknowns = {u.variable.name for u in md.initialUnknowns}
    assert initial_unknowns == outputs
    # a value for plots that is not an output (an output would join every results.csv):
    # registered last, so that it moved no other variable's value reference
    local = [v for v in md.modelVariables if v.causality == "local"]
    assert [v.name for v in local] == ["SurfaceElevation"] and local[0].unit == "m"
    # (after it only the wake variables of SPEC 9, added later: tests/integration/test_wake_fmu.py,
    # the body rates Omega, added after them, then the seabed's and the place on Earth,
    # tests/integration/test_seabed_fmu.py: every other value reference stayed)
    place = ("BathymetryFile", "OriginLatitude", "OriginLongitude", "Latitude", "Longitude", "SeabedContact")
    later = ("Wake", "Jet", "CastWake", "PropellerDiameter", "ExternalWakeUpdate", "Omega[") + place
    assert local[0].valueReference == max(v.valueReference for v in md.modelVariables if not v.name.startswith(later))
    rates = sorted(by_name[f"Omega[{i}]"].valueReference for i in (1, 2, 3))
    assert rates[0] > max(v.valueReference for v in md.modelVariables if not v.name.startswith(("Omega[",) + place))
    assert min(by_name[n].valueReference for n in place) > rates[-1]
    assert all(by_name[f"Omega[{i}]"].unit == "rad/s" for i in (1, 2, 3))


def test_the_omega_outputs_are_the_state_s_body_rates(run):
    """Omega[1..3] after a step is the angular velocity of the state (Omega0 held through a
    zero-length start, then turned by the rudder)."""
    r = run(**{"Omega0": (0.01, -0.02, 0.03), "LocalVel0": (1.5, 0.0, 0.0)}).initialize()
    assert list(r.vector("Omega")) == [0.01, -0.02, 0.03]
    r.set(RudderYaw=0.2, ThrustPower=60.0)
    r.step(5.0)
    assert abs(r.vector("Omega")[2]) > 1e-3                       # turning under the rudder


# ------------------------------------------------------------------------------ behaviour
def test_outputs_are_valid_right_after_initialisation(run):
    r = run(**{"Pos0": (1.0, 2.0, 5.0)}).initialize()
    assert list(r.vector("Pos")) == [1.0, 2.0, 5.0]
    assert list(r.vector("Quater", 4)) == [1.0, 0.0, 0.0, 0.0]
    assert r.get("Depth") == 5.0
    assert r.get("Battery") == 1.8e6 and r.get("BatteryFraction") == 1.0
    assert r.get("SeaDepth") == 100.0 and r.get("Altitude") == 95.0
    assert r.get("Thrust") == 0.0
    assert r.errors() == []


def test_steady_cruise_at_30_watts(run):
    r = run(**NEUTRAL, **{"Pos0": (0, 0, 20.0), "LocalVel0": (1.3, 0, 0)}).initialize()
    r.set(ThrustPower=30.0)
    r.step(120.0)
    speed = r.get("Speed")
    assert speed == pytest.approx(CRUISE_SPEED_30W, abs=0.01)
    assert r.get("Thrust") == pytest.approx(9.0)
    assert r.vector("Vel")[0] == pytest.approx(speed, abs=0.01)    # heading north
    assert abs(r.get("Depth") - 20.0) < 0.5                          # neutral trim: level


def test_fin_signs(run):
    start = {**NEUTRAL, "Pos0": (0, 0, 20.0), "LocalVel0": (CRUISE_SPEED_30W, 0, 0)}
    yaw = run(**start).initialize()
    yaw.set(ThrustPower=30.0, RudderYaw=0.1)
    yaw.step(5.0, h=0.1)
    assert yaw.get("Heading") > 0.05                   # positive RudderYaw: turn to starboard

    dive = run(**start).initialize()
    dive.set(ThrustPower=30.0, RudderDive=0.1)
    dive.step(5.0, h=0.1)
    assert dive.get("Pitch") < -0.05                   # nose down
    assert dive.get("Depth") > 20.2                    # and dives


@pytest.mark.parametrize("power, drawn", [(30.0, 30.0 + HOTEL_POWER), (0.0, HOTEL_POWER),
                                          (500.0, 120.0 + HOTEL_POWER)])
def test_battery_drains_at_clamped_power_plus_hotel(run, power, drawn):
    r = run(**{"Pos0": (0, 0, 20.0)}).initialize()
    r.set(ThrustPower=power)
    r.step(100.0, h=1.0)
    assert 1.8e6 - r.get("Battery") == pytest.approx(drawn * 100.0, rel=1e-9)
    assert r.get("BatteryFraction") == pytest.approx(r.get("Battery") / 1.8e6, rel=1e-12)


def test_flat_battery_stops_thrust(run):
    r = run(**{"Pos0": (0, 0, 20.0), "Battery0": 100.0, "LocalVel0": (1.0, 0, 0)}).initialize()
    r.set(ThrustPower=30.0)
    r.step(1.0, h=0.1)
    assert r.get("Thrust") == pytest.approx(9.0)       # 45 W from 100 J: flat at t = 2.2 s
    for _ in range(40):
        r.step(0.25, h=0.25)
        assert r.get("Battery") >= 0.0
    assert r.get("Battery") == 0.0 and r.get("BatteryFraction") == 0.0
    assert r.get("Thrust") == 0.0
    assert r.get("Speed") < 0.9                        # coasting down without thrust


def test_dead_vehicle_surfaces(run):
    r = run(**{"Pos0": (0, 0, 5.0)}).initialize()      # default trim: 0.31 kg buoyant
    r.step(120.0, h=1.0)
    assert r.get("Depth") < 0.2
    assert r.errors() == []


def test_current_carries_the_vehicle(run):
    # At zero relative velocity in a uniform current the vehicle drifts with it (seed 001).
    r = run(**NEUTRAL, **{"Pos0": (0, 0, 20.0), "LocalVel0": (0.3, 0, 0),
                          "CurrentVelocity": (0.3, 0, 0)}).initialize()
    r.step(30.0, h=1.0)
    assert r.vector("Vel") == pytest.approx([0.3, 0.0, 0.0], abs=0.005)
    assert r.vector("Pos")[0] == pytest.approx(9.0, abs=0.1)
    assert abs(r.get("Speed")) < 0.005                 # no speed through the water
    # From rest, the current's drag accelerates the vehicle north.
    still = run(**NEUTRAL, **{"Pos0": (0, 0, 20.0), "CurrentVelocity": (0.3, 0, 0)}).initialize()
    still.step(60.0, h=1.0)
    assert 0.01 < still.vector("Vel")[0] < 0.3
    assert still.get("Speed") < 0.0                    # water flows past from astern


def test_parameter_change_changes_cruise_speed(run):
    half = run(**NEUTRAL, **{"ThrustPerPower": 0.15, "Pos0": (0, 0, 20.0),
                             "LocalVel0": (1.0, 0, 0)}).initialize()
    half.set(ThrustPower=30.0)
    half.step(120.0)
    assert half.get("Thrust") == pytest.approx(4.5)
    # drag ~ u^2: half the thrust, 1/sqrt(2) the speed
    assert half.get("Speed") == pytest.approx(CRUISE_SPEED_30W / math.sqrt(2.0), abs=0.015)


def test_tunable_current_takes_effect_and_fixed_parameter_is_refused(run):
    r = run(**NEUTRAL, **{"Pos0": (0, 0, 20.0)}).initialize()
    r.step(5.0)
    r.set(CurrentVelocity=(0.0, 0.5, 0.0))             # tunable: from now on
    saved = r.fmu.getFMUstate()
    with pytest.raises(FMICallException) as failure:   # fixed: fmi2Error, logged, ignored
        r.set(Length=3.0)
    assert failure.value.status == 3
    assert any("Length" in m and "fixed parameter" in m for m in r.errors())
    assert r.get("Length") == 2.0
    r.fmu.setFMUstate(saved)                           # out of Error, as the standard offers
    r.fmu.freeFMUstate(saved)
    r.step(5.0)
    assert r.get("Speed") == pytest.approx(0.0, abs=1e-3)  # beam-on current: no surge
    assert r.vector("Vel")[1] > 0.01                    # pushed east


def _pattern(r, steps, h=0.2):
    """Fly a deterministic input pattern; return all outputs after every step."""
    outputs = [v.name for v in r.md.modelVariables if v.causality == "output"]
    rows = []
    for k in range(steps):
        r.set(ThrustPower=20.0 + 10.0 * math.sin(0.3 * k), RudderYaw=0.2 * math.sin(0.1 * k),
              RudderDive=0.1 * math.cos(0.07 * k), ExternalForce=(0.0, 0.5 * math.sin(0.2 * k), 0.0))
        r.fmu.doStep(r.time, h)
        r.time += h
        rows.append(r.get(*outputs))
    return rows


def test_state_save_restore_is_bit_identical(run):
    r = run(**{"Pos0": (0, 0, 10.0), "LocalVel0": (1.0, 0, 0)}).initialize()
    _pattern(r, 30)
    t_saved = r.time
    state = r.fmu.getFMUstate()
    first = _pattern(r, 40)
    # restore in the same instance
    r.fmu.setFMUstate(state)
    r.time = t_saved
    assert _pattern(r, 40) == first
    # serialize / deserialize, restore again
    data = r.fmu.serializeFMUstate(state)
    r.fmu.freeFMUstate(state)
    restored = r.fmu.deSerializeFMUstate(data)
    r.fmu.setFMUstate(restored)
    r.time = t_saved
    assert _pattern(r, 40) == first
    r.fmu.freeFMUstate(restored)
    # into another, freshly initialised instance with other parameters
    other = run(**{"Pos0": (5.0, 5.0, 50.0)}).initialize()
    state = other.fmu.deSerializeFMUstate(data)
    other.fmu.setFMUstate(state)
    other.fmu.freeFMUstate(state)
    other.time = t_saved
    assert _pattern(other, 40) == first
    assert r.errors() == [] and other.errors() == []


def _init_error(run, **parameters):
    r = run(**parameters)
    with pytest.raises(FMICallException) as failure:
        r.initialize()
    return r, failure.value.status


@pytest.mark.parametrize("parameters, named", [
    ({"Length": -1.0}, "Length"),
    ({"Quater0": (0.0, 0.0, 0.0, 0.0)}, "Quater0"),
    ({"Rho": float("nan")}, "Rho"),
    ({"Pos0": (0.0, float("inf"), 0.0)}, "Pos0[2]"),
    ({"RelativeTolerance": 0.0}, "RelativeTolerance"),
])
def test_bad_parameter_fails_initialisation_naming_it(run, parameters, named):
    r, status = _init_error(run, **parameters)
    assert status == bad_parameter_status(FMU)
    assert any(named in m for m in r.errors()), r.messages
    r.close()  # terminate + free after the failure must not crash the host


def test_nan_input_fails_the_step_and_the_vehicle_recovers(run):
    r = run(**{"Pos0": (0, 0, 10.0), "LocalVel0": (1.0, 0, 0)}).initialize()
    r.step(1.0)
    before = r.get("Pos[1]", "Depth", "Battery")
    saved = r.fmu.getFMUstate()
    r.set(RudderYaw=float("nan"))
    with pytest.raises(FMICallException) as failure:
        r.fmu.doStep(r.time, 0.5)
    assert failure.value.status == failed_step_status(FMU)
    assert any("RudderYaw" in m and "not finite" in m for m in r.errors()), r.messages
    assert r.get("Pos[1]", "Depth", "Battery") == before          # nothing happened
    r.fmu.setFMUstate(saved)                                      # FMI 2.0's way out of Error
    r.fmu.freeFMUstate(saved)
    r.step(1.0)                                                   # and it flies on
    assert r.get("Pos[1]") > before[0]


def test_nan_input_start_value_initialises_and_fails_the_first_step(run):
    # SPEC 2.6: a NaN input fails the step that uses it, not the initialisation
    r = run(**{"Pos0": (0, 0, 10.0), "ThrustPower": float("nan")}).initialize()
    assert r.get("Depth") == 10.0 and r.get("Thrust") == 0.0
    saved = r.fmu.getFMUstate()
    with pytest.raises(FMICallException) as failure:
        r.fmu.doStep(r.time, 0.5)
    assert failure.value.status == failed_step_status(FMU)
    assert any("ThrustPower" in m and "not finite" in m for m in r.errors()), r.messages
    r.fmu.setFMUstate(saved)                                      # FMI 2.0's way out of Error
    r.fmu.freeFMUstate(saved)
    r.set(ThrustPower=30.0)
    r.step(1.0)
    assert r.get("Thrust") == pytest.approx(9.0)


def test_dive_authority_warning_is_logged(run):
    quiet = run().initialize()
    assert not [m for s, _, m in quiet.messages if s == WARNING]
    heavy = run(**{"COG": (0.0, 0.0, 0.09)}).initialize()
    warnings = [(c, m) for s, c, m in heavy.messages if s == WARNING]
    assert len(warnings) == 1
    category, message = warnings[0]
    assert category == "logStatusWarning"
    assert "DiveAngleForAuthorityCheck" in message and "MaxPropulsionPower" in message


def archive_text(fmu, member: str) -> str:
    with zipfile.ZipFile(fmu) as archive:
        return archive.read(member).decode()


def test_fmu_bundles_its_sources():
    with zipfile.ZipFile(FMU) as archive:
        names = set(archive.namelist())
        root = ET.fromstring(archive.read("modelDescription.xml"))
    script = archive_text(FMU, "resources/slavemodule.txt")
    vendor = script[: -len("_Auv")]
    assert vendor.startswith("_auv_cosim_") and f"resources/{script}.py" in names
    assert f"resources/{vendor}/vehicles/auv/model.py" in names
    assert f"resources/{vendor}/fmu/vehicle_slave.py" in names
    assert f"resources/{vendor}/fmu/slave.py" in names
    assert not [n for n in names if n.startswith((f"resources/{vendor}/vehicles/h100/", f"resources/{vendor}/stacks/",
                                                  f"resources/{vendor}/vehicles/auv/stack/",
                                                  f"resources/{vendor}/vehicles/auv/host/"))]
    assert root.find("CoSimulation").get("canGetAndSetFMUstate") == "true"
    # numba's cache is shipped (compiled at build time; see auv_cosim/compiled/shipped_cache.py), beside
    # the sources' bytecode (tests/integration/test_fmu_bytecode.py)
    cached = [n for n in names if "__pycache__" in n and not n.endswith(".pyc")]
    assert all(n.startswith(f"resources/{vendor}/") and "/__pycache__/" in n
               and n.endswith((".nbi", ".nbc")) for n in cached), cached
    if importlib.util.find_spec("numba") is not None and not os.environ.get("AUV_NO_JIT"):
        assert any("state_derivative" in n and n.endswith(".nbi") for n in cached), cached
        from auv_cosim.compiled import numba_cache
        if numba_cache.ENABLED:  # ... with numba's runtime (auv_cosim/compiled/numba_cache.py)
            assert any(n.startswith(f"resources/{vendor}/compiled/__pycache__/numba_runtime-") for n in cached), cached

