"""Tether.fmu through fmpy alone, against physics written out here independently of MoorDyn:

* static elastic catenary: a negatively buoyant cable, its end held still, no current, settles
  to the elastic catenary (Irvine's equations, solved here): EndForce within 2 %, for a slack
  cable that hangs below its end (clear of the sea floor) and a taut one stretched beyond its
  chord;
* uniform current on a straight vertical cable: the drag the cable passes to its two ends against
  the Morison integral 1/2 rho Cd d L U^2, within 3 %;
* the FMU state (get/set and serialised) gives the same trajectory bit for bit, the winch and a
  moving end included;
* the winch grows the unstretched length; a bad parameter or input fails by name; MoorDyn prints
  nothing on the host's stdout.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from scipy.optimize import fsolve

from tests.harness import Instance, build, unpack

RHO, G = 1025.0, 9.81
#: a chain-like test cable: 0.8 kg/m in air, 20 mm, so w = 4.69 N/m in water
CABLE = dict(Diameter=0.02, MassPerLength=0.8, Rho=RHO, Gravity=G, AnchorPos=(0.0, 0.0, 1.0))


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    build("Tether")
    return unpack("Tether", tmp_path_factory.mktemp("tether"))


@pytest.fixture
def make(unpacked):
    made = []

    def _make(**parameters):
        inst = Instance(unpacked, "Tether", f"tether{len(made)}", **parameters)
        made.append(inst)
        return inst
    yield _make
    for inst in made:
        inst.close()


def wet_weight(mass_per_length, diameter):
    """w = (m - rho pi d^2 / 4) g per metre of unstretched cable."""
    return (mass_per_length - RHO * math.pi * diameter ** 2 / 4.0) * G


def elastic_catenary(span, rise, length, w, ea):
    """(H, V): the horizontal and vertical components of the tension at the lower end B of an
    elastic cable of unstretched length `length`, weight w per unstretched metre, stiffness EA,
    whose upper end A is `span` away horizontally and `rise` higher. V is along the cable towards
    A (negative: the cable leaves B downwards and sags below it).

    With s the unstretched arc length from B, the tension's vertical component is V + w s and
    its horizontal one H throughout; integrating dx/ds = H/T (1 + T/EA) / ... gives Irvine's
    elastic catenary:
        span = H/w [asinh((V + wL)/H) - asinh(V/H)] + H L / EA
        rise = H/w [sqrt(1 + ((V + wL)/H)^2) - sqrt(1 + (V/H)^2)] + (V L + w L^2 / 2) / EA
    solved here for H and V."""
    def residual(u):
        h, v = abs(u[0]), u[1]
        x = h / w * (math.asinh((v + w * length) / h) - math.asinh(v / h)) + h * length / ea
        z = (h / w * (math.sqrt(1 + ((v + w * length) / h) ** 2) - math.sqrt(1 + (v / h) ** 2))
             + (v * length + w * length ** 2 / 2) / ea)
        return [x - span, z - rise]
    (h, v), info, ok, message = fsolve(residual, [w * length, 0.0], xtol=1e-13, full_output=True)
    assert ok == 1, message
    return abs(h), v


def settle(inst, seconds, h=0.1):
    inst.step(seconds, h=h)
    return inst.vector("EndForce")


@pytest.mark.parametrize("case, length, ea", [
    # 30 m over a 21.9 m chord: the cable sags to 15.4 m depth, below its end (10 m), clear of the sea floor at 1000 m
    ("slack", 30.0, 1.0e5),
    # 21.8 m over the same 21.93 m chord, EA 1e4: stretched 1.6 %
    ("taut", 21.8, 1.0e4),
])
def test_a_cable_held_still_settles_to_the_elastic_catenary(make, case, length, ea):
    end = (20.0, 0.0, 10.0)
    inst = make(**CABLE, Length=length, AxialStiffness=ea, SegmentCount=10, TimeStep=0.001)
    inst.set(EndPos=end)
    inst.initialize()
    force = settle(inst, 5.0)
    later = settle(inst, 1.0)
    assert np.linalg.norm(later - force) < 1e-3 * np.linalg.norm(force)    # settled
    h, v = elastic_catenary(20.0, 9.0, length, wet_weight(0.8, 0.02), ea)
    # on the end: towards the anchor (north, -x) horizontally, V upwards (-down)
    expected = np.array([-h, 0.0, -v])
    assert np.linalg.norm(later - expected) < 0.02 * np.linalg.norm(expected), (later, expected)
    assert inst.get("EndTension") == pytest.approx(np.linalg.norm(later), rel=1e-12)
    if case == "slack":
        assert v < 0.0 and max(inst.get(*[f"Node{k}Pos[3]" for k in range(1, 12)])) > 10.5   # sags below the end
    else:
        assert h / ea > 0.005          # stretched by more than half a percent: the stiffness carries it


def test_the_drag_of_a_vertical_cable_in_a_uniform_current_is_the_morison_integral(make):
    """A 20 m vertical cable pulled straight (EA 1e6, 0.1 % short of its chord: about 1 kN of
    tension, so it leans by under a degree) in 0.5 m/s: the drag it passes to its ends is the
    Morison integral of a straight cylinder, 1/2 rho Cd d L U^2 = 61.5 N, along the current."""
    cd, d, span, u = 1.2, 0.02, 20.0, 0.5
    inst = make(**CABLE, Length=span * 0.999, AxialStiffness=1.0e6, SegmentCount=10, TimeStep=0.0005,
                NormalDragCoeff=cd, CurrentVelocity=(u, 0.0, 0.0))
    inst.set(EndPos=(0.0, 0.0, 1.0 + span))
    inst.initialize()
    inst.step(4.0, h=0.1)
    drag = inst.vector("EndForce") + inst.vector("AnchorForce")
    morison = 0.5 * RHO * cd * d * span * u * u
    assert drag[0] == pytest.approx(morison, rel=0.03)
    assert abs(drag[1]) < 1e-6 * morison
    # the weight: what the ends carry vertically is the cable's wet weight (-down: they hold it up)
    assert -drag[2] == pytest.approx(-wet_weight(0.8, d) * span * 0.999, rel=1e-3)


def _trajectory(inst, steps, h=0.1):
    rows = []
    for k in range(steps):
        inst.set(EndPos=(20.0 + 0.3 * math.sin(0.5 * inst.time), 1.0, 10.0),
                 EndVel=(0.15 * math.cos(0.5 * inst.time), 0.0, 0.0), PayOutSpeed=0.2)
        inst.fmu.doStep(inst.time, h)
        inst.time += h
        rows.append(inst.get("EndForce[1]", "EndForce[2]", "EndForce[3]", "UnstretchedLength", "Node6Pos[2]"))
    return rows


def test_the_fmu_state_restores_the_same_trajectory(make):
    inst = make(**CABLE, Length=30.0, AxialStiffness=1.0e5, CurrentVelocity=(0.2, 0.1, 0.0))
    inst.initialize()
    _trajectory(inst, 10)
    state = inst.fmu.getFMUstate()
    serialized = inst.fmu.serializeFMUstate(state)
    t0 = inst.time
    first = _trajectory(inst, 15)
    inst.fmu.setFMUstate(state)
    inst.time = t0
    assert _trajectory(inst, 15) == first
    other = make(**CABLE, Length=30.0, AxialStiffness=1.0e5, CurrentVelocity=(0.2, 0.1, 0.0))
    other.initialize()
    other.fmu.setFMUstate(other.fmu.deSerializeFMUstate(serialized))
    other.time = t0
    assert _trajectory(other, 15) == first
    assert first[-1][3] == pytest.approx(30.0 + 0.2 * 2.5, rel=1e-12)     # the winch paid out 0.2 m/s for 2.5 s


def test_the_winch_pays_out_and_the_cable_lengthens(make):
    inst = make(**CABLE, Length=30.0, AxialStiffness=1.0e5)
    inst.initialize()
    before = inst.get("EndTension")
    inst.set(PayOutSpeed=0.5)
    inst.step(4.0, h=0.1)
    assert inst.get("UnstretchedLength") == pytest.approx(32.0, rel=1e-12)
    inst.set(PayOutSpeed=0.0)
    inst.step(4.0, h=0.1)
    # a longer hanging cable: more weight below the end's level, a deeper sag
    h, v = elastic_catenary(20.0, 9.0, 32.0, wet_weight(0.8, 0.02), 1.0e5)
    assert np.linalg.norm(inst.vector("EndForce") - (-h, 0.0, -v)) < 0.03 * math.hypot(h, v)
    assert inst.get("EndTension") != before


def test_the_moment_is_the_lever_across_the_force(make):
    """Fastened 0.3 m ahead of the body's origin, a body turned 90 degrees to the east: the
    fastening point is 0.3 m east of EndPos and EndMoment = r x EndForce about EndPos."""
    inst = make(**CABLE, Length=30.0, AxialStiffness=1.0e5, EndOffset=(0.3, 0.0, 0.0))
    half = math.sqrt(0.5)
    inst.set(EndPos=(20.0, -0.3, 10.0), EndQuater=(half, 0.0, 0.0, half))
    inst.initialize()
    inst.step(0.5, h=0.1)
    assert inst.vector("EndPoint") == pytest.approx([20.0, 0.0, 10.0], abs=1e-12)
    force, moment = inst.vector("EndForce"), inst.vector("EndMoment")
    assert moment == pytest.approx(np.cross([0.0, 0.3, 0.0], force), rel=1e-12, abs=1e-12)


def test_a_bad_parameter_fails_initialisation_by_name(make):
    inst = make(**CABLE, SegmentCount=0)
    with pytest.raises(FMICallException):
        inst.initialize()
    assert any("SegmentCount" in m for m in inst.errors()), inst.messages


def test_a_non_finite_input_fails_the_step_by_name(make):
    inst = make(**CABLE)
    inst.initialize()
    inst.set(EndVel=(float("nan"), 0.0, 0.0))
    with pytest.raises(FMICallException):
        inst.fmu.doStep(0.0, 0.1)
    assert any("EndVel" in m for m in inst.errors()), inst.messages


def test_moordyn_prints_nothing_on_the_hosts_stdout(make, capfd):
    capfd.readouterr()
    inst = make(**CABLE, CurrentVelocity=(0.2, 0.0, 0.0))
    inst.initialize()
    inst.step(1.0, h=0.1)
    inst.close()
    assert capfd.readouterr().out == ""
