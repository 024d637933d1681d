"""Benchmark of the H100 stack (H100, H100Sensors, H100Control) through the master at the 0.1 s
control period, against its FMI floor. Prints, measured side by side in one run:

  stack     the h100_hold scenario (station keeping, instrument noise on, recorder on, plots off)
            through the master, for each controller: simulated time, stepping wall time (the
            master's ``stepping_time_s``: start-up and writing excluded), real-time factor and
            microseconds per communication step;
  floor     the same master, wiring, parameters and recorder with the no-op twins of the three
            FMUs (fmus/noop/H100Noop.fmu etc., built by tools/build_noop_fmus.py: the same
            variables, a do_step that does nothing), swapped in by editing the loaded scenario
            mapping's instance ``fmu`` paths: what the FMI boundary and the master cost without
            any model, the floor under the 1000x bar (100 us per step);
  per FMU   each FMU alone through fmpy, its recorded inputs of the stack run replayed step by
            step (the controller's commands jump at every step, as in the stack): microseconds
            of CPU time per fmi2DoStep, and the same for its no-op twin (best of three replays, each a new
            instance: the first loads the FMU's numba caches within its first steps); the pid run's
            inputs for the three FMUs, and the control FMU again on the lqr and smc runs' inputs
            (one line per controller);
  alone     the control stack in plain Python (no FMI), microseconds per control step.

  before    with `--before DIR`: the same stack and replays with DIR's code and FMUs (a checkout of
            an earlier commit with its fmus/ built, e.g. `git archive main | tar -x -C DIR` and
            `tools/build_fmus.py` there), interleaved with this tree's, side by side.

    .venv/bin/python benchmarks/bench_h100_stack.py [--seconds 600] [--repeats 3] [--no-build] [--before DIR]

The controllers are interleaved repeat after repeat, the stack and its floor too, and the best
repeat is kept (the machine is shared); the load average is printed. The FMUs are brought up to
date first (tools/build_fmus.py and tools/build_noop_fmus.py rebuild only what is stale) and
copied to a temporary folder, so that a rebuild during the run cannot mix two builds. Each run
is a child process with its tree first on sys.path (pythonfmu FMUs share the host's modules: two
builds of one vehicle library cannot meet in one process), a 10 s warm-up run before the timed
one (imports, numba's caches, the LQR design).
"""
from __future__ import annotations

import argparse
import copy
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from auv_cosim.master import find_scenario

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:   # as `auv-cosim` does, before numpy loads (auv_cosim/master/threads.py); children inherit it
    from auv_cosim.master.threads import single_threaded_blas
    single_threaded_blas()
except ImportError:   # a --before tree that predates it: the parent has set it already
    pass

import yaml  # noqa: E402

CONTROLLERS = ("pid", "lqr", "smc")
#: instance -> FMU name, as scenarios/stacks/h100.yaml wires them
FMUS = {"vehicle": "H100", "sensors": "H100Sensors", "control": "H100Control"}
STEP = 0.1


def build(skip: bool) -> None:
    if skip:
        return
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_fmus.py"), "-q"], cwd=str(ROOT), check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, str(ROOT / "tools" / "build_noop_fmus.py"), *FMUS.values()], cwd=str(ROOT),
                   check=True, stdout=subprocess.DEVNULL)


def snapshot(folder: Path, tree: Path = ROOT, noop_twins: bool = True) -> dict:
    """Copies of the three FMUs of `tree` (and of their twins) in `folder`: (instance, noop) -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for instance, name in FMUS.items():
        sources = [(False, tree / "fmus" / f"{name}.fmu")]
        if noop_twins:
            sources.append((True, tree / "fmus" / "noop" / f"{name}Noop.fmu"))
        for noop, src in sources:
            if not src.is_file():
                sys.exit(f"bench_h100_stack: {src} is missing (run ./build.sh and tools/build_noop_fmus.py)")
            paths[instance, noop] = Path(shutil.copy2(src, folder / src.name))
    return paths


def _scenarios(tree: Path) -> Path:
    """`tree`'s H100 scenario folder (its unit's, or scenarios/ in an older checkout)."""
    unit = tree / "auv_cosim" / "vehicles" / "h100" / "scenarios"
    return unit if unit.is_dir() else tree / "scenarios"


def hold_mapping(controller: str, seconds: float, fmus: dict, noop: bool, tree: Path = ROOT) -> dict:
    """`tree`'s h100_hold scenario as a mapping: `seconds` long, plots off, the controller
    chosen, the FMUs of the snapshot (the real ones or their no-op twins)."""
    scenario = yaml.safe_load((_scenarios(tree) / "h100_hold.yaml").read_text())
    scenario["include"] = str(_scenarios(tree) / "stacks" / "h100.yaml")
    scenario["stop_time"] = seconds
    scenario["plots"] = False
    instances = scenario.setdefault("instances", {})
    instances.setdefault("control", {}).setdefault("parameters", {})["Controller"] = controller
    for instance in FMUS:
        instances.setdefault(instance, {})["fmu"] = str(fmus[instance, noop])
    return scenario


def run_stack(mapping: dict, out: Path) -> dict:
    from auv_cosim.master import run

    res = run(copy.deepcopy(mapping), out_dir=out, progress=False, plots=False, echo_messages=False)
    if res.status != "completed":
        sys.exit(f"bench_h100_stack: a run failed: {res.reason}")
    s = res.summary
    return {"sim": s["simulated_time_s"], "wall": s["stepping_time_s"], "steps": s["steps"],
            "csv": str(res.results_csv)}


def in_child(tree: Path, spec: dict, folder: Path) -> dict:
    """Run `spec` (see child) in a child process whose code is `tree`'s; returns its answer."""
    path = folder / f"spec-{len(list(folder.glob('spec-*.json')))}.json"
    path.write_text(json.dumps(dict(spec, tree=str(tree))))
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(path)], cwd=str(tree),
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_h100_stack: a child run failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def child(spec_path: str) -> None:
    """One measurement with the spec's tree first on sys.path: a stack run ("stack": a 10 s
    warm-up, then the timed mapping) or one FMU's replayed doSteps ("replay")."""
    spec = json.loads(Path(spec_path).read_text())
    sys.path.insert(0, spec["tree"])
    if spec["kind"] == "stack":
        run_stack(spec["warm"], Path(spec["out"]) / "warm")
        answer = run_stack(spec["mapping"], Path(spec["out"]) / "run")
    else:   # the first replay loads the FMU's numba caches on its first steps: the best of three
        answer = {"us": min(do_step_replayed(Path(spec["fmu"]), spec["instance"], spec["parameters"], spec["inputs"])
                            for _ in range(3))}
    print(json.dumps(answer))
    sys.stdout.flush()
    os._exit(0)  # pythonfmu 0.7.0 double-frees at interpreter exit (see tests/conftest.py)


def stack_in_child(tree: Path, controller: str, seconds: float, fmus: dict, noop: bool, out: Path) -> dict:
    return in_child(tree, {"kind": "stack", "out": str(out),
                           "warm": hold_mapping(controller, 10.0, fmus, noop, tree),
                           "mapping": hold_mapping(controller, seconds, fmus, noop, tree)}, out.parent)


# ------------------------------------------------------------------------------ one FMU, replayed
def read_results(path: Path) -> dict:
    with open(path, newline="") as f:
        reader = csv.reader(f)
        names = next(reader)
        rows = [[float(v) for v in row] for row in reader]
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}


def instance_parameters(mapping: dict, instance: str) -> dict:
    """The instance's parameters of the stack file and the scenario, vectors element by element."""
    stack = yaml.safe_load((find_scenario("stacks/h100")).read_text())
    merged = dict(stack["instances"][instance].get("parameters", {}))
    merged.update(mapping["instances"].get(instance, {}).get("parameters", {}))
    flat = {}
    for key, value in merged.items():
        if isinstance(value, (list, tuple)):
            flat.update({f"{key}[{i + 1}]": v for i, v in enumerate(value)})
        else:
            flat[key] = value
    return flat


def input_sources(instance: str, columns: dict) -> dict:
    """input variable of `instance` -> the recorded column that feeds it (the stack's
    connections, vectors element by element)."""
    stack = yaml.safe_load((find_scenario("stacks/h100")).read_text())
    sources = {}
    for connection in stack["connections"]:
        source, target = (part.strip() for part in connection.split("->"))
        if not target.startswith(instance + "."):
            continue
        variable = target[len(instance) + 1:]
        if source in columns:
            sources[variable] = source
        k = 1
        while f"{source}[{k}]" in columns:
            sources[f"{variable}[{k}]"] = f"{source}[{k}]"
            k += 1
    return sources


def do_step_replayed(path: Path, instance: str, parameters: dict, inputs: dict) -> float:
    """Microseconds per fmi2DoStep of one FMU fed `inputs` (variable -> values per step): CPU
    time of this thread (the FMU runs in it), so that another process taking the CPU in the
    middle of a step does not count (the machine is shared)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(path))
    variables = {v.name: v for v in md.modelVariables}
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(path)),
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName=instance)
    setters = {"Real": fmu.setReal, "Integer": fmu.setInteger, "Boolean": fmu.setBoolean, "String": fmu.setString}
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    for name, value in parameters.items():
        v = variables[name]
        setters[v.type]([v.valueReference], [bool(value) if v.type == "Boolean" else
                                             int(value) if v.type == "Integer" else value])
    by_type: dict = {}
    for name in inputs:
        by_type.setdefault(variables[name].type, []).append(name)

    def set_row(k):
        for kind, names in by_type.items():
            values = [inputs[n][k] for n in names]
            if kind == "Boolean":
                values = [v != 0.0 for v in values]
            elif kind == "Integer":
                values = [int(v) for v in values]
            setters[kind]([variables[n].valueReference for n in names], values)

    fmu.enterInitializationMode()
    # the first row's inputs before the initialisation ends, as the master sets them: the
    # control FMU takes its held position from the first fix there (with the default zeros it
    # held the surface from 5 m down, its thrusters saturated and the QP solved every other step)
    set_row(0)
    fmu.exitInitializationMode()
    steps = len(next(iter(inputs.values())))
    total = 0.0
    t = 0.0
    for k in range(steps):
        set_row(k)
        start = time.thread_time()
        fmu.doStep(currentCommunicationPoint=t, communicationStepSize=STEP)
        total += time.thread_time() - start
        t += STEP
    fmu.terminate()
    fmu.freeInstance()
    return total / steps * 1e6


def per_fmu(mapping: dict, fmus: dict, results: Path, folder: Path, before: dict = None,
            instances=tuple(FMUS)) -> dict:
    """(instance, kind) -> microseconds per doStep, kind "real", "noop" or "before" (the same FMU
    of the --before tree), the stack run's inputs replayed (each row's values are what the
    instance's inputs held when it stepped to the next row; close enough for a cost, which is
    what is measured), each in a child process of its tree; for `instances` only."""
    columns = read_results(results)
    out = {}
    for instance in instances:
        sources = input_sources(instance, columns)
        inputs = {variable: columns[column] for variable, column in sources.items()}
        kinds = [("real", ROOT, fmus[instance, False]), ("noop", ROOT, fmus[instance, True])]
        if before is not None:
            kinds.append(("before", before["tree"], before["fmus"][instance, False]))
        for kind, tree, fmu in kinds:
            out[instance, kind] = in_child(tree, {"kind": "replay", "fmu": str(fmu), "instance": instance,
                                                  "parameters": instance_parameters(mapping, instance),
                                                  "inputs": inputs}, folder)["us"]
    return out


# ------------------------------------------------------------------------------ control alone
def control_alone(controller: str, steps: int) -> float:
    """Microseconds per H100ControlStack.step, plain Python, CPU time of this process."""
    from auv_cosim.vehicles.h100.stack.belief import VehicleBelief
    from auv_cosim.vehicles.h100.stack.control import ControllerConfig
    from auv_cosim.vehicles.h100.stack.guidance import Commands, GuidanceConfig
    from auv_cosim.vehicles.h100.stack.navigation import Measurements
    from auv_cosim.vehicles.h100.stack.stack import H100ControlStack
    from auv_cosim.vehicles.h100 import load_vehicle

    stack = H100ControlStack(VehicleBelief(load_vehicle().params), GuidanceConfig(Mode="hold"),
                             ControllerConfig(Controller=controller))
    m = Measurements(euler=(0.01, 0.02, 0.1), omega=(0.01, 0.0, 0.0), velocity=(0.01, 0.02, 0.0), depth=5.0,
                     usbl=(0.0, 0.0, 5.0), usbl_fix_time=0.0, usbl_fix_count=1)
    commands = Commands(depth=5.0)
    stack.initialize(m, commands)
    for _ in range(100):
        stack.step(m, commands, 0.1)
    start = time.process_time()
    for _ in range(steps):
        stack.step(m, commands, 0.1)
    return (time.process_time() - start) / steps * 1e6


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="simulated seconds per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-build", action="store_true", help="do not bring fmus/ and fmus/noop/ up to date first")
    parser.add_argument("--before", type=Path, help="a checkout of an earlier commit with its fmus/ built: its stack "
                                                    "measured side by side with this tree's")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
    build(args.no_build)
    load = os.getloadavg()[0]
    best: dict = {}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        fmus = snapshot(folder / "after")
        trees = [("after", ROOT, fmus)]
        before = None
        if args.before is not None:
            before = {"tree": args.before.resolve(), "fmus": snapshot(folder / "before", args.before.resolve(), False)}
            trees.append(("before", before["tree"], before["fmus"]))
        cases = [(c, label, tree, paths, False) for c in CONTROLLERS for label, tree, paths in trees]
        cases += [(c, "floor", ROOT, fmus, True) for c in CONTROLLERS]
        for repeat in range(args.repeats):
            for controller, label, tree, paths, noop in cases:
                out = folder / "runs" / f"{controller}-{label}-{repeat}"
                out.parent.mkdir(parents=True, exist_ok=True)
                r = stack_in_child(tree, controller, args.seconds, paths, noop, out)
                if (controller, label) not in best or r["wall"] < best[controller, label]["wall"]:
                    best[controller, label] = r
        replayed = per_fmu(hold_mapping("pid", args.seconds, fmus, False), fmus, Path(best["pid", "after"]["csv"]),
                           folder / "runs", before)
        # the control FMU of each other controller, on that controller's own run's inputs
        control = {("pid", kind): replayed["control", kind] for kind in ("real", "noop", "before")
                   if ("control", kind) in replayed}
        for controller in CONTROLLERS[1:]:
            mine = per_fmu(hold_mapping(controller, args.seconds, fmus, False), fmus,
                           Path(best[controller, "after"]["csv"]), folder / "runs", before, ("control",))
            control.update({(controller, kind): us for (_, kind), us in mine.items()})
        print(f"H100 stack through the master, h100_hold, {args.seconds:.0f} s simulated at {STEP} s, best of "
              f"{args.repeats} interleaved repeats; {os.cpu_count()} CPUs, load average {load:.2f} before, "
              f"{os.getloadavg()[0]:.2f} after")
        if before is not None:
            print(f"before: {before['tree']} (its code and FMUs); after: {ROOT}")
        head = f"{'controller':10s}"
        if before is not None:
            head += f" {'before us/step':>15s}"
        head += (f" {'us/step':>9s} {'x real time':>12s} {'floor us/step':>14s} {'above floor':>12s} "
                 f"{'control alone us/step':>22s}")
        print(head)
        for controller in CONTROLLERS:
            r, f = best[controller, "after"], best[controller, "floor"]
            us, floor_us = r["wall"] / r["steps"] * 1e6, f["wall"] / f["steps"] * 1e6
            alone = control_alone(controller, 2000)
            line = f"{controller:10s}"
            if before is not None:
                b = best[controller, "before"]
                line += f" {b['wall'] / b['steps'] * 1e6:15.0f}"
            line += (f" {us:9.0f} {r['sim'] / r['wall']:12.0f} {floor_us:14.0f} {us - floor_us:12.0f} "
                     f"{alone:22.0f}")
            print(line)
        print(f"the 1000x bar: <= {STEP * 1e6 / 1000:.0f} us per step through the master, the floor included")
        print(f"\nper FMU, the pid run's inputs replayed through fmpy, CPU us per fmi2DoStep "
              f"({best['pid', 'after']['steps']} steps):")
        print(f"  {'instance':10s} {'FMU':14s} {'doStep':>8s} {'no-op twin':>11s} {'above twin':>11s}"
              + (f" {'before':>8s}" if before is not None else ""))
        for instance, name in FMUS.items():
            real, twin = replayed[instance, "real"], replayed[instance, "noop"]
            extra = ""
            if before is not None and (instance, "before") in replayed:
                extra = f" {replayed[instance, 'before']:8.1f}"
            print(f"  {instance:10s} {name:14s} {real:8.1f} {twin:11.1f} {real - twin:11.1f}{extra}")
        print(f"\nthe control FMU ({FMUS['control']}) per controller, each run's own inputs replayed, CPU us per "
              f"fmi2DoStep:")
        print(f"  {'controller':10s} {'doStep':>8s} {'no-op twin':>11s} {'above twin':>11s}"
              + (f" {'before':>8s} {'before above twin':>18s}" if before is not None else ""))
        for controller in CONTROLLERS:
            real, twin = control[controller, "real"], control[controller, "noop"]
            extra = ""
            if before is not None:
                extra = f" {control[controller, 'before']:8.1f} {control[controller, 'before'] - twin:18.1f}"
            print(f"  {controller:10s} {real:8.1f} {twin:11.1f} {real - twin:11.1f}{extra}")
    sys.stdout.flush()
    os._exit(0)  # pythonfmu 0.7.0 double-frees at interpreter exit (see tests/conftest.py)


if __name__ == "__main__":
    sys.exit(main())
