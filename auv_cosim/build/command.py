"""``auv-cosim build [NAME ...] [--all] [--out DIR]``: the units' FMUs built where a user wants
them (other co-simulation hosts need the ``.fmu`` files), from a clone or an installed package."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

DESCRIPTION = ("Build FMUs of the registered units (auv-cosim list shows their scenarios; --list the FMUs) "
               "with pythonfmu, complete and validate them, and write each as DIR/<Name>.fmu. Only what "
               "changed is rebuilt. Default DIR: fmus/ in a clone, else the per-user cache the runs use. "
               "Exit status 1 when an FMU fails to build, 2 for an unknown name.")


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``build`` subcommand, added to the command's subparsers ``sub``."""
    b = sub.add_parser("build", help="build FMUs of the units (every one with --all) into a folder",
                       description=DESCRIPTION)
    b.add_argument("names", metavar="NAME", nargs="*", help="FMUs to build, e.g. Auv AuvSensors")
    b.add_argument("--all", action="store_true", help="every FMU of every registered unit")
    b.add_argument("--out", metavar="DIR", help="where to write them (created when missing)")
    b.add_argument("--list", action="store_true", help="print the names of the FMUs it can build, and stop")
    b.add_argument("--force", action="store_true", help="rebuild even when up to date")
    b.add_argument("--jobs", metavar="N", type=int, help="FMUs built at a time (default: one per core, at most 2)")
    b.set_defaults(func=cmd_build)
    return b


def cmd_build(args) -> int:
    from auv_cosim import units

    from .driver import build_all
    from .specs import registered_specs

    specs = {spec.name: spec for spec in registered_specs()}
    if args.list:
        print("\n".join(specs))
        return 0
    unknown = [name for name in args.names if name not in specs]
    if unknown or not (args.names or args.all):
        why = f"unknown FMU {', '.join(unknown)}" if unknown else "name the FMUs to build, or give --all"
        print(f"error: NAME: {why} (known: {', '.join(specs)})", file=sys.stderr)
        return 2
    out = Path(args.out).expanduser().resolve() if args.out else units.fmu_folder()
    if out.exists() and not out.is_dir():
        print(f"error: --out: {out}: not a folder", file=sys.stderr)
        return 2
    chosen = list(specs.values()) if args.all else [specs[name] for name in dict.fromkeys(args.names)]
    print(f"auv-cosim: building {len(chosen)} FMU(s) into {out}", file=sys.stderr, flush=True)
    return 1 if build_all(chosen, out, force=args.force, jobs=args.jobs) else 0


def build_into(names, out: Path, quiet: bool = True) -> int:
    """Build the FMUs ``names`` into ``out`` (what ``auv-cosim run`` calls for those a scenario
    needs and that are missing); its lines go to stderr. Returns the number of failures."""
    import contextlib

    from .driver import build_all
    from .specs import registered_specs

    specs = {spec.name: spec for spec in registered_specs()}
    try:
        child_stdout = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):   # a stderr that is no file (captured)
        child_stdout = None
    with contextlib.redirect_stdout(sys.stderr):
        return build_all([specs[n] for n in names], out, quiet=quiet, child_stdout=child_stdout)
