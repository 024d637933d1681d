"""fmus/H100.fmu through fmpy: the checkers, the interface of SPEC 7.6, the independent
transcription of SPEC 7 followed to 1e-6 m on open-loop thruster manoeuvres, the FMU state,
and bad parameters and inputs refused by name."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

pytest.importorskip("fmpy")
from fmpy.fmi1 import FMICallException  # noqa: E402

from tests.harness import DISCARD, ERROR, FATAL, FMU_DIR, Instance, build, unpack  # noqa: E402

from auv_cosim.vehicles.h100 import initial_state, load_vehicle  # noqa: E402
from auv_cosim.vehicles.h100.vehicle_file import VEHICLES_DIR  # noqa: E402

from .conftest import random_spd  # noqa: E402
from .reference_h100 import ReferenceH100  # noqa: E402

NAME = "H100"
STEP = 0.1
TIGHT = dict(RelativeTolerance=1e-11, AbsoluteTolerance=1e-12)


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    build(NAME)
    return unpack(NAME, tmp_path_factory.mktemp(NAME))


@pytest.fixture
def instance(unpacked):
    made = []

    def make():
        made.append(Instance(unpacked, NAME, f"h100_{len(made)}"))
        return made[-1]

    yield make
    for i in made:
        i.close()


def test_checkers_and_interface(unpacked):
    from fmpy.validation import validate_fmu
    assert validate_fmu(str(FMU_DIR / "H100.fmu")) == []
    md, _ = unpacked
    variables = {v.name: v for v in md.modelVariables}
    inputs = [v.name for v in md.modelVariables if v.causality == "input"]
    # the table's inputs, then the others' wake rows (SPEC 9.3, registered after every other)
    assert inputs == [f"ThrusterCommand[{i}]" for i in range(1, 9)] + \
        [f"ExternalForce[{i}]" for i in (1, 2, 3)] + [f"ExternalMoment[{i}]" for i in (1, 2, 3)] + \
        [f"WakeSources[{k},{j}]" for k in (1, 2, 3) for j in range(1, 16)]
    outputs = {v.name for v in md.modelVariables if v.causality == "output"}
    for name in ("Pos[3]", "Vel[1]", "LocalVel[2]", "Omega[3]", "Quater[4]", "Euler[3]", "Heading",
                 "Depth", "Altitude", "Thrust[8]", "SpecificForce[3]", "SurfaceElevation"):
        assert name in outputs
    for name, unit in (("Mass", "kg"), ("Inertia[3,3]", "kg.m2"), ("AddedMass[1,1]", "kg"),
                       ("AddedMass[1,5]", "kg.m"), ("AddedMass[6,6]", "kg.m2"),
                       ("LinearDamping[1,1]", "N.s/m"), ("QuadraticDamping[6,6]", "N.m.s2"),
                       ("ThrusterPos[8,3]", "m"), ("ThrusterDir[5,3]", "1"), ("MaxThrustReverse", "N"),
                       ("Gravity", "m/s2"), ("CurrentVelocity[1]", "m/s"), ("Pos0[3]", "m"),
                       ("ExternalMoment[3]", "N.m"), ("Thrust[1]", "N")):
        assert variables[name].unit == unit, name
        assert variables[name].description
    assert float(variables["ThrusterPos[2,2]"].start) == pytest.approx(-0.110426627160922)
    assert float(variables["QuadraticDamping[3,3]"].start) == 190.0
    assert float(variables["Gravity"].start) == 9.82
    assert "ThrusterPos[9,1]" not in variables


def fly(fmu, commands, seconds, start=None, **parameters):
    """Initialise, then hold `commands(t)` (8 thruster commands, force, moment) per step;
    return the positions and the final outputs."""
    fmu.initialize(**TIGHT, **parameters)
    positions = []
    for k in range(int(round(seconds / STEP))):
        t = k * STEP
        u = commands(t)
        fmu.set(ThrusterCommand=list(u[:8]), ExternalForce=list(u[8:11]), ExternalMoment=list(u[11:14]))
        fmu.fmu.doStep(t, STEP)
        positions.append(fmu.get("Pos[1]", "Pos[2]", "Pos[3]"))
    return np.array(positions)


def oracle(params, commands, seconds, x0, current=(0, 0, 0)):
    reference = ReferenceH100(params, current=current)
    x = np.array(x0, float)
    positions = []
    for k in range(int(round(seconds / STEP))):
        t = k * STEP
        u = commands(t)
        x = solve_ivp(lambda s, y: reference.derivative(s, y, u), (t, t + STEP), x, method="DOP853",
                      rtol=1e-12, atol=1e-13).y[:, -1]
        positions.append(x[0:3].copy())
    return np.array(positions)


def full(commands, force=(0, 0, 0), moment=(0, 0, 0)):
    return np.concatenate([commands, force, moment]).astype(float)


MANOEUVRES = {
    "hover": (lambda t: full([0] * 8), dict(Pos0=(0, 0, 5.0))),
    "surge": (lambda t: full([1, 1, -1, -1, 0, 0, 0, 0]), dict(Pos0=(0, 0, 5.0))),
    "yaw": (lambda t: full([-0.5, 0.5, 0.5, -0.5, 0, 0, 0, 0]), dict(Pos0=(0, 0, 5.0))),
    "heave": (lambda t: full([0, 0, 0, 0] + [-0.6] * 4), dict(Pos0=(0, 0, 5.0))),
    "mixed-external": (lambda t: full([0.3 * math.sin(t), 0.5, -0.2, 0.1, 0.4, -0.3, 0.2, 0.0],
                                      force=(3.0, -2.0, 1.0), moment=(0.2, 0.0, -0.3)),
                       dict(Pos0=(1.0, 2.0, 6.0), Quater0=(0.9, 0.1, -0.2, 0.3))),
    "surfacing": (lambda t: full([0.2, 0.2, -0.2, -0.2] + [0.8] * 4), dict(Pos0=(0, 0, 0.6))),
}


@pytest.mark.parametrize("name", list(MANOEUVRES))
def test_follows_the_independent_transcription(instance, name):
    commands, parameters = MANOEUVRES[name]
    params = load_vehicle().params
    x0 = initial_state(8, **parameters)
    expected = oracle(params, commands, 8.0, x0)
    got = fly(instance(), commands, 8.0, **parameters)
    assert np.max(np.abs(got - expected)) < 1e-6
    assert np.max(np.abs(expected[-1] - expected[0])) > 0.05 or name == "hover"
    if name == "surfacing":
        assert expected[:, 2].min() < 0.0          # it broke the surface


def test_current_offset_cg_and_full_added_mass(instance):
    rng = np.random.default_rng(11)
    base = load_vehicle().params
    added = base.matrix("AddedMass") + random_spd(rng, 6, 0.4)
    added = 0.5 * (added + added.T)
    params = base.replace(CenterOfGravity=(0.01, -0.004, 0.015), AddedMass=tuple(added.ravel()))
    matrix = {f"AddedMass[{i + 1},{j + 1}]": added[i, j] for i in range(6) for j in range(6)}
    commands = MANOEUVRES["mixed-external"][0]
    x0 = initial_state(8, Pos0=(0, 0, 4.0))
    expected = oracle(params, commands, 8.0, x0, current=(0.3, -0.2, 0.05))
    got = fly(instance(), commands, 8.0, Pos0=(0, 0, 4.0), CurrentVelocity=(0.3, -0.2, 0.05),
              CenterOfGravity=(0.01, -0.004, 0.015), **matrix)
    assert np.max(np.abs(got - expected)) < 1e-6


def pattern(fmu, steps, t0):
    outputs = [v.name for v in fmu.md.modelVariables if v.causality == "output"]
    rows = []
    for k in range(steps):
        t = t0 + k * STEP
        fmu.set(ThrusterCommand=[math.sin(0.3 * k + i) for i in range(8)], ExternalForce=(0, 0.5, 0))
        fmu.fmu.doStep(t, STEP)
        rows.append(fmu.get(*outputs))
    return rows


def test_state_save_restore_and_serialise_are_bit_exact(instance):
    fmu = instance().initialize(Pos0=(0, 0, 5.0))
    pattern(fmu, 20, 0.0)
    state = fmu.fmu.getFMUstate()
    first = pattern(fmu, 30, 2.0)
    fmu.fmu.setFMUstate(state)
    assert pattern(fmu, 30, 2.0) == first
    data = fmu.fmu.serializeFMUstate(state)
    fmu.fmu.freeFMUstate(state)
    other = instance().initialize(Pos0=(9.0, 9.0, 9.0))
    restored = other.fmu.deSerializeFMUstate(data)
    other.fmu.setFMUstate(restored)
    other.fmu.freeFMUstate(restored)
    assert pattern(other, 30, 2.0) == first
    assert fmu.errors() == [] and other.errors() == []


@pytest.mark.parametrize("parameters, named", [
    ({"Mass": -1.0}, "Mass"),
    ({"Volume": 0.0}, "Volume"),
    ({"AddedMass[1,1]": -40.0}, "AddedMass"),
    ({"AddedMass[1,2]": 0.5}, "AddedMass[1,2]"),
    ({"Inertia[2,2]": -0.1}, "Inertia"),
    ({"ThrusterDir[3,1]": 0.0, "ThrusterDir[3,2]": 0.0}, "ThrusterDir[3,1..3]"),
    ({"Height": float("nan")}, "Height"),
    ({"LinearDamping[2,3]": float("inf")}, "LinearDamping[2,3]"),
    ({"Quater0": (0.0, 0.0, 0.0, 0.0)}, "Quater0"),
])
def test_bad_parameters_fail_initialisation_naming_them(instance, parameters, named):
    fmu = instance()
    with pytest.raises(FMICallException) as failure:
        fmu.initialize(**parameters)
    assert failure.value.status in (ERROR, FATAL)
    assert any(named in m for m in fmu.errors()), fmu.messages


def test_non_finite_input_fails_the_step_and_the_vehicle_recovers(instance):
    fmu = instance().initialize(Pos0=(0, 0, 5.0))
    fmu.set(ThrusterCommand=[1, 1, -1, -1, 0, 0, 0, 0])
    fmu.fmu.doStep(0.0, STEP)
    before = fmu.get("Pos[1]", "Depth")
    saved = fmu.fmu.getFMUstate()
    fmu.set(**{"ThrusterCommand[6]": float("nan")})
    with pytest.raises(FMICallException) as failure:
        fmu.fmu.doStep(STEP, STEP)
    assert failure.value.status in (DISCARD, ERROR)      # ERROR under the project's native wrapper
    assert any("ThrusterCommand[6]" in m and "not finite" in m for m in fmu.errors()), fmu.messages
    assert fmu.get("Pos[1]", "Depth") == before
    fmu.fmu.setFMUstate(saved)                           # FMI 2.0: out of Error by a saved state
    fmu.set(**{"ThrusterCommand[6]": 0.0})
    fmu.fmu.doStep(STEP, STEP)
    assert fmu.get("Pos[1]") > before[0]


def test_a_rank_deficient_layout_is_built_from_one_more_line(tmp_path):
    """The README's recipe: one vehicle file, one build line. The standard BlueROV2 layout
    (rank 5) builds, validates, and warns at start-up which wrench it cannot produce. (Built
    without the shipped numba cache, to keep the test short: in this process the FMU shares the
    package of its build that the H100 FMUs of this module imported, already compiled.)"""
    import subprocess
    script = tmp_path / "build.py"
    script.write_text(
        "import sys\n"
        "from pathlib import Path\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})   # the clone's package\n"
        "from auv_cosim.build.driver import build_all\n"
        "from auv_cosim.build.specs import FmuSpec\n"
        "spec = FmuSpec('BlueROV2', 'auv_cosim/vehicles/h100/slave.py',\n"
        "    vehicle_file='vehicles/BlueROV2.yaml', vehicle_base='H100', ship_numba_cache=False)\n"
        f"sys.exit(build_all([spec], Path({str(tmp_path)!r}), quiet=True))\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    from fmpy.validation import validate_fmu
    assert validate_fmu(str(tmp_path / "BlueROV2.fmu")) == []
    fmu = Instance(unpack_from(tmp_path / "BlueROV2.fmu", tmp_path / "x"), "BlueROV2", "rov")
    try:
        fmu.initialize()
        assert "ThrusterCommand[6]" in fmu.var and "ThrusterCommand[7]" not in fmu.var
        warnings = [m for s, _, m in fmu.messages if s == 1]
        assert any("rank 5" in m and "surge" in m and "pitch" in m for m in warnings), fmu.messages
    finally:
        fmu.close()


def unpack_from(fmu_path, folder):
    from fmpy import extract, read_model_description
    return read_model_description(str(fmu_path), validate=True), extract(str(fmu_path), unzipdir=str(folder))


@pytest.mark.parametrize("vehicle", [NAME, "H100_6"])
def test_the_shipped_numba_cache_holds_what_the_control_stack_calls(unpacked, vehicle):
    """In the H100 stack the controllers' belief runs on the vehicle library H100.fmu brought
    (modules are shared in one host), so H100.fmu's cache must hold the Jacobians the LQR is
    designed on and the motion wrench, not only the vehicle's step: a first run compiled them
    for minutes otherwise (auv_cosim/vehicles/h100/stack/warm_up.py, issue 12). The same for the
    6-thruster layout's H100_6.fmu (h100_six_thrusters: 19 s of compilation on a first run)."""
    import importlib.util
    import os
    import zipfile

    if importlib.util.find_spec("numba") is None or os.environ.get("AUV_NO_JIT"):
        pytest.skip("numba is not in use (AUV_NO_JIT or no numba): no cache is shipped")
    build(vehicle)
    with zipfile.ZipFile(FMU_DIR / f"{vehicle}.fmu") as archive:
        indexes = {Path(n).name.split("-")[0] for n in archive.namelist() if n.endswith(".nbi")}
    for function in ("dynamics.step_derivative_into", "dynamics.step_end_state_into", "dynamics.output_into",
                     "dynamics.state_derivative", "dynamics.state_jacobian", "dynamics.input_jacobian",
                     "dynamics.generalized_force", "dynamics.holding_wrench_into", "rotation.rotation_matrix"):
        assert function in indexes, sorted(indexes)
