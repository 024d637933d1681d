#!/usr/bin/env python3
"""Exit statuses of other hosts over many runs: the proof that the FMUs' binary neither needs
LD_PRELOAD nor crashes a host at exit (tests/integration/test_other_hosts.py runs a few).

    python tools/prove_hosts.py                   # the FMUs in fmus/ (as ./build.sh made them)
    python tools/prove_hosts.py --stock           # ... and the same FMUs with pythonfmu's binary
    python tools/prove_hosts.py --cli-runs 20 --python-runs 50 --survey-stop 60
    python tools/prove_hosts.py --compare --cli-runs 0 --python-runs 0   # positions only

1. the `ecos` command line (a C++ host without Python), in an empty environment (PATH and HOME
   only; with --stock also LD_PRELOAD of libpython and PYTHONPATH, which that binary needs):
   Auv.fmu alone for 10 s, and the survey exported as SSP (`auv-cosim export-ssp`, its
   stop time cut to --survey-stop s), --cli-runs times each;
2. a Python host (fmpy) that loads the three FMUs, initialises them, steps each 100 times,
   terminates and frees them, and leaves Python normally (no os._exit), --python-runs times.

Prints, per case, how many runs ended with each exit status, and the wall time; with --compare
first the largest difference of the vehicle's position computed by libcosim, Ecos's API and
Ecos's command line from the master's (Jacobi and Gauss-Seidel) on the survey SSP. Needs the
`hosts` extra (ecospy; Ecos needs libtbb12). Run it on an otherwise idle machine: it starts a
few hundred processes one after the other.
"""
from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from pathlib import Path
from auv_cosim.master import find_scenario

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("Auv", "AuvSensors", "AuvControl")

PYTHON_HOST = textwrap.dedent("""\
    import sys
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    for path in sys.argv[1:]:
        md = read_model_description(path)
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(path),
                        modelIdentifier=md.coSimulation.modelIdentifier, instanceName="proof")
        fmu.instantiate()
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        for k in range(100):
            fmu.doStep(k * 0.1, 0.1)
        fmu.terminate()
        fmu.freeInstance()
    print("ok")
    """)


def statuses(command, runs, env=None, cwd=None) -> tuple[collections.Counter, float]:
    counts: collections.Counter = collections.Counter()
    started = time.perf_counter()
    for _ in range(runs):
        done = subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=900)
        counts[done.returncode] += 1
    return counts, time.perf_counter() - started


def ecos_binary() -> Path:
    import ecospy

    binary = Path(ecospy.__file__).parent / "binaries" / "ecos"
    if not os.access(binary, os.X_OK):
        binary.chmod(0o755)
    return binary


def prove(fmus: Path, folder: Path, args, stock: bool) -> list[tuple[str, collections.Counter, float]]:
    rows = []
    scenario = folder / "survey_short.yaml"
    instances = "".join(f"  {instance}:\n    fmu: {fmus / (name + '.fmu')}\n" for instance, name in
                        (("vehicle", "Auv"), ("sensors", "AuvSensors"), ("control", "AuvControl")))
    scenario.write_text(f"include: {find_scenario('survey')}\nname: survey_short\n"
                        f"stop_time: {args.survey_stop}\ninstances:\n{instances}")
    ssp = folder / "survey_short.ssp"
    subprocess.run([sys.executable, "-m", "auv_cosim", "export-ssp", str(scenario), str(ssp)], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    if stock:
        library = Path(sysconfig.get_config_var("LIBDIR")) / sysconfig.get_config_var("INSTSONAME")
        env.update(LD_PRELOAD=str(library), PYTHONPATH=sysconfig.get_paths()["purelib"])
    ecos = str(ecos_binary())
    work = folder / "ecos"
    work.mkdir(exist_ok=True)
    for label, command in (
            (f"ecos CLI, Auv.fmu alone, 10 s", [ecos, "simulate", "--path", str(fmus / "Auv.fmu"),
                                               "--stepSize", "0.1", "--stopTime", "10"]),
            (f"ecos CLI, survey SSP, {args.survey_stop:g} s",
             [ecos, "simulate", "--path", str(ssp), "--stepSize", "0.1", "--stopTime",
              repr(args.survey_stop), "--parameterSet", "survey_short", "--noCsv"])):
        if args.cli_runs:
            counts, wall = statuses(command, args.cli_runs, env=env, cwd=work)
            rows.append((label, counts, wall))
            print(f"  {label}: {dict(counts)} ({wall:.0f} s)", flush=True)
    if args.python_runs:
        script = folder / "python_host.py"
        script.write_text(PYTHON_HOST)
        host_env = dict(os.environ)
        host_env.pop("AUV_TEST_NORMAL_EXIT", None)
        label = "Python host (fmpy), the three FMUs"
        counts, wall = statuses([sys.executable, str(script), *[str(fmus / f"{n}.fmu") for n in NAMES]],
                                args.python_runs, env=host_env)
        rows.append((label, counts, wall))
        print(f"  {label}: {dict(counts)} ({wall:.0f} s)", flush=True)
    return rows


def compare(folder: Path, args) -> None:
    """The vehicle's position in libcosim and Ecos against the master on the survey SSP (the
    master with Jacobi, as these engines step, and with its default Gauss-Seidel)."""
    import csv
    import json

    def rows_of(algorithm: str) -> tuple[Path, list[dict]]:
        scenario = folder / f"survey_{algorithm}.yaml"
        scenario.write_text(f"include: {find_scenario('survey')}\nname: survey_{algorithm}\n"
                            f"algorithm: {algorithm}\nstop_time: {args.survey_stop}\n")
        ssp = folder / f"survey_{algorithm}.ssp"
        subprocess.run([sys.executable, "-m", "auv_cosim", "export-ssp", str(scenario), str(ssp)], cwd=ROOT,
                       check=True, stdout=subprocess.DEVNULL)
        out = folder / f"master_{algorithm}"
        subprocess.run([sys.executable, "-m", "auv_cosim", "run", str(ssp), "--no-plots", "-q", "--out", str(out)],
                       cwd=ROOT, check=True)
        with open(out / "results.csv", newline="") as handle:
            return ssp, list(csv.DictReader(handle))

    ssp, jacobi = rows_of("jacobi")
    _, gauss_seidel = rows_of("gauss-seidel")
    names = ["vehicle.Pos[1]", "vehicle.Pos[2]", "vehicle.Pos[3]"]

    def gap(result, rows):
        return max(abs(result["values"][n][i] - float(rows[k][n]))
                   for i, k in enumerate(result["steps"]) for n in names)

    every = 10
    print(f"\nvehicle position on the survey SSP ({args.survey_stop:g} s, step 0.1 s, read every "
          f"{every} steps): largest difference from the master")
    print(f"  {'host':10s} {'master Jacobi':>14s} {'master Gauss-Seidel':>20s}")
    for host in ("libcosim", "ecos-api", "ecos-cli"):
        done = subprocess.run([sys.executable, str(ROOT / "tests" / "hosts" / "host_runs.py"), host, str(ssp),
                               "--stop", repr(args.survey_stop), "--step", "0.1", "--every", str(every),
                               "--parameter-set", "survey_jacobi"], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"  {host:10s} failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"  {host:10s} {gap(result, jacobi):14.2e} {gap(result, gauss_seidel):20.3g} m")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli-runs", type=int, default=20)
    parser.add_argument("--python-runs", type=int, default=50)
    parser.add_argument("--survey-stop", type=float, default=60.0)
    parser.add_argument("--stock", action="store_true",
                        help="also build the FMUs with pythonfmu's binary (CC pointing nowhere) and prove those")
    parser.add_argument("--compare", action="store_true",
                        help="first print how far libcosim's and Ecos's vehicle positions are from the master's")
    args = parser.parse_args(argv)
    variants = [("project's native wrapper (fmus/)", ROOT / "fmus", False)]
    with tempfile.TemporaryDirectory(prefix="prove-hosts-") as temporary:
        temporary = Path(temporary)
        if args.stock:
            stock = temporary / "stock-fmus"
            env = dict(os.environ, CC=str(temporary / "no-compiler"))
            subprocess.run([sys.executable, str(ROOT / "tools" / "build_fmus.py"), "--dest", str(stock),
                            "--no-check", "-q"], cwd=ROOT, env=env, check=True)
            variants.append(("pythonfmu 0.7.0's binary", stock, True))
        if args.compare:
            compare_folder = temporary / "compare"
            compare_folder.mkdir()
            compare(compare_folder, args)
        results = []
        for label, fmus, is_stock in variants:
            print(f"{label}:", flush=True)
            folder = temporary / ("stock" if is_stock else "native")
            folder.mkdir()
            results.append((label, prove(fmus, folder, args, is_stock)))
    print("\nexit statuses (status: runs)")
    for label, rows in results:
        for case, counts, wall in rows:
            ok = counts.get(0, 0)
            print(f"  {label:34s} {case:40s} {ok:3d}/{sum(counts.values())} exit 0  "
                  f"{dict(sorted(counts.items()))}  {wall:6.0f} s")
    native_ok = all(set(c) == {0} for _, c, _ in results[0][1])
    return 0 if native_ok else 1


if __name__ == "__main__":
    sys.exit(main())
