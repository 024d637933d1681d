"""The reach into SciPy's internals (auv_cosim/compiled/scipy_internals.py) and the public API
beside it give the same numbers bit for bit: both vehicles flown step by step each way, a
failing step failing each way, and the imports with the internals switched off."""
import subprocess
import sys

import numpy as np
import pytest

from auv_cosim.compiled import scipy_internals
from auv_cosim.vehicles import VehicleSimulator
from auv_cosim.vehicles.auv import AuvModel, inputs
from auv_cosim.vehicles.h100.model import H100Model
from auv_cosim.vehicles.h100.vehicle_file import load_vehicle

pytestmark = pytest.mark.skipif(not scipy_internals.ENABLED,
                                reason="this SciPy is not one the internals were checked on: only the public path runs")


def _flown(model, x0, u, steps, fast, dt=0.1, **options):
    sim = VehicleSimulator(model, x0, **options)
    sim._restarts.fast = fast
    states = []
    for k in range(steps):
        # a step length that changes now and then (the fast path remakes its arrays then)
        t0 = k * dt
        t1 = t0 + (dt if k % 7 else dt / 2)
        states.append(sim.advance(t0, t1, u).copy())
    return np.array(states)


def test_the_auv_flies_the_same_bits_either_way():
    m = AuvModel()
    x0, u = m.cruise_state(1.5), inputs(m.cruise_power(1.5), rudder_yaw=0.1)
    fast, public = _flown(m, x0, u, 60, True), _flown(m, x0, u, 60, False)
    assert fast.tobytes() == public.tobytes()
    assert abs(fast[-1, 0] - x0[0]) > 1.0   # it moved


def test_the_h100_flies_the_same_bits_either_way():
    m = H100Model(load_vehicle().params)
    x0 = m.initial_state()
    u = np.zeros(m.INPUTS.size)
    u[:4] = 0.4
    fast, public = _flown(m, x0, u, 40, True), _flown(m, x0, u, 40, False)
    assert fast.tobytes() == public.tobytes()
    assert np.abs(fast[-1] - x0).max() > 0.01


def test_a_step_the_integrator_cannot_finish_fails_either_way():
    m = AuvModel()
    x0, u = m.cruise_state(1.5), inputs(m.cruise_power(1.5))
    for fast in (True, False):
        sim = VehicleSimulator(m, x0, max_steps=1, rtol=1e-14, atol=1e-14)
        sim._restarts.fast = fast
        with pytest.warns(UserWarning) if not fast else _nothing():
            with pytest.raises(VehicleSimulator.Failure) as info:
                sim.advance(0.0, 10.0, u)
        assert "could not integrate from t=0 s to t=10 s" in str(info.value)
        assert sim.state.tobytes() == np.asarray(x0, float).tobytes()   # left where it was


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_with_the_internals_off_the_imports_are_the_ordinary_ones():
    code = ("import auv_cosim.compiled.scipy_internals as s\ns.ENABLED = False\nimport sys\n"
            "import auv_cosim.vehicles.simulator as sim\n"
            "print('scipy.integrate' in sys.modules, s._ATTACH in sys.meta_path)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]


def test_the_version_gate_reads_scipys_version():
    import scipy

    major, minor = (int(p) for p in scipy.__version__.split(".")[:2])
    assert scipy_internals.ENABLED == ((major, minor) in scipy_internals.CHECKED)
