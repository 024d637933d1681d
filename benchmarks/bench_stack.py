"""Benchmark of the survey co-simulation stack against its floor.

Prints, measured side by side in one run (the cases interleaved, repeat after repeat, and the
best of the repeats kept, because the machine is shared and noisy):

  (a) stack     the survey stack (Auv, AuvSensors, AuvControl) through the master, recorder on,
                plots off, at the 0.1 s step: the survey scenario with its lawn-mower lines made
                long enough that the mission outlasts the run (stop_when off);
  (b) floor     the same master, wiring, parameters and recorder with the no-op twins of the
                three FMUs (fmus/noop/, same variables, do_step does nothing), swapped in by
                editing the loaded scenario mapping's instance `fmu` paths;
  (c) Auv.fmu   the vehicle FMU alone through fmpy's low-level calls (fmi2SetReal of the 6
                inputs, fmi2DoStep, fmi2GetReal of the 22 outputs) in cruise, and its no-op twin;
  (d) library   the vehicle library alone, no FMI (VehicleSimulator.advance +
                AuvModel.output_vector per step);
  (e) per FMU   each FMU and its twin through fmpy's low-level calls, microseconds per call of
                set inputs / doStep / get outputs;

with the simulated time, the stepping wall time, the real-time factor, microseconds per
communication step and the ratio to the floor; and the start-up of the three FMUs (extract,
load, instantiate, set parameters, initialise) in a fresh interpreter, with a cold extraction
(an empty FMU cache folder) and a warm one.

    .venv/bin/python benchmarks/bench_stack.py [--hours 1] [--repeats 3] [--no-build]
    .venv/bin/python benchmarks/bench_stack.py --before DIR [--hours 0.3] [--repeats 3] ...
    .venv/bin/python benchmarks/bench_stack.py --breakdown [--hours 0.3] [--repeats 3] [--no-build]

`--breakdown` prints where a step of (a) and (b) goes instead: each FMI call (set inputs,
doStep, get outputs of each instance) as the master's C loop times it around the FMU's function
(auv_cosim/master/_step_loop.c: time_calls), the slaves' own steps (`fmu_do_step`) and the vehicle's
simulator step and DOPRI5 run as Python times them inside those calls, and what is left outside
the calls (the loop itself, the recorder, Python between blocks of steps).

`--before DIR` compares this checkout with another one (DIR: e.g. `git worktree add
/tmp/before main`, with its FMUs built: `./build.sh` there, or tools/build_fmus.py and
tools/build_noop_fmus.py run from it). Both are measured by this script, in child processes
alternating repeat after repeat (the project's code and FMUs of each checkout: `--root`), and
the figures are printed side by side with the ratio before / after.

The FMUs are brought up to date first (tools/build_fmus.py, tools/build_noop_fmus.py: both
rebuild only what is stale) and then copied to a temporary folder, so a rebuild of fmus/ during
the run cannot mix two builds (pythonfmu imports a slave module once per process).
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from ctypes import c_double, c_int, c_uint
from pathlib import Path
from auv_cosim.master import find_scenario

ROOT = Path(__file__).resolve().parent.parent
if "--root" in sys.argv[:-1]:   # measure another checkout's code and FMUs (see --before)
    ROOT = Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
sys.path.insert(0, str(ROOT))

try:   # as `auv-cosim` does, before numpy loads (auv_cosim/master/threads.py); children inherit it
    from auv_cosim.master.threads import single_threaded_blas
    single_threaded_blas()
except ImportError:   # a --before tree that predates it: the parent has set it already
    pass

import yaml  # noqa: E402

STEP = 0.1
SPEED = 1.4          # m/s, the survey's cruise speed
LINE = 500.0         # m, length of a survey line
SPACING = 50.0       # m, between lines
REAL = {"vehicle": "Auv", "sensors": "AuvSensors", "control": "AuvControl"}


# ------------------------------------------------------------------------------ set-up
def build(skip: bool) -> None:
    if skip:
        return
    for script in ("build_fmus.py", "build_noop_fmus.py"):
        subprocess.run([sys.executable, str(ROOT / "tools" / script), "-q"] if script == "build_fmus.py"
                       else [sys.executable, str(ROOT / "tools" / script)],
                       cwd=str(ROOT), check=True, stdout=subprocess.DEVNULL)


def snapshot(folder: Path) -> dict:
    """Copies of the six FMUs in `folder`: name -> path."""
    paths = {}
    for name in REAL.values():
        for src in (ROOT / "fmus" / f"{name}.fmu", ROOT / "fmus" / "noop" / f"{name}Noop.fmu"):
            if not src.is_file():
                sys.exit(f"bench_stack: {src} is missing (run ./build.sh and tools/build_noop_fmus.py)")
            dst = folder / src.name
            shutil.copy2(src, dst)
            paths[src.stem] = dst
    return paths


def survey_mapping(hours: float, fmus: dict, noop: bool) -> dict:
    """scenarios/survey.yaml as a mapping, with enough lawn-mower lines for `hours` of mission
    (the mission must still be running at the end), stop_when off, the FMUs of the snapshot."""
    scenario = yaml.safe_load((find_scenario("survey")).read_text())
    scenario["include"] = str(find_scenario("stacks/survey"))
    scenario.pop("stop_when", None)
    scenario["stop_time"] = round(hours * 3600.0, 6)
    scenario["plots"] = False
    lines = int(math.ceil(hours * 3600.0 * SPEED / (LINE + SPACING))) + 2
    points = []
    for i in range(lines):
        north = (0.0, LINE) if i % 2 == 0 else (LINE, 0.0)
        points += [(north[0], i * SPACING), (north[1], i * SPACING)]
    scenario["instances"]["control"]["parameters"]["Waypoints"] = "; ".join(f"{n:g},{e:g},10" for n, e in points)
    for instance, name in REAL.items():
        scenario["instances"].setdefault(instance, {})["fmu"] = str(fmus[name + ("Noop" if noop else "")])
    return scenario


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


# ------------------------------------------------------------------------------ start-up
def startup_child(mapping_file: str) -> None:
    """In a fresh interpreter: scenario load + validation, then the master's FMU start-up."""
    from auv_cosim.master.engine import simulate
    from auv_cosim.master.plan import build_plan
    from auv_cosim.master.scenario import load_scenario

    mapping = json.loads(Path(mapping_file).read_text())
    t0 = time.perf_counter()
    plan = build_plan(load_scenario(mapping), stop_time=STEP)
    t1 = time.perf_counter()
    outcome = simulate(plan, None, progress=False, echo_messages=False, t_call=time.perf_counter())
    assert outcome.status == "completed", outcome.reason
    print(json.dumps({"load": t1 - t0, "startup": outcome.startup_time}), flush=True)
    os._exit(0)  # pythonfmu 0.7.0 double-frees at interpreter exit (see tests/conftest.py)


def measure_startup(mapping: dict, folder: Path, repeats: int) -> dict:
    mapping_file = folder / "startup-mapping.json"
    mapping_file.write_text(json.dumps(mapping))
    best = {"cold": None, "warm": None}
    for r in range(repeats):
        cache = folder / f"fmu-cache-{r}"   # empty: the first start-up extracts (cold)
        for kind in ("cold", "warm"):
            env = dict(os.environ, AUV_MASTER_FMU_CACHE=str(cache))
            out = subprocess.run([sys.executable, __file__, "--startup-child", str(mapping_file),
                                  "--root", str(ROOT)],
                                 env=env, cwd=str(ROOT), capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"bench_stack: start-up child failed:\n{out.stdout}\n{out.stderr}")
            figures = json.loads(out.stdout.strip().splitlines()[-1])
            if best[kind] is None or figures["startup"] < best[kind]["startup"]:
                best[kind] = figures
    return best


# ------------------------------------------------------------------------------ master runs
def run_master(mapping: dict, out: Path) -> dict:
    from auv_cosim.master import run

    res = run(copy.deepcopy(mapping), out_dir=out, progress=False, plots=False, echo_messages=False)
    if res.status != "completed":
        sys.exit(f"bench_stack: the run failed: {res.reason}")
    s = res.summary
    return {"sim": s["simulated_time_s"], "wall": s["stepping_time_s"], "steps": s["steps"],
            "csv": digest(res.results_csv),
            "finished": bool(res.column("control.MissionFinished")[-1]) if "control.MissionFinished" in res.colmap else None}


# ------------------------------------------------------------------------------ one FMU, low level
class LowLevel:
    """One FMU instance driven through fmpy's ctypes entry points, as the master drives it:
    value-reference arrays and buffers built once, the status checked after every call."""

    def __init__(self, path: Path, name: str, parameters: dict, inputs: dict):
        from fmpy import read_model_description
        from fmpy.fmi2 import FMU2Slave

        from auv_cosim.master.fmi_log import MessageLog
        from auv_cosim.master.fmu_cache import extract_fmu

        md = read_model_description(str(path))
        self.log = MessageLog(echo=False)
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract_fmu(path),
                             modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
        self.fmu.instantiate(callbacks=self.log.callbacks, loggingOn=False)
        self.fmu.setupExperiment(startTime=0.0)
        by_name = {v.name: v for v in md.modelVariables}
        for key, value in parameters.items():
            var = by_name[key]
            {"Real": self.fmu.setReal, "String": self.fmu.setString,
             "Integer": self.fmu.setInteger}[var.type]([var.valueReference], [value])
        self.fmu.enterInitializationMode()
        self.fmu.exitInitializationMode()

        def array(ctype, values):
            return (ctype * len(values))(*values)

        def pick(kind, causality):
            return [v.valueReference for v in md.modelVariables if v.type == kind and v.causality == causality]

        real_in = [(by_name[k].valueReference, v) for k, v in inputs.items() if by_name[k].type == "Real"]
        bool_in = [(by_name[k].valueReference, int(v)) for k, v in inputs.items() if by_name[k].type == "Boolean"]
        f = self.fmu._functions
        comp = self.fmu.component
        calls_set, calls_get = [], []
        for fn, items, ctype in ((f["fmi2SetReal"], real_in, c_double), (f["fmi2SetBoolean"], bool_in, c_int)):
            if items:
                calls_set.append((fn, array(c_uint, [a for a, _ in items]), len(items), array(ctype, [b for _, b in items])))
        for fn, kind, ctype in ((f["fmi2GetReal"], "Real", c_double), (f["fmi2GetInteger"], "Integer", c_int),
                                (f["fmi2GetBoolean"], "Boolean", c_int)):
            vrs = pick(kind, "output")
            if vrs:
                calls_get.append((fn, array(c_uint, vrs), len(vrs), (ctype * len(vrs))()))
        do_step = f["fmi2DoStep"]
        self.t = 0.0

        def set_inputs():
            for fn, vr, n, buf in calls_set:
                if fn(comp, vr, n, buf) > 1:
                    raise RuntimeError(f"{name}: set failed")

        def step():
            if do_step(comp, self.t, STEP, 1) > 1:
                raise RuntimeError(f"{name}: fmi2DoStep failed at t={self.t}: {self.log.last}")
            self.t += STEP

        def get_outputs():
            for fn, vr, n, buf in calls_get:
                if fn(comp, vr, n, buf) > 1:
                    raise RuntimeError(f"{name}: get failed")

        self.set_inputs, self.step, self.get_outputs = set_inputs, step, get_outputs

    def run(self, steps: int) -> float:
        """Wall time of `steps` communication steps (set inputs, doStep, get outputs)."""
        set_inputs, step, get_outputs = self.set_inputs, self.step, self.get_outputs
        t0 = time.perf_counter()
        for _ in range(steps):
            set_inputs()
            step()
            get_outputs()
        return time.perf_counter() - t0

    def per_call(self, calls: int) -> dict:
        """Microseconds per call of each of the three parts, each timed in a loop of its own."""
        out = {}
        for part in ("set_inputs", "step", "get_outputs"):
            fn = getattr(self, part)
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            out[part] = (time.perf_counter() - t0) / calls * 1e6
        return out

    def free(self):
        try:
            self.fmu.terminate()
            self.fmu.fmi2FreeInstance(self.fmu.component)
        except Exception:
            pass


def cruise_case(hours: float):
    """Parameters and inputs of the vehicle in cruise at the survey speed, deep enough that
    the slightly buoyant vehicle (no fin trim) is still well submerged after `hours`."""
    from auv_cosim.vehicles.auv import AuvParameters, AuvModel
    from auv_cosim.vehicles import Environment

    model = AuvModel(AuvParameters(), Environment(SeaFloorDepth=1000.0))
    depth = 30.0 + 90.0 * hours            # it rises about 80 m per hour
    parameters = {"Pos0[3]": depth, "LocalVel0[1]": SPEED, "SeaFloorDepth": 1000.0}
    inputs = {"ThrustPower": float(model.cruise_power(SPEED)), "RudderYaw": 0.0, "RudderDive": 0.0,
              "ExternalForce[1]": 0.0, "ExternalForce[2]": 0.0, "ExternalForce[3]": 0.0}
    return model, parameters, inputs


SENSOR_INPUTS = {"Pos[1]": 120.0, "Pos[2]": 50.0, "Pos[3]": 12.0, "Euler[1]": 0.01, "Euler[2]": -0.05,
                 "Euler[3]": 1.2, "Depth": 12.0, "Speed": 1.4, "Altitude": 40.0, "Vel[1]": 0.5,
                 "Vel[2]": 1.3, "Vel[3]": 0.1}
CONTROL_INPUTS = {"MeasuredDepth": 12.0, "MeasuredPitch": -0.05, "MeasuredHeading": 0.02,
                  "MeasuredSpeed": 1.4, "MeasuredAltitude": 40.0, "AltitudeValid": True,
                  "NavNorth": 120.0, "NavEast": 1.0}


def library_run(model, parameters: dict, inputs: dict, steps: int) -> float:
    from auv_cosim.vehicles import VehicleSimulator
    from auv_cosim.vehicles.auv import initial_state

    x0 = initial_state(Pos0=(0.0, 0.0, parameters["Pos0[3]"]), LocalVel0=(parameters["LocalVel0[1]"], 0.0, 0.0))
    sim = VehicleSimulator(model, x0)
    u = list(inputs.values())
    advance, output_vector = sim.advance, model.output_vector
    t = 0.0
    t0 = time.perf_counter()
    for _ in range(steps):
        x = advance(t, t + STEP, u)
        output_vector(x, u)
        t += STEP
    return time.perf_counter() - t0


# ------------------------------------------------------------------------------ --before
def compare(args) -> None:
    """Measure the checkout `args.before` and this one, each by this script in a child process
    (`--root`), alternating repeat after repeat; print the best figures side by side."""
    roots = {"before": Path(args.before).resolve(), "after": ROOT}
    for root in roots.values():
        if not (root / "fmus" / "noop").is_dir():
            sys.exit(f"bench_stack: {root}/fmus/noop is missing: build the FMUs there first "
                     f"(./build.sh, then tools/build_noop_fmus.py)")
    best: dict = {"before": {}, "after": {}}
    csv = {}
    with tempfile.TemporaryDirectory(prefix="bench-stack-compare-") as folder:
        for r in range(args.repeats):
            for label, root in roots.items():
                out = Path(folder) / f"{label}-{r}.json"
                command = [sys.executable, __file__, "--root", str(root), "--json", str(out), "--repeats", "1",
                           "--hours", str(args.hours), "--calls", str(args.calls),
                           "--startup-repeats", "1", *(["--no-build"] if args.no_build or r else [])]
                done = subprocess.run(command, cwd=str(root), capture_output=True, text=True)
                if done.returncode != 0 or not out.is_file():
                    sys.exit(f"bench_stack: the {label} run failed:\n{done.stdout}\n{done.stderr}")
                figures = json.loads(out.read_text())
                csv.setdefault(label, set()).update(figures["csv"])
                flat = {f"us_per_step {k}": v for k, v in figures["us_per_step"].items()}
                flat.update({f"startup {k}": v for k, v in figures["startup"].items()})
                flat.update({f"per_call {fmu} {part}": us for fmu, parts in figures["per_call"].items()
                             for part, us in parts.items()})
                for key, value in flat.items():
                    best[label][key] = min(best[label].get(key, math.inf), value)
    print(f"bench_stack --before: {args.hours:g} h simulated per run, best of {args.repeats} alternating "
          f"repeats; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} after")
    print(f"  before: {roots['before']}\n  after:  {roots['after']}")
    rows = [("(a) stack us/step", "us_per_step stack"), ("(b) floor us/step", "us_per_step floor"),
            ("(c) Auv.fmu alone us/step", "us_per_step Auv"), ("    AuvNoop.fmu alone us/step", "us_per_step AuvNoop"),
            ("(d) library us/step", "us_per_step library"),
            ("start-up, cold extraction s", "startup cold"), ("start-up, warm extraction s", "startup warm")]
    rows += [(f"(e) {fmu} {part.replace('_', ' ')} us", f"per_call {fmu} {part}")
             for fmu in ("Auv", "AuvNoop", "AuvSensors", "AuvSensorsNoop", "AuvControl", "AuvControlNoop")
             for part in ("set_inputs", "step", "get_outputs")]
    print(f"{'figure':40s} {'before':>9s} {'after':>9s} {'before/after':>12s}")
    for label, key in rows:
        b, a = best["before"].get(key), best["after"].get(key)
        if b is None or a is None:
            continue
        print(f"{label:40s} {b:9.3f} {a:9.3f} {b / a:12.2f}")
    same = len(csv["before"] | csv["after"]) == 1
    print(f"stack results.csv the same before and after and over the repeats: {'yes' if same else 'NO'}")
    sys.stdout.flush()
    os._exit(0)


# ------------------------------------------------------------------------------ --breakdown
KIND_NAMES = {0: "set", 1: "set", 2: "doStep", 3: "get", 4: "get"}   # auv_cosim/master/native_loop.py: CALL_*


def instance_order() -> list:
    """The calling order of the survey stack's instances (scenarios/stacks/survey.yaml)."""
    return list(yaml.safe_load((find_scenario("stacks/survey")).read_text())["order"])


def timed_pieces():
    """Python functions of the slaves timed inside the master's run (perf_counter_ns around each
    call, added per name): each slave's own step (`fmu_do_step`, what FmuSlave.do_step guards)
    and the vehicle's simulator step and its DOPRI5 run. Returns (install, remove, totals)."""
    from auv_cosim.fmu.slave import FmuSlave
    from auv_cosim.vehicles.simulator import VehicleSimulator

    totals: dict = {}
    originals = []

    def wrap(owner, attribute, name):
        original = vars(owner).get(attribute)
        if original is None:   # (an older tree)
            return
        totals[name] = 0
        clock = time.perf_counter_ns

        def timed(*args):
            started = clock()
            try:
                return original(*args)
            finally:
                totals[name] += clock() - started
        originals.append((owner, attribute, original))
        setattr(owner, attribute, timed)

    def install():
        for module in [m for name, m in list(sys.modules.items()) if name.endswith("_fmu")]:
            for value in list(vars(module).values()):
                if isinstance(value, type) and issubclass(value, FmuSlave) and value.__module__ == module.__name__:
                    # the class that defines it (the vehicle's: VehicleSlave), under the slave's name
                    owner = next(klass for klass in value.__mro__ if "fmu_do_step" in vars(klass))
                    if not any(done is owner for done, _a, _o in originals):
                        wrap(owner, "fmu_do_step", f"{value.__name__}.fmu_do_step")
        wrap(VehicleSimulator, "step" if "step" in vars(VehicleSimulator) else "advance", "VehicleSimulator.step")
        wrap(VehicleSimulator, "_integrate", "VehicleSimulator._integrate (DOPRI5)")

    def remove():
        for owner, attribute, original in reversed(originals):
            setattr(owner, attribute, original)
        originals.clear()
    return install, remove, totals


def breakdown(args) -> None:
    """Where a step of the survey stack goes: the stack and its floor (the no-op twins) through
    the master, the C loop timing each FMI call (auv_cosim/master/_step_loop.c: time_calls) and Python
    timing the slaves' own steps; best of the repeats, microseconds per step."""
    import numpy as np

    from auv_cosim.master import native_loop

    build(args.no_build)
    if native_loop.available()[0] is None:
        sys.exit(f"bench_stack --breakdown: the master's C loop is not in use: {native_loop.available()[1]}")
    folder = Path(tempfile.mkdtemp(prefix="bench-stack-"))
    try:
        fmus = snapshot(folder)
        cases = {"stack": survey_mapping(args.hours, fmus, noop=False),
                 "floor": survey_mapping(args.hours, fmus, noop=True)}
        for label, mapping in cases.items():   # imports, numba caches, first steps
            run_master(dict(mapping, stop_time=10.0), folder / f"warm-{label}")
        install, remove, totals = timed_pieces()
        ns, kinds = np.zeros(64, dtype=np.int64), np.full(64, -1, dtype=np.int64)
        best: dict = {}
        for _ in range(args.repeats):
            for label, mapping in cases.items():
                ns[:], kinds[:] = 0, -1
                for name in totals:
                    totals[name] = 0
                install()
                native_loop.time_calls(ns, kinds)
                try:
                    result = run_master(mapping, folder / label)
                finally:
                    native_loop.time_calls(None, None)
                    remove()
                steps = result["steps"]
                figures = {"wall": result["wall"] / steps * 1e6}
                order, instance, previous = instance_order(), -1, None
                for i in range(len(ns)):
                    kind = int(kinds[i])
                    if kind < 0:
                        break
                    part = KIND_NAMES[kind]
                    if instance < 0 or (part in ("set", "doStep") and previous in ("doStep", "get")):
                        instance += 1
                    key = f"{order[instance]} {part}"
                    figures[key] = figures.get(key, 0.0) + ns[i] / steps / 1e3
                    previous = part
                figures.update({name: total / steps / 1e3 for name, total in totals.items() if total})
                kept = best.setdefault(label, {})
                for key, value in figures.items():
                    kept[key] = min(kept.get(key, math.inf), value)
        print(f"bench_stack --breakdown: {args.hours:g} h simulated, best of {args.repeats} alternating repeats; "
              f"us per step; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} after")
        print(f"  {'':44s} {'stack':>8s} {'floor':>8s} {'stack - floor':>13s}")

        def line(label, key_stack, key_floor=None):
            a = best["stack"].get(key_stack)
            b = best["floor"].get(key_floor) if key_floor else None
            if a is None:
                return
            print(f"  {label:44s} {a:8.2f} {'' if b is None else f'{b:8.2f}':>8s}"
                  f" {'' if b is None else f'{a - b:13.2f}':>13s}")
        line("whole step (stepping wall / steps)", "wall", "wall")
        twins = {"vehicle": ("Auv", "AuvNoop"), "sensors": ("AuvSensors", "AuvSensorsNoop"),
                 "control": ("AuvControl", "AuvControlNoop")}
        calls_total = {"stack": 0.0, "floor": 0.0}
        for name in instance_order():
            for part in ("set", "doStep", "get"):
                line(f"{name} {part}", f"{name} {part}", f"{name} {part}")
                for label in calls_total:
                    calls_total[label] += best[label].get(f"{name} {part}", 0.0)
            real, twin = twins[name]
            line(f"  of doStep: {real}.fmu_do_step", f"{real}.fmu_do_step", f"{twin}.fmu_do_step")
            if name == "vehicle":
                line("    of which VehicleSimulator.step (or advance)", "VehicleSimulator.step")
                line("      of which its DOPRI5 run (_integrate)", "VehicleSimulator._integrate (DOPRI5)")
        for label in calls_total:
            best[label]["outside"] = best[label]["wall"] - calls_total[label]
        line("outside the FMI calls (loop, recorder, Python)", "outside", "outside")
        print("  (the Python timers add about 0.1 us to each timed function; the C timer about 0.05 us a call)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    sys.stdout.flush()
    os._exit(0)


# ------------------------------------------------------------------------------ main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hours", type=float, default=1.0, help="simulated hours per run (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats, the best counts (default 3)")
    parser.add_argument("--startup-repeats", type=int, default=3)
    parser.add_argument("--calls", type=int, default=5000, help="calls per part in (e) (default 5000)")
    parser.add_argument("--no-build", action="store_true", help="do not bring fmus/ and fmus/noop/ up to date first")
    parser.add_argument("--before", metavar="DIR",
                        help="another checkout (e.g. of main) with its FMUs built: measure both, side by side")
    parser.add_argument("--breakdown", action="store_true",
                        help="where a step goes: each FMI call of the stack and of its floor timed in the master's C "
                             "loop, the slaves' own steps in Python")
    parser.add_argument("--root", help=argparse.SUPPRESS)        # read at import (see ROOT)
    parser.add_argument("--json", help=argparse.SUPPRESS)        # a child of --before writes its figures
    parser.add_argument("--startup-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.startup_child:
        startup_child(args.startup_child)
    if args.before:
        compare(args)
    if args.breakdown:
        breakdown(args)

    build(args.no_build)
    folder = Path(tempfile.mkdtemp(prefix="bench-stack-"))
    try:
        fmus = snapshot(folder)
        stack = survey_mapping(args.hours, fmus, noop=False)
        floor = survey_mapping(args.hours, fmus, noop=True)
        steps = int(round(args.hours * 3600.0 / STEP))

        print(f"bench_stack: {args.hours:g} h simulated at a {STEP:g} s step ({steps} steps), best of "
              f"{args.repeats} interleaved repeats; {os.cpu_count()} CPUs, load average "
              f"{os.getloadavg()[0]:.2f} before; python {sys.version.split()[0]}")
        print("FMUs: " + ", ".join(f"{n} {digest(p)}" for n, p in fmus.items()))

        # ---- start-up, in fresh interpreters (before anything is imported here)
        startup = measure_startup(stack, folder, args.startup_repeats)

        # ---- warm up: every FMU loaded once (imports, numba cache), then the library
        run_master(dict(stack, stop_time=10.0), folder / "warm-stack")
        run_master(dict(floor, stop_time=10.0), folder / "warm-floor")
        model, vparams, vinputs = cruise_case(args.hours)
        import auv_cosim.vehicles.auv  # noqa: F401  (the library imported before it is timed)

        lows = {
            "Auv": lambda: LowLevel(fmus["Auv"], "vehicle", vparams, vinputs),
            "AuvNoop": lambda: LowLevel(fmus["AuvNoop"], "vehicle", vparams, vinputs),
            "AuvSensors": lambda: LowLevel(fmus["AuvSensors"], "sensors", {}, SENSOR_INPUTS),
            "AuvSensorsNoop": lambda: LowLevel(fmus["AuvSensorsNoop"], "sensors", {}, SENSOR_INPUTS),
            "AuvControl": lambda: LowLevel(fmus["AuvControl"], "control",
                                           {"Waypoints": "0,0,10; 100000,0,10", "DiveMode": "yoyo"}, CONTROL_INPUTS),
            "AuvControlNoop": lambda: LowLevel(fmus["AuvControlNoop"], "control", {}, CONTROL_INPUTS),
        }

        best: dict = {}
        per_call: dict = {}
        hashes, finished = set(), set()

        def keep(key, sim, wall):
            if key not in best or wall < best[key][1]:
                best[key] = (sim, wall)

        for r in range(args.repeats):
            a = run_master(stack, folder / "stack")
            keep("stack", a["sim"], a["wall"])
            hashes.add(a["csv"])
            finished.add(a["finished"])
            b = run_master(floor, folder / "floor")
            keep("floor", b["sim"], b["wall"])
            for name in ("Auv", "AuvNoop"):
                fmu = lows[name]()
                keep(name, steps * STEP, fmu.run(steps))
                fmu.free()
            keep("library", steps * STEP, library_run(model, vparams, vinputs, steps))
            for name, make in lows.items():
                fmu = make()
                fmu.run(200)  # past the first steps
                for part, us in fmu.per_call(args.calls).items():
                    per_call.setdefault(name, {})
                    per_call[name][part] = min(per_call[name].get(part, math.inf), us)
                fmu.free()

        floor_us = best["floor"][1] / steps * 1e6
        print()
        print(f"{'case':48s} {'sim s':>7s} {'wall s':>7s} {'x real time':>11s} {'us/step':>8s} {'/ floor':>7s}")
        labels = {
            "stack": "(a) stack: master + 3 FMUs, recorder on",
            "floor": "(b) floor: master + 3 no-op twins, recorder on",
            "Auv": "(c) Auv.fmu alone, fmpy low-level, cruise",
            "AuvNoop": "    AuvNoop.fmu alone (its no-op twin)",
            "library": "(d) vehicle library alone (no FMI)",
        }
        for key, label in labels.items():
            sim, wall = best[key]
            us = wall / round(sim / STEP) * 1e6
            print(f"{label:48s} {sim:7.0f} {wall:7.3f} {sim / wall:11.0f} {us:8.1f} {us / floor_us:7.2f}")
        print(f"stack results.csv identical over the repeats: {'yes' if len(hashes) == 1 else 'NO'}; "
              f"mission still running at the end: {'yes' if finished == {False} else 'NO'}")
        print()
        print("start-up of the three FMUs in a fresh interpreter (extract, load, instantiate, set parameters, "
              "initialise; best of %d):" % args.startup_repeats)
        for kind in ("cold", "warm"):
            s = startup[kind]
            print(f"  {kind} extraction: {s['startup']:.3f} s  (+ {s['load']:.3f} s reading and validating the "
                  f"scenario and the three modelDescription.xml)")
        print()
        print("(e) each FMU alone through fmpy low-level calls, us per call (best of the repeats):")
        print(f"  {'FMU':16s} {'set inputs':>10s} {'doStep':>8s} {'get outputs':>11s} {'total':>8s}")
        for name, parts in per_call.items():
            total = sum(parts.values())
            print(f"  {name:16s} {parts['set_inputs']:10.1f} {parts['step']:8.1f} {parts['get_outputs']:11.1f} {total:8.1f}")
        origin = os.path.dirname(getattr(auv_cosim.vehicles, "__file__", "?"))
        print(f"(auv_cosim.vehicles for (d) imported from {origin})")
        if args.json:
            Path(args.json).write_text(json.dumps({
                "us_per_step": {key: wall / round(sim / STEP) * 1e6 for key, (sim, wall) in best.items()},
                "startup": {kind: startup[kind]["startup"] for kind in ("cold", "warm")},
                "per_call": per_call, "csv": sorted(hashes)}))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    sys.stdout.flush()
    os._exit(0)  # pythonfmu 0.7.0 double-frees at interpreter exit (see tests/conftest.py)


if __name__ == "__main__":
    main()
