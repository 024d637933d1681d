"""Benchmark of the AUV's compiled physics, piece by piece: where a step's time goes.

Prints nanoseconds per call, measured side by side in one run (each checkout in its own
interpreter, one after the other, best of 5 rounds):

  in numba   each force function, the whole derivative (`state_derivative_at`) and the outputs
             (`output_vector`), called from a compiled loop that nudges the surge speed every
             call and sums every element of the result (else the compiler hoists a pure
             function's work out of the loop, or drops what is not used): the physics' own cost, without the Python-to-numba dispatch;
  in Python  the derivative called from Python (dispatch, boxing of the arrays), one
             `VehicleSimulator.advance` of 0.1 s (SciPy's dopri5, 7 derivative calls), and the
             same dopri5 step with a right-hand side that returns a constant array (SciPy's own
             floor under an `advance`);
  one call   what one of those derivative calls costs, piece by piece: the simulator's
             right-hand side as SciPy calls it (f(t, y): a Python frame calling the compiled
             derivative's machine-code entry, `_packed_right_hand_side`), that entry alone
             (`derivative_packed(t, y, work)`), the entry of a compiled function of the same
             arguments that does nothing (numba's own cost of a call: unboxing t and two
             arrays), a compiled function returning its last argument (an array: numba hands
             back the same object), and a Python function of (t, y) returning an array (a frame).
             What a cheaper callable could save per call is the frame and numba's call cost;
             SciPy's own part of a call (it wraps y in a new array and checks what f returns)
             is in the constant right-hand side's dopri5 step above.

    .venv/bin/python benchmarks/bench_auv_derivative.py [--before DIR]

`--before DIR` adds a column for another checkout of the project (its auv_cosim.vehicles) and the
ratio now / before. The state is a cruise at 1.4 m/s with small sway, heave and rates, the
fins deflected, in still water.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: name -> the expression timed in a compiled loop (t, x, u, c in scope; d: dynamics, f: forces)
IN_NUMBA = {
    "axial_drag_wrench": "f.axial_drag_wrench(x[7:10], c[d.C_RHO], c[d.C_FRONTAL_AREA], c[d.C_AXIAL_CD])",
    "cross_flow_strip_wrench": "f.cross_flow_strip_wrench(x[7:10], x[10:13], c[d.C_RHO], c[d.C_CROSS_FLOW_CD], "
                               "c[d.C_SECTION_X:d.C_SECTION_X + 3], c[d.C_SECTION_D:d.C_SECTION_D + 3], "
                               "c[d.C_SECTION_L:d.C_SECTION_L + 3])",
    "slender_body_lift_wrench": "f.slender_body_lift_wrench(x[7:10], x[10:13], c[d.C_RHO], c[d.C_LIFT_X_AFT], "
                                "c[d.C_LIFT_AREA_AFT], c[d.C_LIFT_X_FORE], c[d.C_LIFT_AREA_FORE])",
    "rudder_wrench (one plane)": "d._rudder(1, x[7:10], x[10:13], 0.1, c)",
    "coriolis_wrench": "f.coriolis_wrench(x[7:10], x[10:13], c[d.C_MASS], c[d.C_INERTIA:d.C_INERTIA + 3], "
                       "c[d.C_ADDED:d.C_ADDED + 3], c[d.C_ADDED + 3:d.C_ADDED + 6])",
    "weight_and_buoyancy_wrench": "f.weight_and_buoyancy_wrench(rotation_matrix(x[3:7]), x[2], c[d.C_MASS], "
                                  "c[d.C_VOLUME], c[d.C_RADIUS], c[d.C_RHO], c[d.C_GRAVITY], "
                                  "c[d.C_COG:d.C_COG + 3], 1.0)",
    "thrust_wrench": "f.thrust_wrench(30.0, c[d.C_THRUSTER_POS:d.C_THRUSTER_POS + 3])",
    "hydrodynamic_wrench (all of it)": "d.hydrodynamic_wrench(x[7:10], x[10:13], 0.1, -0.05, c)",
    "state_derivative_at": "d.state_derivative_at(t, x, u, c)",
    "output_vector": "d.output_vector(t, x, u, c)",
}
LOOPS = 100000


def measure(root: str) -> dict:
    """The figures of the checkout at `root` (its auv_cosim.vehicles imported first on the path)."""
    sys.path.insert(0, root)
    import numba
    import numpy as np

    from auv_cosim.vehicles.auv import AuvModel, inputs
    from auv_cosim.vehicles import VehicleSimulator
    from auv_cosim.vehicles.auv import dynamics as d
    from auv_cosim.vehicles.auv import forces as f
    from auv_cosim.vehicles.rotation import rotation_matrix
    from auv_cosim.vehicles.simulator import ode

    model = AuvModel()
    x = model.cruise_state(1.4, depth=20.0)
    x[7:13] = [1.4, 0.05, -0.03, 0.02, -0.01, 0.03]
    u = inputs(30.0, 0.1, -0.05)
    c = model.constants

    def best_ns(run, *args, n):
        run(*args)
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            run(*args)
            best = min(best, time.perf_counter() - start)
        return best / n * 1e9

    figures = {}
    for name, expression in IN_NUMBA.items():
        scope = dict(d=d, f=f, rotation_matrix=rotation_matrix, np=np, numba=numba)
        # the surge speed moves a little every call and every element of the result is used:
        # the compiler may neither hoist the work out of the loop nor drop part of it
        exec("@numba.njit\ndef loop(n, t, x, u, c):\n    s = 0.0\n    for i in range(n):\n"
             f"        x[7] += 1e-12\n        w = {expression}\n        for k in range(len(w)):\n"
             "            s += w[k]\n    return s", scope)
        x[7] = 1.4
        figures["numba: " + name] = best_ns(scope["loop"], LOOPS, 0.0, x, u, c, n=LOOPS)

    def python_loop(function, n):
        def run():
            for _ in range(n):
                function()
        return run

    derivative = d.state_derivative_at
    figures["python: state_derivative_at"] = best_ns(
        python_loop(lambda: derivative(0.0, x, u, c), 20000), n=20000)
    sim = VehicleSimulator(model, x)
    figures["python: VehicleSimulator.advance 0.1 s"] = best_ns(
        python_loop(lambda: sim.advance(0.0, 0.1, u), 5000), n=5000)
    constant = np.zeros(x.size)
    floor = ode(lambda t, y, u, c: constant)
    floor.set_f_params(u, c)
    floor.set_integrator("dopri5", rtol=1e-4, atol=1e-6)

    def floor_step():
        floor._integrator.first_step = 0.1
        floor.set_initial_value(x, 0.0)
        floor.integrate(0.1)
    figures["python: dopri5 0.1 s, constant right-hand side"] = best_ns(
        python_loop(floor_step, 5000), n=5000)
    figures.update(one_call(sim, np, numba))
    return figures


def one_call(sim, np, numba) -> dict:
    """The pieces of one right-hand side call of `sim` as SciPy's DOPRI5 makes it (see the
    module); {} for a checkout whose simulator has no packed right-hand side."""
    right_hand_side = sim._solver.f
    cells = [cell.cell_contents for cell in getattr(right_hand_side, "__closure__", None) or ()]
    arrays = [a for a in cells if isinstance(a, np.ndarray)]
    entries = [c for c in cells if not isinstance(c, np.ndarray)]
    if len(arrays) != 2 or len(entries) != 1:
        return {}
    work, derivative = sorted(arrays, key=len, reverse=True)
    entry = entries[0]
    y = np.array(sim.state)
    n = 100000

    def timed(function, *args):
        def run():
            for _ in range(n):
                function(*args)
        best = float("inf")
        run()
        for _ in range(5):
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        return best / n * 1e9

    @numba.njit
    def empty(t, y, work):
        pass

    @numba.njit
    def returning(t, y, work, derivative):
        return derivative

    def entry_of(function, *args):
        function(*args)
        return function.overloads[tuple(numba.typeof(a) for a in args)].entry_point

    def frame(t, y):
        return derivative

    return {
        "one call: simulator's right-hand side f(t, y)": timed(right_hand_side, 0.0, y),
        "one call: derivative_packed's entry (t, y, work)": timed(entry, 0.0, y, work),
        "one call: an empty compiled entry (t, y, work)": timed(entry_of(empty, 0.0, y, work), 0.0, y, work),
        "one call: a compiled entry returning its array argument": timed(
            entry_of(returning, 0.0, y, work, derivative), 0.0, y, work, derivative),
        "one call: a Python function (t, y) returning an array": timed(frame, 0.0, y),
    }


def child(root: str) -> dict:
    output = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", root],
                            check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another checkout of the project to measure beside this one")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child)))
        return 0
    load = os.getloadavg()[0]
    now = child(ROOT)
    before = child(os.path.abspath(args.before)) if args.before else None
    print(f"bench_auv_derivative: ns per call, best of 5 rounds; {os.cpu_count()} CPUs, load average "
          f"{load:.2f} before, {os.getloadavg()[0]:.2f} after; python {sys.version.split()[0]}")
    header = f"{'':52s} {'now':>10s}"
    if before:
        header += f" {'before':>10s} {'now/before':>11s}"
    print(header)
    for name, value in now.items():
        line = f"{name:52s} {value:10.0f}"
        if before and name in before:
            line += f" {before[name]:10.0f} {value / before[name]:11.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
