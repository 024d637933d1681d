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
            per fmi2DoStep, and the same for its no-op twin;
  alone     the control stack in plain Python (no FMI), microseconds per control step.

    .venv/bin/python benchmarks/bench_h100_stack.py [--seconds 600] [--repeats 3] [--no-build]

The controllers are interleaved repeat after repeat, the stack and its floor too, and the best
repeat is kept (the machine is shared); the load average is printed. The FMUs are brought up to
date first (tools/build_fmus.py and tools/build_noop_fmus.py rebuild only what is stale) and
copied to a temporary folder, so that a rebuild during the run cannot mix two builds.
"""
from __future__ import annotations

import argparse
import copy
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

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


def snapshot(folder: Path) -> dict:
    """Copies of the three FMUs and their twins in `folder`: (instance, noop) -> path."""
    paths = {}
    for instance, name in FMUS.items():
        for noop, src in ((False, ROOT / "fmus" / f"{name}.fmu"), (True, ROOT / "fmus" / "noop" / f"{name}Noop.fmu")):
            if not src.is_file():
                sys.exit(f"bench_h100_stack: {src} is missing (run ./build.sh and tools/build_noop_fmus.py)")
            paths[instance, noop] = Path(shutil.copy2(src, folder / src.name))
    return paths


def hold_mapping(controller: str, seconds: float, fmus: dict, noop: bool) -> dict:
    """scenarios/h100_hold.yaml as a mapping: `seconds` long, plots off, the controller chosen,
    the FMUs of the snapshot (the real ones or their no-op twins)."""
    scenario = yaml.safe_load((ROOT / "scenarios" / "h100_hold.yaml").read_text())
    scenario["include"] = str(ROOT / "scenarios" / "stacks" / "h100.yaml")
    scenario["stop_time"] = seconds
    scenario["plots"] = False
    instances = scenario.setdefault("instances", {})
    instances.setdefault("control", {}).setdefault("parameters", {})["Controller"] = controller
    for instance in FMUS:
        instances.setdefault(instance, {})["fmu"] = str(fmus[instance, noop])
    return scenario


def run_stack(mapping: dict, out: Path) -> dict:
    from master import run

    res = run(copy.deepcopy(mapping), out_dir=out, progress=False, plots=False, echo_messages=False)
    if res.status != "completed":
        sys.exit(f"bench_h100_stack: a run failed: {res.reason}")
    s = res.summary
    return {"sim": s["simulated_time_s"], "wall": s["stepping_time_s"], "steps": s["steps"],
            "csv": Path(res.results_csv)}


# ------------------------------------------------------------------------------ one FMU, replayed
def read_results(path: Path) -> dict:
    with open(path, newline="") as f:
        reader = csv.reader(f)
        names = next(reader)
        rows = [[float(v) for v in row] for row in reader]
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}


def instance_parameters(mapping: dict, instance: str) -> dict:
    """The instance's parameters of the stack file and the scenario, vectors element by element."""
    stack = yaml.safe_load((ROOT / "scenarios" / "stacks" / "h100.yaml").read_text())
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
    stack = yaml.safe_load((ROOT / "scenarios" / "stacks" / "h100.yaml").read_text())
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
    """Microseconds per fmi2DoStep of one FMU fed `inputs` (variable -> values per step)."""
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
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    by_type: dict = {}
    for name in inputs:
        by_type.setdefault(variables[name].type, []).append(name)
    steps = len(next(iter(inputs.values())))
    total = 0.0
    t = 0.0
    for k in range(steps):
        for kind, names in by_type.items():
            values = [inputs[n][k] for n in names]
            if kind == "Boolean":
                values = [v != 0.0 for v in values]
            elif kind == "Integer":
                values = [int(v) for v in values]
            setters[kind]([variables[n].valueReference for n in names], values)
        start = time.perf_counter()
        fmu.doStep(currentCommunicationPoint=t, communicationStepSize=STEP)
        total += time.perf_counter() - start
        t += STEP
    fmu.terminate()
    fmu.freeInstance()
    return total / steps * 1e6


def per_fmu(mapping: dict, fmus: dict, results: Path) -> dict:
    """(instance, noop) -> microseconds per doStep, the stack run's inputs replayed (each row's
    values are what the instance's inputs held when it stepped to the next row; close enough
    for a cost, which is what is measured)."""
    columns = read_results(results)
    out = {}
    for instance in FMUS:
        sources = input_sources(instance, columns)
        inputs = {variable: columns[column] for variable, column in sources.items()}
        for noop in (False, True):
            out[instance, noop] = do_step_replayed(fmus[instance, noop], instance,
                                                   instance_parameters(mapping, instance), inputs)
    return out


# ------------------------------------------------------------------------------ control alone
def control_alone(controller: str, steps: int) -> float:
    """Microseconds per H100ControlStack.step, plain Python, CPU time of this process."""
    from controllers_fmu.h100.belief import VehicleBelief
    from controllers_fmu.h100.controllers import ControllerConfig
    from controllers_fmu.h100.guidance import Commands, GuidanceConfig
    from controllers_fmu.h100.navigation import Measurements
    from controllers_fmu.h100.stack import H100ControlStack
    from vehicle_model.h100 import load_vehicle

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
    args = parser.parse_args(argv)
    build(args.no_build)
    load = os.getloadavg()[0]
    best: dict = {}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        fmus = snapshot(folder)
        cases = [(c, noop) for c in CONTROLLERS for noop in (False, True)]
        for controller, noop in cases:   # a warm-up run each: extraction, imports, LQR design
            run_stack(hold_mapping(controller, 10.0, fmus, noop), folder / f"warm-{controller}-{noop}")
        for repeat in range(args.repeats):
            for controller, noop in cases:
                r = run_stack(hold_mapping(controller, args.seconds, fmus, noop), folder / f"{controller}-{noop}-{repeat}")
                if (controller, noop) not in best or r["wall"] < best[controller, noop]["wall"]:
                    best[controller, noop] = r
        replayed = per_fmu(hold_mapping("pid", args.seconds, fmus, False), fmus, best["pid", False]["csv"])
        print(f"H100 stack through the master, h100_hold, {args.seconds:.0f} s simulated at {STEP} s, best of "
              f"{args.repeats} interleaved repeats; {os.cpu_count()} CPUs, load average {load:.2f} before, "
              f"{os.getloadavg()[0]:.2f} after")
        print(f"{'controller':10s} {'wall [s]':>9s} {'x real time':>12s} {'us/step':>9s} {'floor us/step':>14s} "
              f"{'above floor':>12s} {'control alone us/step':>22s}")
        for controller in CONTROLLERS:
            r, f = best[controller, False], best[controller, True]
            us, floor_us = r["wall"] / r["steps"] * 1e6, f["wall"] / f["steps"] * 1e6
            alone = control_alone(controller, 2000)
            print(f"{controller:10s} {r['wall']:9.2f} {r['sim'] / r['wall']:12.0f} {us:9.0f} {floor_us:14.0f} "
                  f"{us - floor_us:12.0f} {alone:22.0f}")
        print(f"the 1000x bar: <= {STEP * 1e6 / 1000:.0f} us per step through the master, the floor included")
        print(f"\nper FMU, the pid run's inputs replayed through fmpy, us per fmi2DoStep "
              f"({best['pid', False]['steps']} steps):")
        print(f"  {'instance':10s} {'FMU':14s} {'doStep':>8s} {'no-op twin':>11s} {'above twin':>11s}")
        for instance, name in FMUS.items():
            real, twin = replayed[instance, False], replayed[instance, True]
            print(f"  {instance:10s} {name:14s} {real:8.1f} {twin:11.1f} {real - twin:11.1f}")
    sys.stdout.flush()
    os._exit(0)  # pythonfmu 0.7.0 double-frees at interpreter exit (see tests/conftest.py)


if __name__ == "__main__":
    sys.exit(main())
