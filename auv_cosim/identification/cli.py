"""``auv-cosim identify LOG --vehicle NAME --fit NAME,... --out DIR`` (NAME: a registered unit with an
identification adapter, ``auv`` or ``h100`` in this package)."""

from __future__ import annotations

import sys
from pathlib import Path


def add_identify_parser(sub) -> None:
    from .vehicles import vehicle_names

    p = sub.add_parser(
        "identify", help="fit vehicle parameters to a trial log (lmfit, output error)",
        description="Fit the named parameters of a vehicle to a trial log by simulating the vehicle library "
                    "over the logged commands from the logged initial state (output error, lmfit). Writes "
                    "DIR/estimates.json (each fitted FMU parameter: value, standard error, nominal, correlations), "
                    "fit.json, residuals.csv, report.txt, fit.png (measured, nominal and fitted predictions) and a "
                    "vehicle file with the fitted values. Exit status 2 for a log or a name it cannot use.")
    p.add_argument("log", metavar="LOG", help="the trial's results.csv, or any CSV with --columns")
    p.add_argument("--vehicle", required=True, choices=vehicle_names(), help="the vehicle (a registered unit)")
    p.add_argument("--fit", required=True, metavar="NAME,...",
                   help="FMU parameter names to fit, e.g. AxialDragCoeff,CrossFlowDragCoeff or "
                        "'LinearDamping[1,1],ThrusterEfficiency'")
    p.add_argument("--out", metavar="DIR", default="results/identify", help="output folder (default results/identify)")
    p.add_argument("--columns", metavar="NAME=COLUMN,...",
                   help="column map of a user CSV (or a YAML file of one): time, the inputs and the measured channels")
    p.add_argument("--hold", choices=("ending", "starting"), default="ending",
                   help="a row's commands were applied over the step ending at its time (default, as the master "
                        "records) or starting there")
    p.add_argument("--vehicle-file", metavar="FILE",
                   help="known parameter values to start from (AUV: a YAML of FMU parameters; H100: a vehicle YAML)")
    p.add_argument("--channels", metavar="NAME,...", help="measured channels to fit (default: all the log has)")
    p.add_argument("--no-initial-state", action="store_true",
                   help="take the initial state from the first sample as it is (default: fit it along)")
    p.add_argument("--check", metavar="LOG",
                   help="a held-out log: print and record the RMS position error of the nominal and fitted models on it")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 on any warning (default: only where the fit is unusable: not converged, a parameter "
                        "at a bound, a standard error of 0 or above its value, the held-out check worse than the nominal)")
    p.add_argument("--start", type=float, help="use the log from this time on (s)")
    p.add_argument("--stop", type=float, help="use the log up to this time (s)")
    p.set_defaults(func=cmd_identify)


def _split(text: str) -> list[str]:
    """Names separated by commas, commas inside brackets kept: 'LinearDamping[1,1],X' -> 2 names."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [n for n in out if n]


#: what an identification writes into --out (auv_cosim.identification.report.write_outputs), besides the
#: vehicle file its adapter names
OUTPUT_FILES = ("estimates.json", "fit.json", "residuals.csv", "fit.png", "report.txt")


def check_out(out: Path, outputs, inputs) -> None:
    """Refuse, before any fit, an --out that is a file or whose outputs would replace one of
    the command's inputs (a ScenarioError naming it). Its own files of an earlier fit are
    replaced."""
    from auv_cosim.master import ScenarioError, display_path, output_target

    if out.exists() and not out.is_dir():
        raise ScenarioError("--out", display_path(out), "exists and is not a folder")
    for name in outputs:
        output_target(out / name, option="--out", inputs=inputs, replaceable=True)


def _window(log, start, stop):
    """The log from --start to --stop, refused (ValueError naming them) when they are not finite,
    in the wrong order, or leave fewer than two samples."""
    import math

    for option, value in (("--start", start), ("--stop", stop)):
        if value is not None and not math.isfinite(value):
            raise ValueError(f"{option} {value}: a time in seconds")
    if start is not None and stop is not None and not start < stop:
        raise ValueError(f"--start {start:g} must come before --stop {stop:g}")
    part = log.window(-math.inf if start is None else start, math.inf if stop is None else stop)
    if len(part.time) < 2:
        raise ValueError(f"--start/--stop: {len(part.time)} sample(s) of {log.path} from "
                         f"{'the start' if start is None else f't = {start:g} s'} to "
                         f"{'the end' if stop is None else f't = {stop:g} s'} (the log spans "
                         f"t = {log.time[0]:g} .. {log.time[-1]:g} s); a fit needs at least 2")
    return part


def cmd_identify(args) -> int:
    from auv_cosim.master import ScenarioError

    from .fit import check_fit_names, identify, predict, rms_position_error, unusable, warning
    from .log import LogError, parse_column_map, read_log
    from .report import write_outputs
    from .vehicles import vehicle_adapter

    try:
        adapter = vehicle_adapter(args.vehicle, args.vehicle_file)
        inputs = [p for p in (args.log, args.check, args.vehicle_file, args.columns) if p and Path(p).is_file()]
        check_out(Path(args.out), OUTPUT_FILES + (adapter.vehicle_file_name,), inputs)
        fit = _split(args.fit)
        check_fit_names(adapter, fit, adapter.nominal(args.vehicle_file))   # before the log is read
        column_map = parse_column_map(args.columns)
        log = read_log(args.log, adapter, column_map, hold=args.hold)
        if args.start is not None or args.stop is not None:
            log = _window(log, args.start, args.stop)
        channels = _split(args.channels) if args.channels else None
        check = read_log(args.check, adapter, column_map, hold=args.hold) if args.check else None
        fr = identify(log, adapter, fit, vehicle_file=args.vehicle_file, channels=channels,
                      fit_initial_state=not args.no_initial_state)
    except (LogError, ValueError, FileNotFoundError, ScenarioError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(fr.report)
    print(f"  RMS position error on the fitted log: nominal {rms_position_error(adapter, log, fr.predicted_nominal):.3f} m, "
          f"fitted {rms_position_error(adapter, log, fr.predicted):.3f} m")
    heldout = None
    if check is not None:
        nominal = adapter.nominal(args.vehicle_file)
        e_nom = rms_position_error(adapter, check, predict(adapter, nominal, check))
        e_fit = rms_position_error(adapter, check, predict(adapter, fr.values, check))
        heldout = {"log": str(check.path), "rms_position_error_m": {"nominal": e_nom, "fitted": e_fit}}
        print(f"  held-out {check.path}: RMS position error nominal {e_nom:.3f} m, fitted {e_fit:.3f} m")
        if e_fit > e_nom:
            w = warning("heldout-worse", f"on the held-out {check.path} the fitted model is worse than the nominal "
                                         f"(RMS position error {e_nom:.3f} -> {e_fit:.3f} m)")
            fr.warnings.append(w)
            fr.report = fr.report.replace("\n  no warnings", "") + f"\n  warning [{w['code']}]: {w['message']}"
            print(f"  warning [{w['code']}]: {w['message']}")
    files = write_outputs(fr, log, adapter, Path(args.out), vehicle_file=args.vehicle_file, heldout=heldout)
    for key in ("estimates", "vehicle", "plot", "residuals"):
        if key in files:
            print(f"{key + ':':<11}{files[key]}")
    bad = unusable(fr.warnings)
    if bad:
        print(f"unusable fit ({', '.join(bad)}): no vehicle file written; exit 1")
        return 1
    if args.strict and fr.warnings:
        print(f"--strict: {len(fr.warnings)} warning(s); exit 1")
        return 1
    return 0
