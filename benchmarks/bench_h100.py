"""Benchmark of the H100 library alone (no FMI): the derivative, the Jacobians, the step.

Prints, measured side by side in one run:
  - microseconds per derivative call, compiled (numba) and plain Python (AUV_NO_JIT=1, in a
    subprocess), and per analytic state / input Jacobian; and the derivative inside a compiled
    loop (what an integrator in compiled code would pay: no dispatch from Python, no boxing of
    the returned array), in still water and in the sea;
  - microseconds per 0.1 s communication step of a 60 s open-loop thruster manoeuvre (surge,
    yaw, heave, sway in a current, in waves) at the FMU's default tolerances, derivative
    evaluations per step, and the largest position error against rtol 1e-10: with the
    commands held over each segment, and jumping at every step as a closed loop's do (each
    change starts a transient of the propellers' lag, T = 0.1 s, the length of a step; see
    CASES); for dopri5 (the AUV's) and dop853 (the H100's), both SciPy's Hairer codes, first
    step the interval, with the lag integrated as a state and solved in closed form over each
    step (VehicleSimulator, as the FMU: see INTEGRATIONS).

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

from auv_cosim.compiled.jit import jit  # noqa: E402
from auv_cosim.vehicles.environment import Environment  # noqa: E402
from auv_cosim.vehicles.h100 import H100Model, load_vehicle  # noqa: E402
from auv_cosim.vehicles.h100.dynamics import (
    input_jacobian,
    state_derivative,
    state_jacobian,
    step_derivative_into,
)
from auv_cosim.vehicles.simulator import VehicleSimulator  # noqa: E402
from auv_cosim.vehicles.waves import WaveParameters  # noqa: E402

STEP = 0.1
DEFAULT_RTOL, DEFAULT_ATOL = 1e-4, 1e-6   # the AUV's defaults (VehicleSimulator.tolerances_of)


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


def make_model(sea=True):
    waves = WaveParameters(WaveMode="irregular", SignificantWaveHeight=1.0, PeakPeriod=6.0,
                           WaveComponents=50, WaveSeed=1) if sea else None
    return H100Model(load_vehicle().params, Environment(CurrentVelocity=(0.2, 0.1, 0.0)), waves)


@jit
def _derivatives_in_a_loop(calls, x, u, c):
    total = 0.0
    for i in range(calls):
        x[0] += 1e-9            # a new state each call, so that nothing is hoisted out of the loop
        total += state_derivative(1.0, x, u, c)[8]
    return total


def in_loop_cost(calls, sea):
    """Microseconds per derivative inside a compiled loop, best of 20 short runs."""
    model = make_model(sea)
    x = model.initial_state(Pos0=(0, 0, 5), LocalVel0=(0.5, 0.1, 0.05), Omega0=(0.05, -0.02, 0.1),
                            PropellerSpeed0=np.full(8, 0.3))
    u = model.inputs(manoeuvre(0.0))
    _derivatives_in_a_loop(1, x, u, model.constants)
    best = float("inf")
    for _ in range(20):
        start = time.perf_counter()
        _derivatives_in_a_loop(calls, x, u, model.constants)
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def derivative_cost(repeats):
    model = make_model()
    x = model.initial_state(Pos0=(0, 0, 5), LocalVel0=(0.5, 0.1, 0.05), Omega0=(0.05, -0.02, 0.1),
                            PropellerSpeed0=np.full(8, 0.3))
    u = model.inputs(manoeuvre(0.0))
    c = model.constants
    held = np.zeros(model.held_size)
    model.hold_step(x, u, 0.95, held)
    ydot = np.empty(model.integrated_size)
    y = x[:model.integrated_size].copy()
    return {
        "derivative_us": time_per_call(lambda: state_derivative(1.0, x, u, c), repeats),
        "step_derivative_into_us (lag solved)": time_per_call(
            lambda: step_derivative_into(1.0, y, held, c, ydot), repeats),
        "state_jacobian_us": time_per_call(lambda: state_jacobian(1.0, x, u, c), max(1, repeats // 20)),
        "input_jacobian_us": time_per_call(lambda: input_jacobian(1.0, x, u, c), max(1, repeats // 5)),
        "derivative_in_a_loop_us (sea)": in_loop_cost(max(1, repeats // 4), True),
        "derivative_in_a_loop_us (still)": in_loop_cost(max(1, repeats // 4), False),
    }


#: The command cases: the manoeuvre held over each segment; the manoeuvre with a seeded dither of
#: 0.05 (standard deviation) at every step, the size of h100_hold's step-to-step changes; and
#: that dither alone about zero, as station keeping in instrument noise commands (the propellers
#: near rest, where the absolute tolerance governs their error control).
CASES = ("held", "jumping", "hovering")


def commands(seconds, case):
    """The thruster commands of each step of `case` (see CASES)."""
    steps = int(round(seconds / STEP))
    held = np.array([manoeuvre(k * STEP) for k in range(steps)])
    dither = np.random.default_rng(7).normal(0.0, 0.05, held.shape)
    return {"held": held, "jumping": held + dither, "hovering": dither}[case]


def fly(model, seconds, rtol, atol, method="dopri5", case="held", derivative=state_derivative):
    """`method` restarted at every communication point, the inputs held over the step and its
    first step the whole step (as the FMU does), the propeller lag integrated with the rest:
    the whole state of the full derivative."""
    u = np.zeros(model.input_size)
    solver = ode(derivative)
    solver.set_f_params(u, model.constants)
    solver.set_integrator(method, rtol=rtol, atol=atol, nsteps=100000)
    x = model.initial_state(Pos0=(0.0, 0.0, 5.0))
    track = []
    for k, command in enumerate(commands(seconds, case)):
        t = k * STEP
        u[:] = model.inputs(command)
        solver._integrator.first_step = STEP
        solver.set_initial_value(x, t)
        x = solver.integrate(t + STEP)
        track.append(x[0:3].copy())
    return np.array(track)


def fly_solved(model, seconds, rtol, atol, method="dop853", case="held"):
    """The same through `VehicleSimulator` (what the FMU steps with): the propeller lag solved in
    closed form over each step, the integrator carrying the rigid body (H100Model's
    step_derivative_into)."""
    simulator = VehicleSimulator(model, model.initial_state(Pos0=(0.0, 0.0, 5.0)), rtol=rtol, atol=atol,
                                 method=method)
    u = np.zeros(model.input_size)
    track = []
    for k, command in enumerate(commands(seconds, case)):
        u[:] = model.inputs(command)
        track.append(simulator.advance(k * STEP, (k + 1) * STEP, u)[0:3])
    return np.array(track)


class CountedH100(H100Model):
    """The H100 whose derivatives count their calls (in `calls`)."""
    calls = 0

    @staticmethod
    def derivative_at(t, x, u, c):
        CountedH100.calls += 1
        return state_derivative(t, x, u, c)

    @staticmethod
    def step_derivative_into(t, y, held, c, ydot):
        CountedH100.calls += 1
        step_derivative_into(t, y, held, c, ydot)


#: (label, lag, method, rtol): the lag integrated with the rest (the full derivative) or solved
#: in closed form over each step (VehicleSimulator's way, as the FMU), at the FMU's former
#: default tolerance (rtol 1e-4, the AUV's) and at the H100's (H100Model.TOLERANCES, the last row)
INTEGRATIONS = (("dopri5, lag integrated", "integrated", "dopri5", DEFAULT_RTOL),
                ("dop853, lag integrated", "integrated", "dop853", DEFAULT_RTOL),
                ("dopri5, lag solved", "solved", "dopri5", DEFAULT_RTOL),
                ("dop853, lag solved", "solved", "dop853", DEFAULT_RTOL),
                ("dopri5, lag solved, H100", "solved", H100Model.INTEGRATOR, H100Model.TOLERANCES[0]))


def flight(model, seconds, rtol, atol, lag, method, case):
    if lag == "integrated":
        return fly(model, seconds, rtol, atol, method, case, derivative=model.derivative_at)
    return fly_solved(model, seconds, rtol, atol, method, case)


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
    print("cost (us per call)                       compiled (numba)   plain Python   ratio")
    for key in compiled:
        print(f"  {key:<38} {compiled[key]:12.2f} {plain[key]:14.1f} {plain[key] / compiled[key]:7.1f}")

    model = make_model()
    counted = CountedH100(model.params, model.env, model.waves)
    steps = int(round(args.seconds / STEP))
    print(f"\n{args.seconds:.0f} s open-loop manoeuvre at a {STEP} s step, restarted each step, first step the "
          f"step (atol {DEFAULT_ATOL:g}); error: largest position error against dop853 at rtol 1e-10 with the lag "
          f"integrated; the H100's (VehicleSimulator's): {H100Model.INTEGRATOR} at rtol {H100Model.TOLERANCES[0]:g}, "
          f"lag solved")
    print(f"  {'commands':9s} {'integration':24s} {'rtol':>6s} {'us/step':>8s} {'x real time':>12s} "
          f"{'evaluations/step':>17s} {'error [m]':>10s}")
    for case in CASES:
        reference = fly(model, args.seconds, 1e-10, 1e-12, "dop853", case)
        for label, lag, method, rtol in INTEGRATIONS:
            flight(model, 1.0, rtol, DEFAULT_ATOL, lag, method, case)     # warm-up
            start = time.perf_counter()
            track = flight(model, args.seconds, rtol, DEFAULT_ATOL, lag, method, case)
            wall = time.perf_counter() - start
            CountedH100.calls = 0
            flight(counted, args.seconds, rtol, DEFAULT_ATOL, lag, method, case)
            error = float(np.max(np.linalg.norm(track - reference, axis=1)))
            print(f"  {case:9s} {label:24s} {rtol:6.0e} {wall / steps * 1e6:8.1f} "
                  f"{args.seconds / wall:12.0f} {CountedH100.calls / steps:17.1f} {error:10.2e}")


if __name__ == "__main__":
    main()
