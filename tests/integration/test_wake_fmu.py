"""The wake ports of Auv.fmu and H100.fmu (SPEC 9), driven through fmpy alone, as another tool
would: the variables and their places, two AUVs each wired to the other's source against
SPEC 9.2's field and against a loop of the vehicle library, the held wake in the FMU state,
the refusals (a bad wake parameter at initialisation, a malformed row at the step)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

from references import wake_pair
from references.wake_oracle import oracle_field
from tests.harness import FMU_DIR, Instance, build, unpack
from tests.wrapper_kind import bad_parameter_status, failed_step_status

AUV_PORTS = ("WakeSource", "WakeSources", "WakeVelocity", "CastWake", "PropellerDiameter",
             "WakeMinSpeed", "WakeSpreadRate", "JetSpreadRate", "WakeLength", "ExternalWakeUpdate")
H100_PORTS = ("WakeSources", "WakeVelocity", "WakeSpreadRate", "JetSpreadRate", "WakeLength",
              "ExternalWakeUpdate")
CRUISE = 1.438


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    build("Auv", "H100")
    return {name: unpack(name, tmp_path_factory.mktemp(name)) for name in ("Auv", "H100")}


@pytest.fixture
def make(fmus):
    made = []

    def instance(model="Auv", **parameters):
        inst = Instance(fmus[model], model, f"{model.lower()}{len(made)}", **parameters)
        made.append(inst)
        return inst

    yield instance
    for inst in made:
        inst.close()


def _base(name):
    return name.split("[", 1)[0]


# ------------------------------------------------------------------------------ the variables
@pytest.mark.parametrize("model, ports", [("Auv", AUV_PORTS), ("H100", H100_PORTS)])
def test_wake_variables_are_declared_after_every_other(fmus, model, ports):
    md, _ = fmus[model]
    names = [v.name for v in md.modelVariables]
    by_name = {v.name: v for v in md.modelVariables}
    wake = [v for v in md.modelVariables if _base(v.name) in ports]
    assert {_base(v.name) for v in wake} == set(ports)
    # registered after every older variable: adding them moved no other variable's value reference
    # (only what was added later still, for the same reason, follows them: the AUV's Omega outputs,
    # then both vehicles' seabed and place on Earth, tests/integration/test_seabed_fmu.py, and the
    # contact with the seabed, SeabedContact)
    later = ({"Omega"} if model == "Auv" else {"SeaDepth"}) | {
        "BathymetryFile", "OriginLatitude", "OriginLongitude", "Latitude", "Longitude", "SeabedContact"}
    other = [v.valueReference for v in md.modelVariables if _base(v.name) not in set(ports) | later]
    assert all(v.valueReference > min(w.valueReference for w in wake)
               for v in md.modelVariables if _base(v.name) in later)
    assert min(v.valueReference for v in wake) > max(other)
    rows = [f"WakeSources[{k},{j}]" for k in (1, 2, 3) for j in range(1, 16)]
    assert all(by_name[n].causality == "input" and float(by_name[n].start) == 0.0 for n in rows)
    assert by_name["WakeSources[2,11]"].unit == "N" and by_name["WakeSources[3,15]"].unit == "kg/m3"
    assert "row 2" in by_name["WakeSources[2,11]"].description
    assert [by_name[f"WakeVelocity[{i}]"].causality for i in (1, 2, 3)] == ["output"] * 3
    assert by_name["ExternalWakeUpdate"].type == "String" and by_name["ExternalWakeUpdate"].start == "Step"
    assert by_name["WakeSpreadRate"].variability == "tunable" and float(by_name["WakeLength"].start) == 50.0
    if model == "Auv":
        assert [by_name[f"WakeSource[{j}]"].causality for j in range(1, 16)] == ["output"] * 15
        assert by_name["CastWake"].type == "Boolean" and by_name["CastWake"].start in (False, "false")
        assert float(by_name["WakeMinSpeed"].start) == 0.5 and float(by_name["PropellerDiameter"].start) == 0.0
    else:   # the H100 casts nothing
        assert not any(n.startswith(("WakeSource[", "CastWake", "WakeMinSpeed", "PropellerDiameter"))
                       for n in names)


def test_both_fmus_validate_with_no_problem():
    from fmpy.validation import validate_fmu
    for name in ("Auv", "H100"):
        assert validate_fmu(str(FMU_DIR / f"{name}.fmu")) == [], name


# ------------------------------------------------------------------------------ two AUVs by fmpy
@pytest.fixture(scope="module")
def pair(fmus):
    """Two Auv.fmu instances, the follower 8 m behind, 40 s at 30 W, each wired to the other."""
    common = dict(seconds=40.0, gap=8.0, power=30.0, step=0.1)
    return (wake_pair.fmu_pair(FMU_DIR / "Auv.fmu", **common), wake_pair.library_pair(**common),
            wake_pair.library_pair(**common, wired=False))


def test_followers_wake_velocity_is_the_field_at_its_position(pair):
    fmu, _, _ = pair
    errors = wake_pair.oracle_errors(fmu)
    assert errors.max() < 1e-7
    # and there is a wake to be right about: the leader's row is a source all along, and the
    # follower sits in its hull wake (water dragged along, against e: forward)
    assert np.all(fmu["rows"][1:, 9] > 1.0)
    assert np.linalg.norm(fmu["wake"], axis=1).min() > 5e-3
    assert np.all(fmu["wake"][:, 0] > 0)


def test_trajectories_match_a_loop_of_the_library(pair):
    fmu, library, _ = pair
    for who in ("leader", "follower"):
        assert np.linalg.norm(fmu[who] - library[who], axis=1).max() < 1e-3, who


def test_the_wake_moves_the_follower_visibly(pair):
    fmu, library, alone = pair
    moved = fmu["follower"][-1] - alone["follower"][-1]
    assert 0.2 < moved[0] < 1.0           # tens of centimetres further north: carried along
    assert np.allclose(fmu["leader"][-1], alone["leader"][-1], atol=1e-9)   # nothing behind it reaches ahead


def test_evaluation_mode_is_close_to_step_mode_not_identical(fmus, pair):
    step, _, _ = pair
    evaluation = wake_pair.fmu_pair(FMU_DIR / "Auv.fmu", seconds=40.0, gap=8.0, power=30.0, step=0.1,
                                    update="Evaluation")
    difference = np.linalg.norm(step["follower"] - evaluation["follower"], axis=1).max()
    assert 0.0 < difference < 0.02


# ------------------------------------------------------------------------------ the FMU state
def _cruiser(make, start, model="Auv", **more):
    parameters = dict(Pos0=start, LocalVel0=(CRUISE, 0.0, 0.0)) if model == "Auv" else dict(Pos0=start)
    inst = make(model, **parameters, **more).initialize()
    if model == "Auv":
        inst.set(ThrustPower=30.0)
    return inst


def _exchange(leader, follower, row=1):
    source = leader.vector("WakeSource", 15)
    follower.set(**{f"WakeSources[{row},{j}]": v for j, v in enumerate(source, 1)})


def _fly(leader, follower, seconds, h=0.1):
    trace = []
    for _ in range(int(round(seconds / h))):
        _exchange(leader, follower)
        for inst in (leader, follower):
            inst.fmu.doStep(inst.time, h)
            inst.time += h
        trace.append(tuple(follower.get(*[f"Pos[{i}]" for i in (1, 2, 3)], *[f"WakeVelocity[{i}]" for i in (1, 2, 3)])))
    return trace


@pytest.mark.parametrize("update", ["Step", "Evaluation"])
def test_the_held_wake_is_part_of_the_fmu_state_bit_for_bit(make, update):
    leader = _cruiser(make, (0.0, 0.0, 30.0), CastWake=True)
    follower = _cruiser(make, (-6.0, 0.0, 30.0), ExternalWakeUpdate=update)
    _fly(leader, follower, 5.0)
    saved = follower.fmu.getFMUstate()
    data = follower.fmu.serializeFMUstate(saved)
    saved_leader, t_saved = leader.fmu.getFMUstate(), follower.time
    held = follower.vector("WakeVelocity")
    assert np.linalg.norm(held) > 1e-3
    first = _fly(leader, follower, 3.0)

    # into a fresh instance, from the bytes: the held wake comes back with the state, so a step
    # of no length (which holds nothing anew) reports it as it was
    other = _cruiser(make, (40.0, 5.0, 10.0), ExternalWakeUpdate=update)
    state = other.fmu.deSerializeFMUstate(data)
    other.fmu.setFMUstate(state)
    other.fmu.freeFMUstate(state)
    other.time = t_saved
    assert list(other.vector("WakeVelocity")) == list(held)
    other.fmu.doStep(other.time, 0.0)
    assert list(other.vector("WakeVelocity")) == list(held)
    leader.fmu.setFMUstate(saved_leader)
    leader.time = t_saved
    assert _fly(leader, other, 3.0) == first
    # and into the instance itself
    leader.fmu.setFMUstate(saved_leader)
    leader.time = follower.time = t_saved
    follower.fmu.setFMUstate(saved)
    follower.fmu.doStep(follower.time, 0.0)
    assert list(follower.vector("WakeVelocity")) == list(held)
    assert _fly(leader, follower, 3.0) == first
    assert leader.errors() == follower.errors() == other.errors() == []


def test_a_row_of_zeros_is_no_source(make):
    quiet = _cruiser(make, (0.0, 0.0, 30.0))
    zeros = _cruiser(make, (0.0, 0.0, 30.0))
    for _ in range(20):
        zeros.set(**{f"WakeSources[{k},{j}]": 0.0 for k in (1, 2, 3) for j in range(1, 16)})
        for inst in (quiet, zeros):
            inst.fmu.doStep(inst.time, 0.1)
            inst.time += 0.1
    names = [f"Pos[{i}]" for i in (1, 2, 3)] + ["Speed", "Battery", "WakeVelocity[1]"]
    assert zeros.get(*names) == quiet.get(*names)
    assert zeros.get("WakeVelocity[1]") == 0.0


def test_the_h100_meets_an_auvs_wake(make):
    auv = _cruiser(make, (0.0, 0.0, 20.0), CastWake=True)
    h100 = _cruiser(make, (-4.0, 0.0, 20.0), model="H100")
    alone = _cruiser(make, (-4.0, 0.0, 20.0), model="H100")
    for _ in range(30):
        row = auv.vector("WakeSource", 15)
        position = h100.vector("Pos")
        h100.set(**{f"WakeSources[2,{j}]": v for j, v in enumerate(row, 1)})
        for inst in (auv, h100, alone):
            inst.fmu.doStep(inst.time, 0.1)
            inst.time += 0.1
        assert np.allclose(h100.vector("WakeVelocity"), oracle_field(position, [np.zeros(15), row]),
                           rtol=0, atol=1e-12)
    assert np.linalg.norm(h100.vector("WakeVelocity")) > 1e-3
    assert h100.get("Pos[1]") > alone.get("Pos[1]")        # carried along behind the AUV


# ------------------------------------------------------------------------------ refusals
@pytest.mark.parametrize("model, parameters, named", [
    ("Auv", {"WakeSpreadRate": -0.01}, "WakeSpreadRate"),
    ("Auv", {"JetSpreadRate": -1.0}, "JetSpreadRate"),
    ("Auv", {"WakeLength": 0.0}, "WakeLength"),
    ("Auv", {"ExternalWakeUpdate": "Often"}, "ExternalWakeUpdate"),
    ("Auv", {"PropellerDiameter": -0.1}, "PropellerDiameter"),
    ("Auv", {"WakeMinSpeed": -0.5}, "WakeMinSpeed"),
    ("Auv", {"WakeLength": float("nan")}, "WakeLength"),
    ("H100", {"WakeLength": -5.0}, "WakeLength"),
    ("H100", {"ExternalWakeUpdate": "step"}, "ExternalWakeUpdate"),
])
def test_a_bad_wake_parameter_fails_initialisation_naming_it(make, model, parameters, named):
    inst = make(model, **parameters)
    with pytest.raises(FMICallException) as failure:
        inst.initialize()
    assert failure.value.status == bad_parameter_status(FMU_DIR / f"{model}.fmu")
    assert any(named in m for m in inst.errors()), inst.messages


def _good_row():
    row = np.zeros(15)
    row[0:3] = (5.0, 0.0, 30.0)
    row[3:6] = (5.0, 0.0, 30.0)
    row[6:9] = (-1.0, 0.0, 0.0)
    row[9:15] = (1.4, 7.0, 7.0, 0.2, 0.12, 1025.0)
    return row


@pytest.mark.parametrize("model", ["Auv", "H100"])
@pytest.mark.parametrize("element, value, words", [
    (11, float("nan"), "WakeSources[2,11] = nan (row 2, resistance F_D) is not finite"),
    (10, -1.4, "WakeSources[2,10] = -1.4 (row 2, speed through the water U) must not be negative"),
    (15, -1025.0, "WakeSources[2,15] = -1025.0 (row 2, water density rho_s) must not be negative"),
    (14, -0.1, "WakeSources[2,14] = -0.1 (row 2, propeller diameter Dp_s) must not be negative"),
    (7, -0.9, "WakeSources[2,7..9] = (-0.9, 0.0, 0.0) (row 2, the wake direction) is not a unit vector"),
    (8, float("inf"), "WakeSources[2,8] = inf (row 2, wake direction east) is not finite"),
])
def test_a_malformed_row_fails_the_step_naming_row_and_element(make, model, element, value, words):
    inst = _cruiser(make, (0.0, 0.0, 30.0), model=model)
    inst.fmu.doStep(0.0, 0.1)
    inst.time = 0.1
    before = inst.vector("Pos")
    saved = inst.fmu.getFMUstate()
    row = _good_row()
    row[element - 1] = value
    inst.set(**{f"WakeSources[2,{j}]": v for j, v in enumerate(row, 1)})
    with pytest.raises(FMICallException) as failure:
        inst.fmu.doStep(inst.time, 0.1)
    assert failure.value.status == failed_step_status(FMU_DIR / f"{model}.fmu")
    assert any(words in m for m in inst.errors()), inst.messages
    assert list(inst.vector("Pos")) == list(before)             # nothing happened
    inst.fmu.setFMUstate(saved)                                  # FMI 2.0's way out of Error
    inst.fmu.freeFMUstate(saved)
    inst.set(**{f"WakeSources[2,{j}]": v for j, v in enumerate(_good_row(), 1)})
    inst.fmu.doStep(inst.time, 0.1)                              # a good row: it flies on
    assert inst.get("Pos[1]") > before[0]


@pytest.mark.parametrize("model", ["Auv", "H100"])
@pytest.mark.parametrize("changes", [
    {10: 1e-300, 11: 1e300, 15: 1e-300},     # each finite, the field beyond any double
    {10: 1e-300},                             # an ordinary resistance over a vanishing speed
    {11: 1e300},
    {12: 1e9, 14: 1e-9},                      # a huge thrust through a needle's jet
])
def test_a_huge_but_finite_row_fails_the_step_naming_its_values(make, model, changes):
    """Rows of finite numbers whose wake no water could carry (faster than sound in it) fail
    the step naming the row and its values, not the integrator's failure; the vehicle is left
    at the step's start."""
    inst = _cruiser(make, (0.0, 0.0, 30.0), model=model)
    inst.fmu.doStep(0.0, 0.1)
    inst.time = 0.1
    before = inst.vector("Pos")
    row = _good_row()
    for element, value in changes.items():
        row[element - 1] = value
    inst.set(**{f"WakeSources[2,{j}]": v for j, v in enumerate(row, 1)})
    with pytest.raises(FMICallException) as failure:
        inst.fmu.doStep(inst.time, 0.1)
    assert failure.value.status == failed_step_status(FMU_DIR / f"{model}.fmu")
    words = [f"WakeSources[2,{e}] = {v!r}" for e, v in changes.items()] + ["row 2 of WakeSources",
                                                                          "faster than sound in water"]
    assert any(all(w in m for w in words) for m in inst.errors()), inst.messages
    assert not any("could not integrate" in m for m in inst.errors()), inst.messages
    assert list(inst.vector("Pos")) == list(before)


def test_a_tunable_wake_parameter_applies_from_the_next_step(make):
    # WakeLength cut below the follower's distance from the leader's stern mid-run: the wake no
    # longer reaches it from the next step on; set back, it does again (the vehicle keeps its state)
    leader = _cruiser(make, (0.0, 0.0, 30.0), CastWake=True)
    follower = _cruiser(make, (-6.0, 0.0, 30.0))
    _fly(leader, follower, 1.0)
    assert np.linalg.norm(follower.vector("WakeVelocity")) > 1e-3
    follower.set(WakeLength=3.0)
    trace = _fly(leader, follower, 0.5)
    assert all(row[3:] == (0.0, 0.0, 0.0) for row in trace)
    follower.set(WakeLength=50.0)
    _fly(leader, follower, 0.1)
    assert np.linalg.norm(follower.vector("WakeVelocity")) > 1e-3
    assert follower.errors() == []
