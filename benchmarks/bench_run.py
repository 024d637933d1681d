"""Benchmark of what a user waits for: the whole ``auv-cosim run survey``.

Prints, measured side by side in one run (the cases interleaved, repeat after repeat; the
MEDIAN of the repeats is kept, because the 2-core machine is shared and its load moves):

  command   the whole command in a fresh interpreter, as a user types it, wall and CPU seconds
            (the process and its children, e.g. the CSV writer):
              plots      ``auv-cosim run survey --out DIR``
              no-plots   ``auv-cosim run survey --no-plots --out DIR``
              floor      the same survey stack with the no-op twins of the three FMUs
                         (fmus/noop/, built by tools/build_noop_fmus.py; same variables and
                         wiring, a do_step that does nothing) for the same number of steps,
                         ``--no-plots``: the FMI and master floor of the command
              python     ``python -c pass``: the interpreter's own start and exit
              import     a child of this script (its own imports: numpy, yaml, ...), importing
                         master and then what ``master.run`` needs; ``import master`` alone is
                         timed inside it (the "from auv_cosim import master" row of the parts)
  parts     where the time of one run goes, in a fresh interpreter that imports master and
            calls ``master.run("survey", plots=True)``: import, start-up (scenario, FMU
            extraction, load, instantiate, initialise: ``startup_time_s``), stepping with the
            recorder on (``stepping_time_s``), the recorder's close (the writer process
            finishing its last blocks), the summary figures, each of the five plots (from the
            end of the previous file to the end of its own savefig; drawn one after the other
            here, AUV_MASTER_PLOTS=serial, where the command shares them with a forked child),
            the rest.

with ratios: x real time, us per step, the command against the floor, each target of docs/performance.md.
The stepping floor itself (the master's loop with no-op twins, per-FMU per-call costs) is
``benchmarks/bench_stack.py``; this script reuses its FMU snapshot and scenario helpers.

    .venv/bin/python benchmarks/bench_run.py [--repeats 3] [--no-build] [--before DIR] [--commands-only]

``--commands-only`` runs only the survey's command with and without plots (and DIR's): each
one's wall and CPU seconds, its time outside start-up and stepping, its own start-up and
stepping (summary.json: what the plot process, preparing while the run steps, costs them).

``--before DIR`` adds the whole command (with plots, and ``--no-plots``) of another checkout
of the project as two more interleaved cases: DIR is e.g. ``git archive COMMIT | tar -x -C
DIR`` with its ``fmus/`` built or copied; it runs with this interpreter (``auv-cosim``
from DIR imports DIR's master and analyses). A before/after measured side by side, under the
from auv_cosim.master import find_scenario
same load.

results.csv of every run is compared with /work/baseline/survey/results.csv when that file is
there (the issue's byte-identical bar), and between the runs otherwise.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import yaml  # noqa: E402

import bench_stack  # noqa: E402  (snapshot of the FMUs and their no-op twins, the build step)

BASELINE = Path("/work/baseline/survey/results.csv")
TARGETS = {"command_s": 2.5, "rtf": 1500.0, "floor_ratio": 2.0, "startup_s": 0.4, "import_s": 0.15}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def timed(cmd: list[str], env: dict | None = None, cwd: Path = ROOT) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall and CPU seconds (user + system of the child and every child it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=str(cwd), env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out.returncode != 0:
        sys.exit(f"bench_run: {' '.join(cmd)} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    return wall, cpu, out


# ------------------------------------------------------------------------------ the parts
def parts_child(out_dir: str) -> None:
    """In a fresh interpreter: import master, one whole run with plots, every part timed."""
    t0, c0 = time.perf_counter(), time.process_time()
    from auv_cosim import master

    t_import, c_import = time.perf_counter() - t0, time.process_time() - c0
    import matplotlib.figure

    saves: list[tuple[str, float, float]] = []
    real_savefig = matplotlib.figure.Figure.savefig

    def savefig(self, fname, *args, **kwargs):
        s = time.perf_counter()
        r = real_savefig(self, fname, *args, **kwargs)
        if isinstance(fname, (str, os.PathLike)):  # a file (not the AUV plots' drawing into memory)
            saves.append((Path(str(fname)).name, s, time.perf_counter(), time.process_time()))
        return r

    matplotlib.figure.Figure.savefig = savefig
    from auv_cosim.vehicles.auv.host import plots as auv_plots

    real_write_png = auv_plots._write_png

    def write_png(fig, path):  # the AUV plots draw into memory and write the PNG file themselves
        s = time.perf_counter()
        real_write_png(fig, path)
        saves.append((Path(str(path)).name, s, time.perf_counter(), time.process_time()))

    auv_plots._write_png = write_png
    from auv_cosim.master import recorder as recorder_module

    closes: list[float] = []
    real_close = recorder_module.CsvRecorder.close

    def close(self):
        s = time.perf_counter()
        try:
            return real_close(self)
        finally:
            closes.append(time.perf_counter() - s)

    recorder_module.CsvRecorder.close = close
    from auv_cosim.master import summary as summary_module

    # summary.json's figures are made as the rows stream past (SummaryObserver); what is timed
    # here is their finishing, after the last step
    summaries: list[tuple[float, float]] = []
    real_result = summary_module.SummaryObserver.result

    def result(self, *args, **kwargs):
        s, c = time.perf_counter(), time.process_time()
        try:
            return real_result(self, *args, **kwargs)
        finally:
            summaries.append((s, time.perf_counter(), c, time.process_time()))

    summary_module.SummaryObserver.result = result
    t_call, c_call = time.perf_counter(), time.process_time()
    res = master.run("survey", out_dir=out_dir, progress=False, plots=True, echo_messages=False)
    t_end = time.perf_counter()
    if res.status != "completed":
        print(json.dumps({"error": res.reason}), flush=True)
        os._exit(1)
    s = res.summary
    plots, prev, prev_cpu = {}, summaries[-1][1], summaries[-1][3]
    for name, start, end, end_cpu in saves:
        plots[name] = {"total": end - prev, "savefig": end - start, "cpu": end_cpu - prev_cpu}
        prev, prev_cpu = end, end_cpu
    figures = {
        "import": t_import,
        "import_cpu": c_import,
        "run_to_summary_cpu": summaries[-1][2] - c_call,
        "summary_cpu": summaries[-1][3] - summaries[-1][2],
        "startup": s["startup_time_s"],
        "stepping": s["stepping_time_s"],
        "recorder_close": sum(closes),
        "summary": sum(e - b for b, e, *_ in summaries),
        "plots": plots,
        "run_total": t_end - t_call,
        "steps": s["steps"],
        "simulated": s["simulated_time_s"],
        "csv": digest(res.results_csv),
    }
    print(json.dumps(figures), flush=True)
    os._exit(0)  # pythonfmu 0.7.0 double-frees at interpreter exit (see tests/conftest.py)


def import_child() -> None:
    """`import master` (its exports load on first use), then what a run needs: `master.run`."""
    t0 = time.perf_counter()
    from auv_cosim import master

    t1 = time.perf_counter()
    assert callable(master.run)
    print(json.dumps({"import": t1 - t0, "run_import": time.perf_counter() - t1}), flush=True)
    os._exit(0)


# ------------------------------------------------------------------------------ the floor
def floor_scenario(folder: Path, fmus: dict, stop_time: float) -> Path:
    """scenarios/survey.yaml with the no-op twins, stop_when off, the survey's simulated time."""
    scenario = yaml.safe_load((find_scenario("survey")).read_text())
    scenario["include"] = str(find_scenario("stacks/survey"))
    scenario.pop("stop_when", None)
    scenario["stop_time"] = stop_time
    scenario["plots"] = False
    for instance, name in bench_stack.REAL.items():
        scenario["instances"].setdefault(instance, {})["fmu"] = str(fmus[name + "Noop"])
    path = folder / "survey-floor.yaml"
    path.write_text(yaml.safe_dump(scenario, sort_keys=False))
    return path


def med(values: list[float]) -> float:
    return statistics.median(values)


def print_run_times(startups: dict, steppings: dict) -> None:
    """The commands' own start-up and stepping (summary.json): what the plot process, working
    while the run starts and steps, costs them."""
    print("  the commands' start-up and stepping (summary.json startup_time_s, stepping_time_s; the plot "
          "process prepares while they run):")
    for key in [k for k in ("plots", "no-plots", "before plots", "before no-plots") if k in steppings]:
        print(f"    {key:16s} start-up {med(startups[key]):6.3f} s, stepping {med(steppings[key]):6.3f} s")


def commands_only(walls: dict, cpus: dict, afters: dict, startups: dict, steppings: dict, hashes: set) -> None:
    """The report of ``--commands-only``: each command's wall and CPU seconds, what the plots add,
    where the run's time goes (summary.json)."""
    print()
    print(f"{'whole command (medians)':44s} {'wall s':>7s} {'cpu s':>7s} {'outside start-up, stepping s':>29s}")
    for key in [k for k in ("plots", "before plots", "no-plots", "before no-plots") if k in walls]:
        print(f"{key:44s} {med(walls[key]):7.2f} {med(cpus[key]):7.2f} {med(afters[key]):29.3f}")
    print(f"  what the plots add (plots - no-plots, wall): {med(walls['plots']) - med(walls['no-plots']):.2f} s"
          + (f", before {med(walls['before plots']) - med(walls['before no-plots']):.2f} s"
             if "before plots" in walls else ""))
    print("  (outside start-up and stepping: summary.json wall_time_s - startup_time_s - stepping_time_s: the scenario, the "
          "plan and the plot process's fork before the start-up, the recorder's close, the summary and the plots)")
    print_run_times(startups, steppings)
    if BASELINE.is_file():
        print(f"results.csv byte-identical to {BASELINE} in every run: {'yes' if hashes == {digest(BASELINE)} else 'NO'}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats, the median counts (default 3)")
    parser.add_argument("--no-build", action="store_true", help="do not bring fmus/ and fmus/noop/ up to date first")
    parser.add_argument("--before", help="another checkout of the project (with its fmus/) to run side by side")
    parser.add_argument("--commands-only", action="store_true",
                        help="only the survey's command with and without plots (and --before's): no floor, no parts")
    parser.add_argument("--parts-child", help=argparse.SUPPRESS)
    parser.add_argument("--import-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.parts_child:
        parts_child(args.parts_child)
    if args.import_child:
        import_child()

    bench_stack.build(args.no_build)
    py = sys.executable
    folder = Path(tempfile.mkdtemp(prefix="bench-run-"))
    try:
        fmus = bench_stack.snapshot(folder)  # only the no-op twins are used from here
        load0 = os.getloadavg()[0]
        print(f"bench_run: the whole `auv-cosim run survey`, median of {args.repeats} interleaved repeats; "
              f"{os.cpu_count()} CPUs, load average {load0:.2f} before; python {sys.version.split()[0]}")
        print("(the machine is shared with other work: compare the ratios and the CPU seconds, "
              "not the absolute wall times, across machines or loads)")

        walls: dict[str, list[float]] = {}
        cpus: dict[str, list[float]] = {}
        parts: list[dict] = []
        imports: list[float] = []
        run_imports: list[float] = []
        hashes: set[str] = set()
        floor_path = None

        afters: dict[str, list[float]] = {}
        startups: dict[str, list[float]] = {}
        steppings: dict[str, list[float]] = {}

        def keep(key, wall, cpu, out=None):
            walls.setdefault(key, []).append(wall)
            cpus.setdefault(key, []).append(cpu)
            if out is not None:  # summary.json: the run's time outside start-up and stepping
                s = json.loads((out / "summary.json").read_text())
                afters.setdefault(key, []).append(s["wall_time_s"] - s["startup_time_s"] - s["stepping_time_s"])
                startups.setdefault(key, []).append(s["startup_time_s"])
                steppings.setdefault(key, []).append(s["stepping_time_s"])

        for r in range(args.repeats):
            out = folder / "plots"
            w, c, _ = timed([py, "-m", "auv_cosim", "run", "survey", "--out", str(out)])
            keep("plots", w, c, out)
            hashes.add(digest(out / "results.csv"))
            summary = json.loads((out / "summary.json").read_text())
            if floor_path is None:
                floor_path = floor_scenario(folder, fmus, summary["simulated_time_s"])
            out = folder / "no-plots"
            w, c, _ = timed([py, "-m", "auv_cosim", "run", "survey", "--no-plots", "--out", str(out)])
            keep("no-plots", w, c, out)
            hashes.add(digest(out / "results.csv"))
            if args.before:
                before = Path(args.before).resolve()
                out = folder / "before-plots"
                w, c, _ = timed([py, "-m", "auv_cosim", "run", "survey", "--out", str(out)], cwd=before)
                keep("before plots", w, c, out)
                hashes.add(digest(out / "results.csv"))
                out = folder / "before-no-plots"
                w, c, _ = timed([py, "-m", "auv_cosim", "run", "survey", "--no-plots", "--out", str(out)], cwd=before)
                keep("before no-plots", w, c, out)
                hashes.add(digest(out / "results.csv"))
            if args.commands_only:
                continue
            w, c, _ = timed([py, "-m", "auv_cosim", "run", str(floor_path), "--no-plots", "--out", str(folder / "floor")])
            keep("floor", w, c)
            w, c, _ = timed([py, "-c", "pass"])
            keep("python", w, c)
            w, c, o = timed([py, __file__, "--import-child"])
            keep("import", w, c)
            figures = json.loads(o.stdout.strip().splitlines()[-1])
            imports.append(figures["import"])
            run_imports.append(figures["run_import"])
            w, c, o = timed([py, __file__, "--parts-child", str(folder / "parts")],
                            env=dict(os.environ, AUV_MASTER_PLOTS="serial"))
            p = json.loads(o.stdout.strip().splitlines()[-1])
            parts.append(p)
            hashes.add(p["csv"])

        if args.commands_only:
            commands_only(walls, cpus, afters, startups, steppings, hashes)
            return
        steps, sim = parts[0]["steps"], parts[0]["simulated"]
        print(f"survey: {sim:.1f} s simulated, {steps} steps")
        print()
        print(f"{'whole command':44s} {'wall s':>7s} {'cpu s':>7s} {'x real time':>11s} {'/ floor':>8s}")
        floor_wall = med(walls["floor"])
        labels = {"plots": "auv-cosim run survey", "no-plots": "  ... --no-plots",
                  "floor": "  ... no-op twins, --no-plots (the floor)", "python": "python -c pass",
                  "import": "child: its imports, master, master.run"}
        if args.before:
            labels = {"plots": labels["plots"], "before plots": f"  ... before ({args.before})",
                      "no-plots": labels["no-plots"], "before no-plots": f"  ... --no-plots, before",
                      **{k: v for k, v in labels.items() if k not in ("plots", "no-plots")}}
        for key, label in labels.items():
            w, c = med(walls[key]), med(cpus[key])
            rtf = f"{sim / w:11.0f}" if "plots" in key or key == "floor" else f"{'':11s}"
            print(f"{label:44s} {w:7.2f} {c:7.2f} {rtf} {w / floor_wall:8.2f}")
        print()

        def part(key):
            return med([p[key] for p in parts])

        names = list(parts[0]["plots"])
        plot_total = med([sum(v["total"] for v in p["plots"].values()) for p in parts])
        run_total = part("run_total")
        print(f"where one run's time goes (master.run with plots, fresh interpreter; median of {len(parts)}; the "
              "plots drawn one after the other in this process, AUV_MASTER_PLOTS=serial, to time each; the "
              "command shares them with a forked child):")
        rows = [("from auv_cosim import master", part("import")),
                ("start-up (scenario, FMUs: startup_time_s)", part("startup")),
                ("stepping, recorder on (stepping_time_s)", part("stepping")),
                ("recorder close (writer's last blocks)", part("recorder_close")),
                ("summary figures", part("summary")),
                ("five plots", plot_total)]
        rows += [(f"  {n}", med([p["plots"][n]["total"] for p in parts])) for n in names]
        accounted = part("startup") + part("stepping") + part("recorder_close") + part("summary") + plot_total
        rows.append(("the rest of master.run", run_total - accounted))
        cpu_rows = {"from auv_cosim import master": part("import_cpu"), "summary figures": part("summary_cpu"),
                    "five plots": med([sum(v["cpu"] for v in p["plots"].values()) for p in parts])}
        cpu_rows.update({f"  {n}": med([p["plots"][n]["cpu"] for p in parts]) for n in names})
        print(f"  {'':46s} {'wall s':>7s} {'cpu s':>7s}")
        for label, secs in rows:
            cpu = f"{cpu_rows[label]:7.3f}" if label in cpu_rows else f"{'':7s}"
            print(f"  {label:46s} {secs:7.3f} {cpu}")
        print(f"  (CPU seconds from the call of master.run to the summary: start-up + stepping + recorder "
              f"close: {part('run_to_summary_cpu'):.3f} s)")
        savefig = med([sum(v["savefig"] for v in p["plots"].values()) for p in parts])
        print(f"  (of the plots, savefig or the AUV plots' drawing and PNG writing: {savefig:.3f} s)")
        stepping = part("stepping")
        print(f"stepping: {sim / stepping:.0f}x real time, {stepping / steps * 1e6:.1f} us a step")
        print()
        floor_step_us = (med(walls["floor"]) - med(walls["python"])) / steps * 1e6
        print("against the targets of docs/performance.md (medians):")
        checks = [
            ("whole command with plots <= 2.5 s", med(walls["plots"]), TARGETS["command_s"], "s"),
            ("stepping >= 1500x real time", sim / stepping, TARGETS["rtf"], "x"),
            ("FMU start-up <= 0.4 s", part("startup"), TARGETS["startup_s"], "s"),
            ("import master <= 0.15 s", med(imports), TARGETS["import_s"], "s"),
        ]
        for label, value, target, unit in checks:
            ok = value >= target if unit == "x" else value <= target
            print(f"  {label:40s} {value:9.3f} {'met' if ok else 'NOT met'}")
        print(f"  (then `master.run`, what a run imports: {med(run_imports):.3f} s wall)")
        if args.before:
            for key in ("plots", "no-plots"):
                print(f"  whole command, {key}: now / before: wall {med(walls[key]) / med(walls['before ' + key]):.2f}, "
                      f"CPU {med(cpus[key]) / med(cpus['before ' + key]):.2f}")
            print(f"  what the plots add (plots - no-plots, wall): now {med(walls['plots']) - med(walls['no-plots']):.2f} s, "
                  f"before {med(walls['before plots']) - med(walls['before no-plots']):.2f} s")
        print("  master.run's time outside start-up and stepping (summary.json: wall_time_s - startup_time_s - "
              "stepping_time_s; before the start-up: scenario, plan, the plot process's fork; after the last step: "
              "the recorder's close, the summary, the plots):")
        for key in [k for k in ("plots", "no-plots", "before plots", "before no-plots") if k in afters]:
            print(f"    {key:16s} {med(afters[key]):6.3f} s")
        print_run_times(startups, steppings)
        print(f"  command / floor command (wall): {med(walls['no-plots']) / floor_wall:.2f} (no plots), "
              f"{med(walls['plots']) / floor_wall:.2f} (plots); floor command {floor_step_us:.1f} us a step "
              "beyond the interpreter's own start")
        if BASELINE.is_file():
            same = hashes == {digest(BASELINE)}
            print(f"results.csv byte-identical to {BASELINE} in every run: {'yes' if same else 'NO'}")
        else:
            print(f"results.csv identical across the runs: {'yes' if len(hashes) == 1 else 'NO'} "
                  f"({BASELINE} not there to compare with)")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
