"""fmus/H100Sensors.fmu through fmpy: validation, model description, exact copies without noise,
USBL latency through the FMU, FMU state with the generator and the pending fixes, errors."""
from __future__ import annotations

import math

import pytest

from fmpy.fmi1 import FMICallException

from tests.harness import DISCARD, ERROR, FMU_DIR, Instances, build, unpack

NAME = "H100Sensors"
NOISELESS = dict(AttitudeNoiseStd=0.0, HeadingNoiseStd=0.0, GyroNoiseStd=0.0, AccelNoiseStd=0.0,
                 ImuLag=0.0, DvlNoiseStd=0.0, DvlLag=0.0, AltitudeNoiseStd=0.0, DepthNoiseStd=0.0,
                 DepthLag=0.0, UsblNoiseStd=0.0, UsblRangeNoise=0.0, UsblLatency=0.0)
TRUTH = {"Pos": (1.0, 2.0, 5.0), "Euler": (0.01, -0.02, 1.0), "Omega": (0.0, 0.0, 0.05),
         "SpecificForce": (0.0, 0.0, -9.82), "LocalVel": (0.2, 0.0, 0.0), "Depth": 5.0, "Altitude": 15.0}


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


def test_model_description(unpacked):
    md, _ = unpacked
    assert md.coSimulation.canGetAndSetFMUstate and md.coSimulation.canSerializeFMUstate
    by_name = {v.name: v for v in md.modelVariables}
    for v in md.modelVariables:
        assert v.description, v.name
        if v.type == "Real":
            assert v.unit or v.name.startswith("UsblRangeNoise"), v.name
    for name in ("MeasuredEuler[3]", "MeasuredOmega[1]", "MeasuredSpecificForce[3]", "MeasuredVelocity[1]",
                 "MeasuredAltitude", "DvlValid", "MeasuredDepth", "UsblPosition[2]", "UsblFixTime", "UsblFixCount"):
        assert by_name[name].causality == "output", name
    assert by_name["MeasuredVelocity[1]"].unit == "m/s" and by_name["MeasuredOmega[3]"].unit == "rad/s"
    assert by_name["UsblFixCount"].type == "Integer" and by_name["UsblFixCount"].variability == "discrete"


def test_parameters_are_the_configurations_declared_fields(unpacked):
    """One declaration style: every parameter is a field of InstrumentConfig, declared beside it
    (unit, description; the field's default is the start value; a vector one Real per axis),
    then the seabed's and the DVL beams' of the shared AcousticConfig, after every other variable."""
    from auv_cosim.fmu.declare import parameters_of
    from auv_cosim.stacks.acoustic import AcousticConfig
    from auv_cosim.vehicles.h100.stack.instruments import InstrumentConfig

    md, _ = unpacked
    parameters = [v for v in md.modelVariables if v.causality == "parameter"]
    declared = parameters_of(InstrumentConfig) + parameters_of(AcousticConfig)
    assert [v.name for v in parameters] == [row.name for row in declared] and len(declared) == 34 + 4
    assert [v.name for v in md.modelVariables][-5:] == ["BathymetryFile", "OriginLatitude", "OriginLongitude",
                                                        "DvlBeamAngle", "DvlBeamsInRange"]
    for v, row in zip(parameters, declared):
        start = {"Real": float, "Integer": int, "String": str}[v.type](v.start)
        assert (v.type, v.unit, v.description, start) == (row.type, row.unit, row.description, row.start), v.name
    assert [v.name for v in parameters if v.name.startswith("UsblOrigin")] == ["UsblOrigin[1]", "UsblOrigin[2]",
                                                                                 "UsblOrigin[3]"]


def test_noiseless_readings_are_the_truth(make):
    s = make().initialize(**NOISELESS, **TRUTH)
    s.fmu.doStep(0.0, 0.1)
    assert s.get("MeasuredEuler[1]", "MeasuredEuler[2]", "MeasuredEuler[3]") == list(TRUTH["Euler"])
    assert s.get("MeasuredVelocity[1]", "MeasuredOmega[3]", "MeasuredDepth", "MeasuredAltitude") == [0.2, 0.05, 5.0, 15.0]
    assert s.get("DvlValid") and s.get("UsblFixCount") == 1
    assert s.get("UsblPosition[1]", "UsblPosition[2]", "UsblPosition[3]") == list(TRUTH["Pos"])
    assert s.errors() == []


def test_usbl_fix_arrives_after_its_latency(make):
    s = make().initialize(**{**NOISELESS, "UsblLatency": 0.5, "UsblPeriod": 1.0}, **TRUTH)
    counts = []
    for k in range(20):
        s.set(**{"Pos": (1.0 + 0.1 * (k + 1), 2.0, 5.0)})
        s.fmu.doStep(0.1 * k, 0.1)
        counts.append(s.get("UsblFixCount"))
    assert counts.index(2) == 14                    # ping at 1.0 s, delivered at 1.5 s
    assert s.get("UsblFixTime") == pytest.approx(1.0)


def _noisy(s, n=25, seed=5):
    s.initialize(Seed=seed, **TRUTH)
    return [(s.fmu.doStep(0.1 * k, 0.1), s.get("MeasuredDepth", "MeasuredVelocity[1]", "UsblPosition[1]"))[1]
            for k in range(n)]


def test_state_restore_replays_noise_and_pending_fixes_bit_for_bit(make):
    s = make()
    _noisy(s, n=13)                   # a ping at 1.0 s is pending (latency 0.5 s)
    state = s.fmu.getFMUstate()
    first = [(s.fmu.doStep(1.3 + 0.1 * k, 0.1), s.get("MeasuredDepth", "UsblPosition[1]", "UsblFixCount"))[1]
             for k in range(20)]
    s.fmu.setFMUstate(state)
    again = [(s.fmu.doStep(1.3 + 0.1 * k, 0.1), s.get("MeasuredDepth", "UsblPosition[1]", "UsblFixCount"))[1]
             for k in range(20)]
    assert again == first
    data = s.fmu.serializeFMUstate(state)
    s.fmu.freeFMUstate(state)
    other = make().initialize(Seed=99)
    restored = other.fmu.deSerializeFMUstate(data)
    other.fmu.setFMUstate(restored)
    other.fmu.freeFMUstate(restored)
    third = [(other.fmu.doStep(1.3 + 0.1 * k, 0.1), other.get("MeasuredDepth", "UsblPosition[1]", "UsblFixCount"))[1]
             for k in range(20)]
    assert third == first and s.errors() == [] and other.errors() == []


def test_seeded_noise_is_reproducible_across_instances(make):
    assert _noisy(make()) == _noisy(make()) != _noisy(make(), seed=6)


def test_bad_parameter_fails_initialisation_naming_it(make):
    s = make()
    with pytest.raises(FMICallException):
        s.initialize(UsblPeriod=0.0)
    assert any("UsblPeriod" in m for m in s.errors()), s.messages


def test_non_finite_input_fails_the_step_and_recovers(make):
    s = make().initialize(**NOISELESS, **TRUTH)
    saved = s.fmu.getFMUstate()
    s.set(**{"LocalVel": (0.2, math.nan, 0.0)})
    with pytest.raises(FMICallException) as failure:
        s.fmu.doStep(0.0, 0.1)
    assert failure.value.status in (DISCARD, ERROR)
    assert any("LocalVel[2]" in m for m in s.errors())
    s.fmu.setFMUstate(saved)                             # FMI 2.0: out of Error by a saved state
    s.set(**{"LocalVel": (0.2, 0.1, 0.0)})
    s.fmu.doStep(0.0, 0.1)
    assert s.get("MeasuredVelocity[2]") == 0.1
