"""Benchmark of the H100 library alone (no FMI): the derivative, the Jacobians, the step.

Prints, measured side by side in one run:
  - microseconds per derivative call, compiled (numba) and plain Python (AUV_NO_JIT=1, in a
    subprocess), and per analytic state / input Jacobian;
  - microseconds per 0.1 s communication step of a 60 s open-loop thruster manoeuvre (surge,
    yaw, heave, sway in a current, in waves) at the FMU's default tolerances, and the largest
    position error against the same run at rtol 1e-10.

    .venv/bin/python benchmarks/bench_h100.py [--seconds 60]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from scipy.integrate import ode

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from vehicle_model.environment import Environment  # noqa: E402
from vehicle_model.h100 import H100Model, load_vehicle  # noqa: E402
from vehicle_model.h100.dynamics import input_jacobian, state_derivative, state_jacobian  # noqa: E402
from vehicle_model.waves import WaveParameters  # noqa: E402

STEP = 0.1
DEFAULT_RTOL, DEFAULT_ATOL = 1e-4, 1e-6   # the FMU's defaults (fmu_support.VehicleSlave)


def manoeuvre(t):
    """Open-loop thruster commands (8) of a manoeuvre that visits every degree of freedom."""
    if t < 15.0:
        return np.array([1, 1, -1, -1, 0, 0, 0, 0.0])            # surge
    if t < 30.0:
        return np.array([0.6, -0.6, 0.6, -0.6, 0, 0, 0, 0.0])     # yaw
    if t < 45.0:
        return np.array([0, 0, 0, 0, 0.7, 0.7, 0.7, 0.7])         # heave up
    return np.array([-0.5, 0.5, 0.5, -0.5, 0.2, -0.2, 0.2, -0.2])  # sway with some roll


def time_per_call(function, repeats):
    function()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            function()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best * 1e6


def make_model():
    waves = WaveParameters(WaveMode="irregular", SignificantWaveHeight=1.0, PeakPeriod=6.0,
                           WaveComponents=50, WaveSeed=1)
    return H100Model(load_vehicle().params, Environment(CurrentVelocity=(0.2, 0.1, 0.0)), waves)


def derivative_cost(repeats):
    model = make_model()
    x = model.initial_state(Pos0=(0, 0, 5), LocalVel0=(0.5, 0.1, 0.05), Omega0=(0.05, -0.02, 0.1),
                            PropellerSpeed0=np.full(8, 0.3))
    u = model.inputs(manoeuvre(0.0))
    c = model.constants
    return {
        "derivative_us": time_per_call(lambda: state_derivative(1.0, x, u, c), repeats),
        "state_jacobian_us": time_per_call(lambda: state_jacobian(1.0, x, u, c), max(1, repeats // 20)),
        "input_jacobian_us": time_per_call(lambda: input_jacobian(1.0, x, u, c), max(1, repeats // 5)),
    }


def fly(model, seconds, rtol, atol):
    """dopri5 restarted at every communication point, the inputs held (as the FMU does)."""
    u = np.zeros(model.input_size)
    solver = ode(state_derivative)
    solver.set_f_params(u, model.constants)
    solver.set_integrator("dopri5", rtol=rtol, atol=atol, nsteps=100000)
    x = model.initial_state(Pos0=(0.0, 0.0, 5.0))
    track = []
    for k in range(int(round(seconds / STEP))):
        t = k * STEP
        u[:] = model.inputs(manoeuvre(t))
        solver._integrator.first_step = STEP
        solver.set_initial_value(x, t)
        x = solver.integrate(t + STEP)
        track.append(x[0:3].copy())
    return np.array(track)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--derivative-only", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.derivative_only:
        print(json.dumps(derivative_cost(args.derivative_only)))
        return
    compiled = derivative_cost(20000)
    env = dict(os.environ, AUV_NO_JIT="1")
    plain = json.loads(subprocess.run([sys.executable, __file__, "--derivative-only", "500"], env=env,
                                      capture_output=True, text=True, check=True).stdout)
    print("H100 (8 thrusters, current, 50-component JONSWAP sea)")
    print("cost (us per call)                 compiled (numba)   plain Python   ratio")
    for key in compiled:
        print(f"  {key:<32} {compiled[key]:12.2f} {plain[key]:14.1f} {plain[key] / compiled[key]:7.1f}")

    model = make_model()
    steps = int(round(args.seconds / STEP))
    reference = fly(model, args.seconds, 1e-10, 1e-12)
    fly(model, 1.0, DEFAULT_RTOL, DEFAULT_ATOL)     # warm-up
    start = time.perf_counter()
    track = fly(model, args.seconds, DEFAULT_RTOL, DEFAULT_ATOL)
    wall = time.perf_counter() - start
    error = float(np.max(np.linalg.norm(track - reference, axis=1)))
    print(f"\n{args.seconds:.0f} s open-loop manoeuvre at a {STEP} s step, dopri5 restarted each step "
          f"(rtol {DEFAULT_RTOL:g}, atol {DEFAULT_ATOL:g}):")
    print(f"  {wall / steps * 1e6:.1f} us per 0.1 s step ({args.seconds / wall:.0f} x real time)")
    print(f"  largest position error against rtol 1e-10: {error:.2e} m")


if __name__ == "__main__":
    main()
