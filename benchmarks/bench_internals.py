"""Benchmark of what each reach into another library's internals gains, against what a user waits
for: the whole `auv-cosim run survey` (with its plots), measured in the same run.

    .venv/bin/python benchmarks/bench_internals.py [--repeats 5]

Each internal is timed with and without it (the public path beside it), alternated, medians of
the repeats; the gain is then scaled to one survey run and given as a share of that run's wall
time:

* SciPy's integrator restarted without `ode`'s overhead (auv_cosim/compiled/scipy_internals.py
  `Restarts`): CPU microseconds per AUV step, times the survey's steps;
* one SciPy module imported without its subpackage (the same module, `import_alone`): CPU
  seconds of a fresh interpreter importing the vehicle library (once a run: the survey's three
  FMUs carry the same sources and share the one copy a process imports);
* numba's cache loaded without its compiler set-up (auv_cosim/compiled/numba_cache.py, off with
  AUV_NUMBA_FULL_LOAD=1): CPU seconds of a fresh interpreter loading the AUV's compiled
  physics from the cache and taking one derivative (the vehicle FMU's share of the start-up;
  the instruments' and control's kernels load the same way and are not counted);
The run's wall time is printed with its CPU seconds (the master's process and its children): on
a loaded machine the wall time stretches and the shares read small; the CPU seconds do not. A
share under 5 % of the run is below what the project keeps an internal for: the run plots'
shortcuts into matplotlib's internals (ticks placed once per view, each legend searched for
once) gained 0.068 CPU s of a 1.84 s survey run (3.7 %) and were dropped.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SURVEY_STEPS = 20370          # the survey's 2037 s at the 0.1 s control period


def _cpu_of(code: str, env=None) -> float:
    """CPU seconds of a fresh interpreter running `code` (its own measure, after start-up)."""
    wrapped = "import time\n_t0 = time.process_time()\n" + code + "\nprint(time.process_time() - _t0)"
    out = subprocess.run([PY, "-c", wrapped], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, **(env or {})}).stdout
    return float(out.split()[-1])


def _alternated(cases: dict, repeats: int) -> dict:
    samples = {name: [] for name in cases}
    for _ in range(repeats):
        for name, measure in cases.items():
            samples[name].append(measure())
    return {name: statistics.median(v) for name, v in samples.items()}


def restarts(repeats: int) -> dict:
    from auv_cosim.vehicles import VehicleSimulator
    from auv_cosim.vehicles.auv import AuvModel, inputs

    m = AuvModel()
    x0, u = m.cruise_state(1.5), inputs(m.cruise_power(1.5), rudder_yaw=0.05)
    steps = 3000

    def flown(fast):
        def measure():
            sim = VehicleSimulator(m, x0)
            sim._restarts.fast = fast
            sim.advance(0.0, 0.1, u)
            start = time.process_time()
            for k in range(1, steps + 1):
                sim.advance(0.1 * k, 0.1 * (k + 1), u)
            return (time.process_time() - start) / steps * 1e6
        return measure

    return _alternated({"internal": flown(True), "public": flown(False)}, repeats)


def import_alone(repeats: int) -> dict:
    code = "import auv_cosim.vehicles.simulator"
    off = "import auv_cosim.compiled.scipy_internals as s\ns.ENABLED = False\n" + code
    return _alternated({"internal": lambda: _cpu_of(code), "public": lambda: _cpu_of(off)}, repeats)


def numba_load(repeats: int) -> dict:
    code = ("from auv_cosim.vehicles.auv import AuvModel, inputs\nm = AuvModel()\n"
            "m.derivative(m.cruise_state(1.5), inputs(m.cruise_power(1.5)))")
    _cpu_of(code)   # the cache written once, if it is not yet
    return _alternated({"internal": lambda: _cpu_of(code),
                        "public": lambda: _cpu_of(code, {"AUV_NUMBA_FULL_LOAD": "1"})}, repeats)


def survey_wall(repeats: int, out: Path) -> tuple:
    """The median wall and CPU seconds of `auv-cosim run survey` with its plots."""
    import resource

    walls, cpus = [], []
    for k in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([str(Path(PY).parent / "auv-cosim"), "run", "survey", "--out", str(out / f"run{k}"), "--quiet"],
                       cwd=ROOT, check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        wall, cpu = survey_wall(3, tmp)
        print(f"auv-cosim run survey (with plots): {wall:.2f} s wall, {cpu:.2f} CPU s, the medians of 3")
        results = [
            ("SciPy: integrator restarts", restarts(args.repeats), "us a step", SURVEY_STEPS * 1e-6),
            ("SciPy: one module alone", import_alone(args.repeats), "CPU s an import", 1.0),
            ("numba: light cache load", numba_load(args.repeats), "CPU s a load", 1.0),
        ]
    print(f"{'internal':32s} {'with':>10s} {'without':>10s} {'unit':16s} {'gain a survey run':>18s}"
          f" {'of the wall':>12s} {'of the CPU':>11s}")
    for name, r, unit, scale in results:
        gain = (r["public"] - r["internal"]) * scale
        print(f"{name:32s} {r['internal']:10.4g} {r['public']:10.4g} {unit:16s} {gain:16.3f} s"
              f" {100 * gain / wall:10.1f} % {100 * gain / cpu:9.1f} %")


if __name__ == "__main__":
    main()
