"""The H100 controller comparison (seed 004 M5, docs/physics/h100.md#acceptance): one scenario flown by each controller,
one table, one figure. A subcommand of the master, registered through an entry point
(pyproject.toml: ``auv_cosim.commands`` -> ``add_parser``):

    auv-cosim compare SCENARIO [--controllers pid,lqr,smc] [--out DIR] [--stop-time S]
                                      [--workers K] [--set INSTANCE.VARIABLE=VALUE ...]
                                      [--without INSTANCE ...]

It runs a campaign over the String parameter ``control.Controller`` (``auv_cosim.campaigns.sweep``:
resumable, the runs in ``OUT/runs/``, ``OUT/campaign.csv``), then writes

* ``OUT/comparison.csv`` and ``OUT/comparison.md`` (printed too): per controller the 3-D
  position error RMS and max, the heading error RMS, the settling time into 0.1 m, the thrust
  effort and the propulsive energy, the time with a thruster saturated, the track or manoeuvre figures of a waypoint, S-shape or
  sway scenario, and the depth-step figures of a scenario with that analysis: each run's own
  summary.json figures (``h100.<control>`` of auv_cosim/vehicles/h100/host/figures.py, ``analysis.depth_step``);
* ``OUT/tracks.png``: every run's track over the reference, north against east and depth
  against time (from the runs' results.csv).

``--without INSTANCE`` flies every controller again on the scenario with that instance removed
(a tether: ``compare h100_tether_hold --without tether``), from a scenario file written in
``OUT`` that includes the scenario and drops the instance (``instances: {INSTANCE: null}``, its
connections with it); its runs in ``OUT/without_<INSTANCE>/``, its rows in the same table,
named ``<controller> without <INSTANCE>`` (the CSV's column ``flown``); a ``--set`` of that
instance applies to the flights that have it.

``OUT`` defaults to ``results/compare/<scenario>``. Exit status 0 when every run completed, 1
otherwise (the table names the failed runs and why), 2 when nothing could run.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

#: (summary.json figure under h100.<control>, or a full key under analysis.; column heading)
COLUMNS = [
    ("position_rms_m", "RMS position error [m]"),
    ("position_max_m", "max position error [m]"),
    ("heading_rms_rad", "RMS heading error [rad]"),
    ("settling_time_s", "settling into 0.1 m [s]"),
    ("thrust_effort_N_s", "thrust effort [N s]"),
    ("propulsive_energy_J", "propulsive energy [J]"),
    ("saturated_time_s", "thrusters saturated [s]"),
    ("tracking.mean_cross_track_error_m", "mean cross-track error [m]"),
    ("tracking.max_heading_error_rad", "max heading error [rad]"),
    ("tracking.steady_tracking_error_rms_m", "steady tracking error [m]"),
    ("manoeuvre.yaw_lag_s", "yaw lag [s]"),
    ("manoeuvre.max_heading_error_rad", "max heading error [rad]"),
    ("manoeuvre.lateral_drift_rms_m", "lateral drift RMS [m]"),
    ("analysis.depth_step.overshoot_percent", "depth step overshoot [%]"),
    ("analysis.depth_step.settling_time_s", "depth step settling [s]"),
    ("analysis.depth_step.steady_state_error_m", "depth step steady error [m]"),
    ("analysis.wake_passage.position_error_m.rms", "RMS position error in the wake [m]"),
    ("analysis.wake_passage.max_position_error_m", "max position error in the wake [m]"),
    ("analysis.wake_passage.position_error_before_m.rms", "RMS position error before the wake [m]"),
]
HELP = "fly one H100 scenario with each controller: one table, one figure of the tracks"


def _figure(row: dict, key: str, control: str):
    return row.get(key if key.startswith("analysis.") else f"h100.{control}.{key}")


def compare(scenario, controllers=None, out_dir=None, stop_time=None, workers=None, overrides=None,
            control: str = "control", vehicle: str = "vehicle", progress=None, text_set=None,
            without=()) -> list[dict]:
    """Run the campaign, write the table and the figure; one row per controller (and per
    controller and instance of ``without``): controller, flown ("as is" or "without NAME"),
    status, reason, run_dir and the COLUMNS keys. `controllers`: names of the H100's
    controllers (default: every one, auv_cosim.vehicles.h100.stack.control.CONTROLLERS);
    `overrides` and `text_set` as `auv_cosim.campaigns.sweep` takes them; `without`: instances
    of the scenario to fly every controller without as well (a ScenarioError names one that is
    not there, before anything runs)."""
    from auv_cosim.master import write_whole
    from auv_cosim.vehicles.h100.stack.control import CONTROLLERS

    controllers = list(CONTROLLERS) if controllers is None else list(controllers)

    name = Path(str(scenario)).stem
    out = Path(out_dir) if out_dir else Path("results") / "compare" / name
    flights = [("as is", scenario, out)] + [(f"without {inst}", _scenario_without(scenario, inst, out),
                                             out / f"without_{inst}") for inst in without]
    rows = []
    for flown, flown_scenario, folder in flights:
        # a flight without an instance leaves out the --set values of that instance
        gone = flown.partition("without ")[2]
        kept = {k: v for k, v in (overrides or {}).items() if not (gone and k.startswith(f"{gone}."))}
        rows += _flown(flown, flown_scenario, folder, controllers, control, name, stop_time=stop_time,
                       workers=workers, overrides=kept or None, progress=progress,
                       text_set={k for k in (text_set or ()) if k in kept} if text_set is not None else None)
    used = [(key, label) for key, label in COLUMNS if any(r.get(key) is not None for r in rows)]
    flown_column = ["flown"] if without else []
    table_text = io.StringIO(newline="")
    writer = csv.writer(table_text)
    writer.writerow(["controller", *flown_column, "status", *[key for key, _ in used], "reason"])
    for r in rows:
        writer.writerow([r["controller"], *([r["flown"]] if without else []), r["status"],
                         *["" if r.get(k) is None else r[k] for k, _ in used],
                         "" if r["status"] == "completed" else r["reason"]])
    write_whole(out / "comparison.csv", table_text.getvalue())
    lines = [f"# {name}: the controllers compared", "",
             "| controller | " + " | ".join(label for _, label in used) + " |",
             "|---|" + "---|" * len(used)]
    for r in rows:
        cells = [("n/a" if r.get(k) is None else f"{r[k]:.4g}") if r["status"] == "completed" else r["status"]
                 for k, _ in used]
        lines.append(f"| {r['label']} | " + " | ".join(cells) + " |")
    lines += [f"- {r['label']}: {r['status']}: {r['reason']}" for r in rows if r["status"] != "completed"]
    write_whole(out / "comparison.md", "\n".join(lines) + "\n")
    plot_tracks(rows, out / "tracks.png", name, control, vehicle)
    return rows


def _flown(flown: str, scenario, out: Path, controllers: list, control: str, name: str, **sweep_options) -> list[dict]:
    """The rows of one campaign over the controllers (``flown``: "as is" or "without NAME")."""
    from auv_cosim.campaigns import sweep

    suffix = "" if flown == "as is" else "_" + flown.replace(" ", "_")
    table = sweep(scenario, {f"{control}.Controller": list(controllers)}, out_dir=out, plots=False,
                  name=f"{name}{suffix}_controllers", **sweep_options)
    rows = []
    for run in table.rows:
        controller = run.get(f"{control}.Controller")
        row = {"controller": controller, "flown": flown, "status": run.get("status"),
               "label": controller if flown == "as is" else f"{controller} {flown}",
               "reason": run.get("reason") or "", "run_dir": out / run["run_dir"]}   # relative to OUT
        if row["status"] == "completed":
            row.update({key: _figure(run, key, control) for key, _ in COLUMNS})
        rows.append(row)
    return rows


def _scenario_without(scenario, instance: str, out: Path) -> Path:
    """A scenario file in ``out`` that is ``scenario`` without ``instance`` (and its
    connections): it includes the scenario's file and removes the instance. A ScenarioError
    when the scenario has no such instance."""
    from auv_cosim.master import ScenarioError, find_scenario, load_scenario, write_whole

    path = Path(find_scenario(scenario)).resolve()
    instances = load_scenario(path).model.instances or {}
    if instance not in instances:
        raise ScenarioError(str(path), "--without", f"no instance '{instance}' to fly without "
                            f"(the scenario's instances: {', '.join(sorted(instances))})")
    target = out / f"{path.stem}_without_{instance}.yaml"
    write_whole(target, f"# written by auv-cosim compare: {path.stem} without the instance {instance}\n"
                        f"description: {path.stem} without {instance}\n"
                        f"include: {json.dumps(str(path))}\n"
                        f"instances:\n  {instance}: null\n")
    return target


def _columns(results: Path):
    import numpy as np

    with open(results, newline="") as f:
        header = next(csv.reader(f))
    data = np.genfromtxt(results, delimiter=",", skip_header=1, ndmin=2)
    index = {n: i for i, n in enumerate(header)}
    return lambda n: data[:, index[n]] if n in index else None


def plot_tracks(rows, path: Path, name: str, control: str, vehicle: str) -> None:
    """Every completed run's track over the reference: north against east, depth against time."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    figure, (top, bottom) = plt.subplots(2, 1, figsize=(9, 10), gridspec_kw={"height_ratios": [2, 1]})
    reference_drawn = False
    for r in rows:
        if r["status"] != "completed":
            continue
        column = _columns(Path(r["run_dir"]) / "results.csv")
        t = column("time")
        n, e, z = (column(f"{vehicle}.Pos[{i}]") for i in (1, 2, 3))
        if n is None:
            continue
        rn, re_, rz = (column(f"{control}.RefPosition[{i}]") for i in (1, 2, 3))
        if not reference_drawn and rn is not None:
            top.plot(re_, rn, "k--", lw=1.0, label="reference")
            top.plot(re_[-1:], rn[-1:], "kx", ms=9, label="reference at the end")   # a held point shows
            bottom.plot(t, rz, "k--", lw=1.0, label="reference")
            reference_drawn = True
        top.plot(e, n, lw=1.0, label=r.get("label", r["controller"]))
        bottom.plot(t, z, lw=1.0, label=r.get("label", r["controller"]))
    top.set_xlabel("east [m]")
    top.set_ylabel("north [m]")
    top.set_aspect("equal", adjustable="datalim")
    top.set_title(f"{name}: tracks by controller")
    bottom.set_xlabel("time [s]")
    bottom.set_ylabel("depth [m]")
    bottom.invert_yaxis()
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize=8)
    figure.tight_layout()
    from auv_cosim.master import write_whole

    write_whole(path, lambda f: figure.savefig(f, format="png", dpi=110))
    plt.close(figure)


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``compare`` subcommand, added to the master's subparsers ``sub``."""
    c = sub.add_parser("compare", help=HELP, description=HELP + " (seed 004 M5; docs/h100_control.md).")
    c.add_argument("scenario", metavar="SCENARIO", help="an H100 scenario file or name (h100_hold, h100_depth_step ...)")
    c.add_argument("--controllers", help="comma-separated names (default: every controller of the H100's stack)")
    c.add_argument("--out", metavar="DIR", help="output folder (default results/compare/<scenario>); the same "
                                                "folder again resumes")
    c.add_argument("--stop-time", metavar="S", type=float, help="stop time of every run in seconds")
    c.add_argument("--workers", metavar="K", type=int, help="local worker processes (default: one per CPU)")
    c.add_argument("--set", metavar="INSTANCE.VARIABLE=VALUE", action="append", default=[],
                   help="a fixed override applied to every run; repeatable")
    c.add_argument("--without", metavar="INSTANCE", action="append", default=[],
                   help="fly every controller again without this instance of the scenario (and its "
                        "connections), e.g. --without tether; repeatable")
    c.add_argument("--control", default="control", help="the control stack's instance (default %(default)s)")
    c.add_argument("--vehicle", default="vehicle", help="the vehicle's instance (default %(default)s)")
    c.set_defaults(func=cmd_compare)
    return c


def cmd_compare(args) -> int:
    from auv_cosim.master import ScenarioError, display_path
    from auv_cosim.campaigns import parse_set_options

    controllers = None if args.controllers is None else [c.strip() for c in args.controllers.split(",") if c.strip()]
    out = Path(args.out) if args.out else Path("results") / "compare" / Path(args.scenario).stem
    try:
        overrides, text = parse_set_options(args.set)
        rows = compare(args.scenario, controllers, out_dir=out, stop_time=args.stop_time, workers=args.workers,
                       overrides=overrides or None, control=args.control, vehicle=args.vehicle, text_set=text,
                       without=args.without)
    except ScenarioError as error:
        print(f"error: comparison refused, nothing was run:\n{error}", file=sys.stderr)
        return 2
    print((out / "comparison.md").read_text())
    print(f"table: {display_path(out / 'comparison.csv')} (and .md), figure: {display_path(out / 'tracks.png')}, "
          f"runs: {display_path(out / 'runs')}")
    return 0 if all(r["status"] == "completed" for r in rows) else 1
