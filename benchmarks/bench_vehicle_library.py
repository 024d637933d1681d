"""Benchmark of the vehicle library alone (no FMI): the derivative and the integrator choice.

Prints, measured side by side in one run:
  - microseconds per derivative call, compiled (numba) and plain Python (AUV_NO_JIT=1, in a
    subprocess), and per analytic Jacobian;
  - for each candidate integrator, microseconds per 0.1 s communication step of a 200 s
    manoeuvre (cruise, turn, dive, power steps) and the largest position error against a
    dopri5 run at rtol 1e-10;
  - the ratios to the chosen one (SciPy `ode` dopri5, restarted each step).

    .venv/bin/python benchmarks/bench_vehicle_library.py [--seconds 200]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from scipy.integrate import ode, solve_ivp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from auv_cosim.vehicles.auv import AuvModel, inputs
from auv_cosim.vehicles import VehicleSimulator  # noqa: E402
from auv_cosim.vehicles.auv.dynamics import input_jacobian, state_derivative, state_jacobian  # noqa: E402

STEP = 0.1


def manoeuvre(t):
    if t < 60.0:
        return inputs(30.0)
    if t < 100.0:
        return inputs(45.0, rudder_yaw=0.2)
    if t < 150.0:
        return inputs(20.0, rudder_dive=0.15)
    return inputs(60.0, rudder_yaw=-0.35, rudder_dive=-0.1)


def time_per_call(function, repeats):
    function()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeats):
            function()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best * 1e6


def derivative_cost():
    model = AuvModel()
    x = model.cruise_state(1.5)
    u = inputs(30.0, 0.1, -0.05)
    c = model.constants
    return {
        "derivative_us": time_per_call(lambda: state_derivative(x, u, c), 20000),
        "state_jacobian_us": time_per_call(lambda: state_jacobian(x, u, c), 2000),
        "input_jacobian_us": time_per_call(lambda: input_jacobian(x, u, c), 5000),
    }


# --- candidate integrators: each flies the manoeuvre and returns the positions -------------
def fly_dopri5(model, x0, seconds, rtol=1e-4, atol=1e-6):
    sim = VehicleSimulator(model, x0, rtol=rtol, atol=atol)
    out = []
    for k in range(int(round(seconds / STEP))):
        t = k * STEP
        out.append(sim.advance(t, t + STEP, manoeuvre(t))[0:3])
    return np.array(out)


def _fly_scipy_ode(method, with_jacobian):
    def fly(model, x0, seconds, rtol=1e-4, atol=1e-6):
        c = model.constants
        u = np.zeros(6)
        solver = ode(lambda t, x: state_derivative(x, u, c),
                     (lambda t, x: state_jacobian(x, u, c)) if with_jacobian else None)
        solver.set_integrator(method, rtol=rtol, atol=atol, nsteps=100000)
        x = np.array(x0)
        out = []
        for k in range(int(round(seconds / STEP))):
            t = k * STEP
            u[:] = manoeuvre(t)
            solver.set_initial_value(x, t)
            x = solver.integrate(t + STEP)
            out.append(x[0:3].copy())
        return np.array(out)
    return fly


def _fly_solve_ivp(method, with_jacobian):
    def fly(model, x0, seconds, rtol=1e-4, atol=1e-6):
        c = model.constants
        x = np.array(x0)
        out = []
        for k in range(int(round(seconds / STEP))):
            t = k * STEP
            u = manoeuvre(t)
            kwargs = {"jac": (lambda t_, x_: state_jacobian(x_, u, c))} if with_jacobian else {}
            sol = solve_ivp(lambda t_, x_: state_derivative(x_, u, c), (t, t + STEP), x,
                            method=method, rtol=rtol, atol=atol, **kwargs)
            x = sol.y[:, -1]
            out.append(x[0:3].copy())
        return np.array(out)
    return fly


CANDIDATES = {
    "ode dopri5 (chosen)": fly_dopri5,
    "ode lsoda + analytic Jacobian": _fly_scipy_ode("lsoda", True),
    "ode vode BDF + analytic Jacobian": _fly_scipy_ode("vode", True),
    "solve_ivp RK45": _fly_solve_ivp("RK45", False),
    "solve_ivp LSODA + analytic Jacobian": _fly_solve_ivp("LSODA", True),
    "solve_ivp Radau + analytic Jacobian": _fly_solve_ivp("Radau", True),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=200.0)
    parser.add_argument("--derivative-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.derivative_only:
        print(json.dumps(derivative_cost()))
        return
    compiled = derivative_cost()
    env = dict(os.environ, AUV_NO_JIT="1")
    plain = json.loads(subprocess.run([sys.executable, __file__, "--derivative-only"], env=env,
                                      capture_output=True, text=True, check=True).stdout)
    print("derivative cost (us per call)      compiled (numba)   plain Python   ratio")
    for key in compiled:
        print(f"  {key:<32} {compiled[key]:12.2f} {plain[key]:14.1f} {plain[key] / compiled[key]:7.1f}")

    model = AuvModel()
    x0 = model.cruise_state(1.4, depth=20.0)
    steps = int(round(args.seconds / STEP))
    reference = fly_dopri5(model, x0, args.seconds, rtol=1e-10, atol=1e-12)
    print(f"\nintegrators over a {args.seconds:.0f} s manoeuvre at a {STEP} s step "
          f"(rtol 1e-4, atol 1e-6: the defaults), error against dopri5 at rtol 1e-10:")
    print(f"  {'integrator':<38} {'us per 0.1 s':>12} {'x real time':>11} {'max error (m)':>14} {'ratio':>6}")
    chosen = None
    for name, fly in CANDIDATES.items():
        fly(model, x0, 1.0)  # warm-up
        start = time.perf_counter()
        track = fly(model, x0, args.seconds)
        wall = time.perf_counter() - start
        error = float(np.max(np.linalg.norm(track - reference, axis=1)))
        per_step = wall / steps * 1e6
        chosen = chosen or per_step
        print(f"  {name:<38} {per_step:12.1f} {args.seconds / wall:11.0f} {error:14.2e} {per_step / chosen:6.2f}")


if __name__ == "__main__":
    main()
