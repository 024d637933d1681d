"""Command line: ``auv-cosim run|view|validate|list|sweep|identify|export|export-ssp|export-osp``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from auv_cosim.master import registry
from auv_cosim.master.scenario import ScenarioError, display_path, list_scenarios, scenario_fmus


def _parse_set(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ScenarioError("--set", item, "expected INSTANCE.VARIABLE=VALUE")
        k, v = item.split("=", 1)
        k = k.strip()
        if "." not in k:
            raise ScenarioError("--set", item, "expected INSTANCE.VARIABLE=VALUE")
        v = v.strip()
        if v.startswith("["):  # a vector: --set vehicle.Pos0=[0,0,5]
            import yaml

            from auv_cosim.master.scenario import load_yaml

            try:
                v = load_yaml(v)
            except yaml.YAMLError:
                raise ScenarioError("--set", item, f"cannot read {v!r} as a list") from None
            if isinstance(v, list):
                v = [str(x) for x in v]
        out[k] = v
    return out


def _fmt(x, unit="", nd=4):
    if x is None:
        return "n/a"
    return f"{x:.{nd}g}{unit}"


def _print_summary(res) -> None:
    s = res.summary
    print(f"{s['scenario']}: {s['status']} ({s['reason']})")
    rtf = s.get("real_time_factor")
    print(f"  simulated {s['simulated_time_s']:.1f} s in {s['wall_time_s']:.2f} s wall "
          f"(stepping {s['stepping_time_s']:.2f} s = {_fmt(rtf, 'x', 4)} real time; start-up {s['startup_time_s']:.2f} s)")
    rt = s.get("realtime")
    if rt:
        print(f"  paced at {rt['factor']:g}x real time: {rt['wall_s']:.3f} s wall for {rt['simulated_s']:.1f} s; "
              f"lateness median {_fmt(rt['lateness_median_s'], ' s', 3)}, 99th percentile "
              f"{_fmt(rt['lateness_p99_s'], ' s', 3)}, max {_fmt(rt['lateness_max_s'], ' s', 3)}; "
              f"{rt['overruns']} overrun(s) of {rt['points']} points")
    for figures in registry.figures().values():
        for line in figures.describe(s):
            print("  " + line)
    analyses = registry.analyses()
    for name, a in (s.get("analysis") or {}).items():
        if "error" in a:
            print(f"  {name}: {a['error']}")
            continue
        describe = analyses[name].describe if name in analyses else None
        if describe is not None:
            print("  " + describe(a))
    if res.summary_path is None:
        print(s["kept"])
        return
    print(f"results: {s['files']['results']}")
    print(f"summary: {s['files']['summary']}")
    if res.plots:
        print(f"plots:   {display_path(res.out_dir)}/ (" + ", ".join(p.name for p in res.plots) + ")")


def cmd_run(args) -> int:
    from auv_cosim.master.runner import run
    from auv_cosim.master.ssp import scenario_source

    try:
        overrides = _parse_set(args.set)
        pacer = None
        if args.realtime is not None:
            from auv_cosim.outputs.pacing import RealTimePacer

            try:
                pacer = RealTimePacer(args.realtime)
            except ValueError as e:
                raise ScenarioError("--realtime", str(args.realtime), str(e)) from None
        from auv_cosim.outputs.formats import FORMAT_FILES

        observers = []
        if args.format is not None:
            from auv_cosim.outputs.formats import parse_formats, writers_for

            observers += writers_for(parse_formats(args.format))
        if args.port is not None and not args.live:
            raise ScenarioError("--port", str(args.port), "is the port of --live; give --live too")
        if args.live:
            from auv_cosim.outputs.live import LiveError, LiveView

            try:
                observers.append(LiveView(port=8765 if args.port is None else args.port, paced=pacer is not None))
            except LiveError as e:
                raise ScenarioError("--port", str(8765 if args.port is None else args.port), str(e)) from None
        with scenario_source(args.scenario, args.parameter_set) as scenario:  # an .ssp file too
            build_missing_fmus(scenario, overrides)
            res = run(scenario, out_dir=args.out, stop_time=args.stop_time, step=args.step, overrides=overrides,
                      output_interval=args.output_interval,
                      progress=False if args.no_progress else None, plots=False if args.no_plots else None,
                      pacer=pacer, observers=tuple(observers), keep_rows=False, derived=FORMAT_FILES)
    except ScenarioError as e:
        print(f"error: scenario refused, nothing was run:\n{e}", file=sys.stderr)
        return 2
    view_error = None
    if args.view and res.rows >= 2:
        view_error = _write_view(res.out_dir, quiet=args.quiet)
    if args.quiet:
        if not res.ok:
            print(f"{res.summary['scenario']}: {res.status}: {res.reason}", file=sys.stderr)
    else:
        _print_summary(res)
        if not res.ok:
            print(f"error: {res.status}: {res.reason}", file=sys.stderr)
    return res.exit_code if view_error is None else max(res.exit_code, 1)


def build_missing_fmus(scenario, overrides=None) -> list[str]:
    """Build the FMUs of the registered units that the scenario names (``<Name>.fmu``) and that
    are missing, into ``units.fmu_folder()`` (the clone's ``fmus/``, else the per-user cache),
    saying so on stderr with the folder; returns their names. Nothing when the scenario cannot
    be read (the run reports it)."""
    from auv_cosim import units
    from auv_cosim.master import load_scenario, resolve_fmu_path
    from auv_cosim.master.runner import find_scenario

    try:
        loaded = load_scenario(scenario if isinstance(scenario, dict) else find_scenario(scenario), overrides)
    except (ScenarioError, OSError, ValueError):
        return []
    known = units.fmu_names()
    missing = []
    for name, spec in loaded.model.instances.items():
        found, _looked = resolve_fmu_path(spec.fmu, loaded.fmu_dirs.get(name))
        stem = Path(spec.fmu).stem
        if found is None and Path(spec.fmu).suffix == ".fmu" and stem in known and stem not in missing:
            missing.append(stem)
    if missing:
        from auv_cosim.build.command import build_into

        folder = units.fmu_folder()
        clone = units.checkout() is not None
        shown = ", ".join(f"{m}.fmu" for m in missing)
        print(f"auv-cosim: building {shown} into {display_path(folder) if clone else folder}/: the scenario needs "
              f"{'them' if len(missing) > 1 else 'it'}"
              f"{' (./build.sh builds every FMU)' if clone else ' (built once, kept for the next runs)'}",
              file=sys.stderr, flush=True)
        build_into(missing, folder)
    return missing


def _write_view(results_dir, out=None, frames=200, quiet=False, force=False) -> str | None:
    """Write view.html; returns the error message when it could not."""
    from auv_cosim.master.view import ViewError, write_view

    try:
        path = write_view(results_dir, out=out, max_frames=frames, force=force)
    except (ViewError, OSError) as e:
        print(f"error: no view written: {e}", file=sys.stderr)
        return str(e)
    if not quiet:
        print(f"view:    {display_path(path)}")
    return None


def cmd_view(args) -> int:
    if args.frames < 2:
        print(f"error: --frames {args.frames}: at least 2", file=sys.stderr)
        return 2
    return 0 if _write_view(args.results_dir, out=args.out, frames=args.frames, force=args.force) is None else 2


def cmd_export(args) -> int:
    from auv_cosim.outputs.formats import export, parse_formats

    try:
        formats = parse_formats(args.format, allowed=("mcap", "rosbag", "parquet"))
        paths = export(Path(args.results_dir), formats, force=args.force)
    except ScenarioError as e:
        print(f"error: nothing exported:\n{e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: nothing exported: {e.strerror or e}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"{display_path(path)}: written from {display_path(Path(args.results_dir) / 'results.csv')}")
    return 0


def cmd_export_ssp(args) -> int:
    from auv_cosim.master.plan import build_plan
    from auv_cosim.master.runner import find_scenario
    from auv_cosim.master.scenario import load_scenario
    from auv_cosim.master.ssp import export_ssp

    out = Path(args.out)
    try:
        plan = build_plan(load_scenario(find_scenario(args.scenario), _parse_set(args.set)),
                          stop_time=args.stop_time, step=args.step)
        notes = export_ssp(plan, out, force=args.force)
    except ScenarioError as e:
        print(f"error: nothing exported:\n{e}", file=sys.stderr)
        return 2
    except OSError as e:  # a folder that cannot be written, a full disk ...
        print(f"error: nothing exported: OUT: {display_path(out)}: cannot write it: {e.strerror or e}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"{display_path(out)}: {len(plan.instances)} instances, {len(plan.connections)} connections, "
          f"step {plan.step:g} s, stop time {plan.stop_time:g} s, parameter set '{plan.name}'")
    return 0


def cmd_export_osp(args) -> int:
    from auv_cosim.master.plan import build_plan
    from auv_cosim.master.runner import find_scenario
    from auv_cosim.master.scenario import load_scenario
    from auv_cosim.outputs.osp import OSP_FILE, export_osp

    out = Path(args.out_dir)
    try:
        plan = build_plan(load_scenario(find_scenario(args.scenario), _parse_set(args.set)), step=args.step)
        notes = export_osp(plan, out, force=args.force)
    except ScenarioError as e:
        print(f"error: nothing exported:\n{e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: nothing exported: OUT_DIR: {display_path(out)}: cannot write it: {e.strerror or e}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"{display_path(out / OSP_FILE)}: {len(plan.instances)} simulators, {len(plan.connections)} connections, "
          f"base step {plan.step:g} s (libcosim: fixedStep)")
    return 0


def cmd_validate(args) -> int:
    from fmpy.validation import validate_fmu

    from auv_cosim.master.fmu_cache import FmuArchiveError, check_fmu_archive

    fmus = [Path(p) for p in args.fmus] if args.fmus else scenario_fmus()
    bad = refused = 0
    for p in fmus:
        shown = display_path(p)
        if not p.is_file():
            if not args.fmus:
                print(f"{shown}: MISSING (build it with ./build.sh)")
            elif p.is_dir():
                print(f"{shown}: is a directory, not an FMU file", file=sys.stderr)
                refused += 1
            elif p.exists():
                print(f"{shown}: not a regular file, not an FMU file", file=sys.stderr)
                refused += 1
            else:
                print(f"{shown}: no such file", file=sys.stderr)
                refused += 1
            bad += 1
            continue
        try:
            check_fmu_archive(p)  # fmpy's validator reads modelDescription.xml only
            problems = validate_fmu(str(p))
        except FmuArchiveError as e:
            problems = [str(e)]
        except Exception as e:
            problems = [f"validation failed: {e}"]
        if problems:
            bad += 1
            print(f"{shown}: {len(problems)} problem(s)")
            for pr in problems:
                print(f"  - {pr}")
        else:
            print(f"{shown}: OK")
    if bad:
        print(f"{bad} of {len(fmus)} FMU(s) have problems", file=sys.stderr)
    return 2 if refused else 1 if bad else 0


def cmd_list(args) -> int:
    directory = Path(args.dir) if args.dir else None
    if directory is not None and not directory.is_dir():
        why = "is not a folder" if directory.exists() else "no such folder"
        print(f"error: --dir: {display_path(directory)}: {why}", file=sys.stderr)
        return 2
    items = list_scenarios(directory)
    if not items:
        where = display_path(directory) if directory is not None else "the registered units' scenario folders"
        print(f"no scenarios in {where}", file=sys.stderr)
        return 1
    width = max(len(n) for n, _, _ in items)
    for name, desc, path in items:
        print(f"{name:<{width}}  {desc}")
    return 0


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; given the command about to run, one that knows only the
    commands it may need (``run``, ``view``, ``validate`` and ``list`` leave out ``sweep`` and
    ``identify``, whose options come from their packages: importing the campaign's costs a run
    some 0.1 s)."""
    p = argparse.ArgumentParser(
        prog="auv-cosim",
        description="FMI 2.0 co-simulation of underwater vehicles (the survey AUV, the H100 ROV): run "
                    "scenarios and look at the runs, validate and export the FMUs, sweep, identify.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    r = sub.add_parser("run", help="run a scenario and write results.csv, summary.json and plots",
                       description="Run a scenario file (or the name of one of the registered units' scenarios, "
                                   "auv-cosim list). Writes results.csv "
                                   "(every communication step), summary.json and PNG plots into the output folder. "
                                   "Exit status: 0 completed, 1 failed (FMU error, NaN), 2 scenario refused, 130 interrupted.")
    r.add_argument("scenario", metavar="SCENARIO",
                   help="scenario YAML file, a name such as 'survey', or an SSP archive (.ssp)")
    r.add_argument("--out", metavar="DIR", help="output folder (default: results/<scenario name>/)")
    r.add_argument("--stop-time", metavar="S", type=float, help="stop time in seconds (overrides the scenario)")
    r.add_argument("--step", metavar="H", type=float, help="communication step in seconds (overrides the scenario)")
    r.add_argument("--output-interval", metavar="S", type=float,
                   help="record every k-th step: S seconds, a multiple of the step (results.csv and --format get "
                        "every k-th point and the last; summary.json's figures and the plots see every step)")
    r.add_argument("--set", metavar="INSTANCE.VARIABLE=VALUE", action="append", default=[],
                   help="set a parameter or input start value, e.g. --set vehicle.Battery0=5000 "
                        "(vectors: --set vehicle.Pos0=[0,0,5]); repeatable")
    r.add_argument("--no-plots", action="store_true", help="do not draw the PNG plots")
    r.add_argument("--view", action="store_true", help="also write view.html, the interactive 3-D view (see 'view')")
    r.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    r.add_argument("--format", metavar="LIST",
                   help="what to write besides summary.json, any of csv,mcap,rosbag,parquet (default csv; "
                        "results.csv is always written: export reads it): results.mcap, rosbag/, results.parquet")
    r.add_argument("--live", action="store_true",
                   help="serve the run live to Foxglove (a WebSocket on 127.0.0.1, the channels of the MCAP "
                        "file); with --realtime to watch it fly")
    r.add_argument("--port", metavar="N", type=int, help="the port of --live (default 8765; 0: any free port)")
    r.add_argument("--realtime", metavar="FACTOR", type=float,
                   help="pace the steps at FACTOR times the wall clock (1: real time); the lateness of the "
                        "steps goes into summary.json (realtime)")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing unless the run fails")
    r.add_argument("--parameter-set", metavar="NAME",
                   help="for an .ssp file: the parameter set to apply (default: each component's first)")
    r.set_defaults(func=cmd_run)

    vw = sub.add_parser("view", help="write RESULTS_DIR/view.html: the run in 3-D with a time slider",
                        description="Write one self-contained HTML page (plotly, its JavaScript embedded: opens "
                                    "offline from the file) of a run's results folder: the 3-D track (NED, depth "
                                    "down), the vehicle at its attitude with a time slider and play button, the "
                                    "waypoints, the sea surface and floor, and time plots following the slider. "
                                    "Reads results.csv and scenario.resolved.yaml. Exit status 2 when the folder "
                                    "cannot be viewed.")
    vw.add_argument("results_dir", metavar="RESULTS_DIR", help="a folder written by 'run' (results.csv inside)")
    vw.add_argument("--out", metavar="FILE", help="the page to write (default: RESULTS_DIR/view.html, replaced when "
                                                  "it exists; another existing file only with --force)")
    vw.add_argument("--force", action="store_true", help="replace the --out file when it exists")
    vw.add_argument("--frames", metavar="N", type=int, default=200,
                    help="time slider positions (default 200; the page grows with them)")
    vw.set_defaults(func=cmd_view)

    x = sub.add_parser("export", help="write a finished run's results as MCAP, a ROS 2 bag or Parquet",
                       description="Write RESULTS_DIR/results.mcap, RESULTS_DIR/rosbag/ or RESULTS_DIR/results.parquet "
                                   "from the folder's results.csv and scenario.resolved.yaml (docs/outputs.md).")
    x.set_defaults(func=cmd_export)
    x.add_argument("results_dir", metavar="RESULTS_DIR", help="a folder written by 'run'")
    x.add_argument("--format", metavar="LIST", required=True,
                   help="any of mcap,rosbag,parquet (comma-separated: each is written, or none)")
    x.add_argument("--force", action="store_true", help="replace the files when they exist")

    e = sub.add_parser("export-ssp", help="write a scenario's system as an SSP 1.0 archive",
                       description="Write the scenario's FMUs, connections, parameters (a parameter set named "
                                   "after the scenario), start/stop time and step as an SSP 1.0 archive that "
                                   "libcosim, Ecos and other SSP tools run (docs/using_auv_fmu.md). Input signals "
                                   "are not exported. Exit status 2 when the scenario or OUT.ssp is refused "
                                   "(nothing is written).")
    e.add_argument("scenario", metavar="SCENARIO", help="scenario YAML file, or a name such as 'survey'")
    e.add_argument("out", metavar="OUT.ssp", help="the archive to write (an existing file only with --force; never "
                                                  "the scenario or one of its FMUs)")
    e.add_argument("--force", action="store_true", help="replace OUT.ssp when it exists")
    e.add_argument("--stop-time", metavar="S", type=float, help="stop time in seconds (overrides the scenario)")
    e.add_argument("--step", metavar="H", type=float, help="communication step in seconds (overrides the scenario)")
    e.add_argument("--set", metavar="INSTANCE.VARIABLE=VALUE", action="append", default=[],
                   help="set a parameter or input start value, as for run; repeatable")
    e.set_defaults(func=cmd_export_ssp)

    o = sub.add_parser("export-osp", help="write a scenario's stack as an OSP system structure for libcosim",
                       description="Write OUT_DIR/OspSystemStructure.xml (the Open Simulation Platform's system "
                                   "structure: simulators, start values, connections, base step) beside a copy of "
                                   "each FMU it names; libcosim loads and runs it (docs/outputs.md).")
    o.set_defaults(func=cmd_export_osp)
    o.add_argument("scenario", metavar="SCENARIO", help="scenario YAML file, or a name such as 'survey'")
    o.add_argument("out_dir", metavar="OUT_DIR", help="the folder to write into (created; may exist)")
    o.add_argument("--force", action="store_true", help="replace the structure and FMU files when they exist")
    o.add_argument("--step", metavar="H", type=float, help="communication step in seconds (overrides the scenario)")
    o.add_argument("--set", metavar="INSTANCE.VARIABLE=VALUE", action="append", default=[],
                   help="override a parameter (repeatable)")

    v = sub.add_parser("validate", help="check FMUs with fmpy's validator",
                       description="Validate FMUs with fmpy.validation.validate_fmu (modelDescription schema, "
                                   "variables, model structure, start values, units). Default: every FMU the registered units' "
                                   "scenarios (and their stack files) name. Exit status 1 when any FMU is missing or has "
                                   "a problem.")
    v.add_argument("fmus", metavar="FMU", nargs="*", help="FMU files (default: those the project's scenarios name)")
    v.set_defaults(func=cmd_validate)

    ls = sub.add_parser("list", help="list the scenarios, one line each",
                        description="List the scenarios of the registered units (their names run as "
                                    "`auv-cosim run NAME`) with their description.")
    ls.add_argument("--dir", metavar="DIR", help="a scenario folder (default: every registered unit's)")
    ls.set_defaults(func=cmd_list)

    # the commands of other packages (sweep: auv_cosim.campaigns, identify: identification) come
    # through the auv_cosim.commands entry points; only the one about to run is imported (a run
    # imports neither), all of them for help or an unknown command (whose error lists them)
    if command not in sub.choices:
        for add_parser in registry.commands(command):
            add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command).parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
