"""Benchmark of the FMU start-up of the survey stack (Auv, AuvSensors, AuvControl) beside its
floor, the same start-up with the no-op twins of the three FMUs (target: <= 0.4 s); with
``--stack h100`` the same for the H100 stack of scenarios/h100_hold.yaml (H100, H100Sensors,
H100Control).

Start-up is what the master's ``startup_time_s`` reports: load the three FMUs (from the
extraction cache, warmed first), instantiate, set the parameters, initialise. Each run is a
fresh interpreter (``import master`` and the scenario load come first and are not counted), so
what an FMU imports is part of it. Printed per case, the median of the interleaved repeats:
wall seconds and the CPU seconds of the child process over the same span (on a loaded machine
read the CPU column and the ratios).

    .venv/bin/python benchmarks/bench_startup.py [--stack survey|h100] [--cold] [--repeats 5] [--before DIR] [--no-build]
    .venv/bin/python benchmarks/bench_startup.py --breakdown [--cold] [--repeats 5] [--before DIR] [--no-build]

With ``--cold`` every start-up extracts its FMUs into an empty extraction cache, as the first
run after a build does (and a host that unzips the FMU each time).

With ``--breakdown`` it prints instead where each FMU's start-up goes (the median of the
repeats, in a fresh interpreter each, warm extraction cache unless ``--cold``): the extraction
(``extract_fmu``), loading the binary (fmpy's FMU2Slave), fmi2Instantiate (the slave module's
imports and the slave's construction), the set-up (fmi2SetupExperiment, the parameters,
fmi2EnterInitializationMode), the initialisation (fmi2ExitInitializationMode and the first
reading of the outputs), and of these, the time in numba's dispatchers choosing, loading from
the cache (or compiling) a compiled function's first version (``Dispatcher._compile_for_args``,
timed from the moment an FMU has imported numba) with how many there were.

``--before DIR`` adds the same three FMUs from another folder (e.g. copies of fmus/*.fmu taken
before a change) as a third case, interleaved with the others: a before/after in one run. With
``--importtime`` a last child prints the slowest imports of one start-up (``python -X
importtime``, cumulative microseconds).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from auv_cosim.master import find_scenario

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stack import REAL, build, survey_mapping  # noqa: E402

#: each stack this measures: its instances and their FMUs (fmus/<name>.fmu, fmus/noop/<name>Noop.fmu)
STACKS = {"survey": REAL, "h100": {"vehicle": "H100", "sensors": "H100Sensors", "control": "H100Control"}}


def stack_mapping(stack: str, fmus: dict, noop: bool) -> dict:
    """The scenario of `stack` as a mapping, flying the FMUs `fmus` (name -> file; the names of
    the no-op twins end in Noop)."""
    if stack == "survey":
        return survey_mapping(0.01, fmus, noop=noop)
    return {"include": str(find_scenario("h100_hold")), "plots": False,
            "instances": {instance: {"fmu": str(fmus[name + ("Noop" if noop else "")])}
                          for instance, name in STACKS[stack].items()}}


def child(mapping_file: str) -> None:
    """In a fresh interpreter: the master's FMU start-up of the mapping, wall and CPU."""
    from auv_cosim.master.engine import simulate
    from auv_cosim.master.plan import build_plan
    from auv_cosim.master.scenario import load_scenario

    plan = build_plan(load_scenario(json.loads(Path(mapping_file).read_text())), stop_time=0.1)
    cpu, wall = time.process_time(), time.perf_counter()
    outcome = simulate(plan, None, progress=False, echo_messages=False, t_call=wall)
    assert outcome.status == "completed", outcome.reason
    # the one 0.1 s step after the start-up costs about 0.1 ms: left in the CPU figure
    print(json.dumps({"wall": outcome.startup_time, "cpu": time.process_time() - cpu}), flush=True)
    os._exit(0)  # pythonfmu 0.7.0 double-frees at interpreter exit (see tests/conftest.py)


#: the phases of one FMU's start-up --breakdown reports, in order
PHASES = ("extract", "load binary", "instantiate", "set up", "initialise", "numba first calls")


def breakdown_child(mapping_file: str) -> None:
    """In a fresh interpreter: the master's FMU start-up of the mapping as `child` runs it, each
    phase of each instance timed (PHASES) by wrapping the functions auv_cosim.master.instances calls."""
    from auv_cosim.master import engine, instances
    from auv_cosim.master.plan import build_plan
    from auv_cosim.master.scenario import load_scenario

    plan = build_plan(load_scenario(json.loads(Path(mapping_file).read_text())), stop_time=0.1)
    figures = {name: dict.fromkeys(PHASES, 0.0) for name in plan.instances}
    numba_calls = dict.fromkeys(plan.instances, 0)
    current = [None]   # the instance whose phase runs
    clock = time.perf_counter

    def timed(function, phase, instance_of):
        def wrapper(*args, **kwargs):
            name = instance_of(args, kwargs)
            previous, current[0] = current[0], name
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                figures[name][phase] += clock() - start
                current[0] = previous
                time_numba()
        return wrapper

    def time_numba():
        """Wrap numba's first-call path once numba is imported (by an FMU)."""
        dispatcher = sys.modules.get("numba.core.dispatcher")
        if dispatcher is None or getattr(dispatcher.Dispatcher, "_bench_timed", False):
            return
        compile_for_args = dispatcher.Dispatcher._compile_for_args

        def wrapper(self, *args, **kwargs):
            start = clock()
            try:
                return compile_for_args(self, *args, **kwargs)
            finally:
                if current[0] is not None:
                    figures[current[0]]["numba first calls"] += clock() - start
                    numba_calls[current[0]] += 1
        dispatcher.Dispatcher._compile_for_args = wrapper
        dispatcher.Dispatcher._bench_timed = True

    paths = {str(ip.fmu_path): name for name, ip in plan.instances.items()}
    instances.extract_fmu = timed(instances.extract_fmu, "extract", lambda a, k: paths[str(a[0])])
    slave = instances.FMU2Slave
    by_instance = lambda a, k: a[0].instanceName  # noqa: E731
    instances.FMU2Slave = timed(slave, "load binary", lambda a, k: k["instanceName"])
    slave.instantiate = timed(slave.instantiate, "instantiate", by_instance)
    for method in ("setupExperiment", "setReal", "setInteger", "setBoolean", "setString", "enterInitializationMode"):
        setattr(slave, method, timed(getattr(slave, method), "set up", by_instance))
    slave.exitInitializationMode = timed(slave.exitInitializationMode, "initialise", by_instance)
    wall = clock()
    outcome = engine.simulate(plan, None, progress=False, echo_messages=False, t_call=wall)
    assert outcome.status == "completed", outcome.reason
    print(json.dumps({"wall": outcome.startup_time, "phases": figures, "numba_calls": numba_calls}), flush=True)
    os._exit(0)


def print_breakdown(figures: dict) -> None:
    """The median of each phase of each instance, per case (`figures`: case -> the children's
    reports)."""
    print(f"{'case':22s} {'instance':10s} " + " ".join(f"{p:>11s}" for p in PHASES) + "  numba calls  (ms)")
    for case, reports in figures.items():
        for name in reports[0]["phases"]:
            cells = [statistics.median(r["phases"][name][p] for r in reports) * 1e3 for p in PHASES]
            calls = statistics.median(r["numba_calls"][name] for r in reports)
            print(f"{case:22s} {name:10s} " + " ".join(f"{c:11.1f}" for c in cells) + f"  {calls:11.0f}")
        total = statistics.median(r["wall"] for r in reports) * 1e3
        print(f"{case:22s} {'start-up':10s} {total:11.1f} (startup_time_s, all instances)")


def run_child(mapping_file: Path, cache: Path, importtime: bool = False, breakdown: bool = False) -> dict | str:
    env = dict(os.environ, AUV_MASTER_FMU_CACHE=str(cache))
    command = [sys.executable] + (["-X", "importtime"] if importtime else []) + [
        __file__, "--breakdown-child" if breakdown else "--child", str(mapping_file)]
    out = subprocess.run(command, env=env, cwd=str(ROOT), capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench_startup: child failed:\n{out.stdout}\n{out.stderr}")
    return out.stderr if importtime else json.loads(out.stdout.strip().splitlines()[-1])


def slowest_imports(text: str, count: int = 15) -> list:
    rows = []
    for line in text.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|", 2)
            if cumulative.strip().isdigit():
                rows.append((int(cumulative), name.rstrip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stack", choices=sorted(STACKS), default="survey", help="the stack to start (default survey)")
    parser.add_argument("--cold", action="store_true", help="each start-up extracts its FMUs into an empty cache")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats, the median counts (default 5)")
    parser.add_argument("--before", help="a folder with the stack's three FMUs (e.g. Auv.fmu, AuvSensors.fmu, "
                                         "AuvControl.fmu) to compare")
    parser.add_argument("--importtime", action="store_true", help="print the slowest imports of one start-up")
    parser.add_argument("--no-build", action="store_true", help="do not bring fmus/ and fmus/noop/ up to date first")
    parser.add_argument("--breakdown", action="store_true", help="where each FMU's start-up goes (phases)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--breakdown-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
    if args.breakdown_child:
        breakdown_child(args.breakdown_child)

    build(args.no_build)
    folder = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    names = STACKS[args.stack].values()
    cases = {"stack": {name: ROOT / "fmus" / f"{name}.fmu" for name in names},
             "floor (no-op twins)": {f"{name}Noop": ROOT / "fmus" / "noop" / f"{name}Noop.fmu" for name in names}}
    if args.before:
        cases["before"] = {name: Path(args.before) / f"{name}.fmu" for name in names}
    files = {}
    for i, (case, fmus) in enumerate(cases.items()):
        mapping = stack_mapping(args.stack, fmus, noop=case.startswith("floor"))
        files[case] = folder / f"mapping-{i}.json"
        files[case].write_text(json.dumps(mapping))
        run_child(files[case], folder / f"cache-{i}")   # extraction and first numba cache load
    load_before = os.getloadavg()[0]
    figures = {case: [] for case in cases}
    for repeat in range(args.repeats):
        for i, case in enumerate(cases):
            cache = folder / (f"cold-{i}-{repeat}" if args.cold else f"cache-{i}")
            figures[case].append(run_child(files[case], cache, breakdown=args.breakdown))
            if args.cold:
                shutil.rmtree(cache, ignore_errors=True)
    if args.breakdown:
        print(f"bench_startup --breakdown: where each FMU's start-up goes, milliseconds, median of {args.repeats} "
              f"interleaved repeats ({'empty' if args.cold else 'warm'} extraction cache); "
              f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; 'numba first calls' is "
              f"part of the phases before it")
        print_breakdown(figures)
        sys.stdout.flush()
        os._exit(0)
    print(f"bench_startup: FMU start-up of the {args.stack} stack (master startup_time_s: "
          f"{'extract into an empty' if args.cold else 'load from the warm'} extraction cache, instantiate, "
          f"set parameters, initialise), fresh interpreter each, median of "
          f"{args.repeats} interleaved repeats; {os.cpu_count()} CPUs, load average {load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    floor = statistics.median(f["wall"] for f in figures["floor (no-op twins)"])
    floor_cpu = statistics.median(f["cpu"] for f in figures["floor (no-op twins)"])
    print(f"{'case':22s} {'wall s':>7s} {'CPU s':>7s} {'/ floor (wall)':>15s} {'/ floor (CPU)':>14s}")
    for case in cases:
        wall = statistics.median(f["wall"] for f in figures[case])
        cpu = statistics.median(f["cpu"] for f in figures[case])
        print(f"{case:22s} {wall:7.3f} {cpu:7.3f} {wall / floor:15.2f} {cpu / floor_cpu:14.2f}")
    stack_wall = statistics.median(f["wall"] for f in figures["stack"])
    if args.stack == "survey":
        print(f"target <= 0.4 s: {'met' if stack_wall <= 0.4 else 'NOT met'} (wall median {stack_wall:.3f} s)")
    if args.importtime:
        print("\nslowest imports of one stack start-up (python -X importtime, cumulative, seconds; "
              "import master and the scenario load included):")
        for micros, name in slowest_imports(run_child(files["stack"], folder / "cache-0", importtime=True)):
            print(f"  {micros / 1e6:7.3f}  {name.strip()}")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
