#!/usr/bin/env python3
"""Fly scenarios and compare their summary.json figures with those of another checkout (or
record them), so that a change to how the summary is computed can show it gives every figure
as before, to the last printed digit.

    .venv/bin/python tools/check_summaries.py --record DIR                 # every scenario, 60 s
    .venv/bin/python tools/check_summaries.py --against DIR                # the same, compared
    .venv/bin/python tools/check_summaries.py --record DIR --full depth_step:86400   # one whole run
    .venv/bin/python tools/check_summaries.py --against DIR survey zigzag  # some

Each run is ``auv-cosim run NAME --no-plots`` with the arguments of
``references.results_identical.SHORT_RUNS`` (60 s of every other scenario; ``--full NAME:STOP``
flies NAME to STOP s instead). What is compared is summary.json without the keys that measure
the machine or name the folder (``VOLATILE``). Prints one line per run (OK / DIFFERENT with
the keys that differ) and exits 1 unless every one is OK.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from references.results_identical import SHORT_RUNS, scenario_names  # noqa: E402

#: keys of summary.json that measure the machine or the moment, or name the output folder
VOLATILE = ("started", "startup_time_s", "stepping_time_s", "real_time_factor", "wall_time_s", "files")


def runs(full: list[str]) -> dict[str, list[str]]:
    """name -> the arguments of `auv-cosim run` after the scenario."""
    if full:
        out = {}
        for item in full:
            name, _, stop = item.partition(":")
            out[f"{name}@{stop}"] = [name, "--stop-time", stop] if stop else [name]
        return out
    out = {}
    for name in scenario_names():
        if name.startswith("ident_"):
            continue
        args = SHORT_RUNS.get(name, ["--stop-time", "60"])
        out[name] = [name, *args]
    for key, args in SHORT_RUNS.items():
        if ":" in key:
            out[key] = [key.split(":")[0], *args]
    return out


def figures(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in VOLATILE}


def fly(args: list[str], out: Path) -> dict:
    cmd = [str(ROOT / ".venv" / "bin" / "auv-cosim"), "run", *args, "--no-plots", "--quiet", "--out", str(out)]
    subprocess.run(cmd, cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
    return json.loads((out / "summary.json").read_text())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--record", metavar="DIR", type=Path)
    g.add_argument("--against", metavar="DIR", type=Path)
    ap.add_argument("--full", action="append", default=[], metavar="NAME[:STOP]")
    ap.add_argument("names", nargs="*", help="only these runs (default: all)")
    a = ap.parse_args(argv)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for key, args in runs(a.full).items():
            if a.names and key not in a.names and key.split(":")[0] not in a.names:
                continue
            got = figures(fly(args, Path(tmp) / key.replace(":", "_")))
            ref_file = (a.record or a.against) / f"{key.replace(':', '_')}.json"
            if a.record:
                ref_file.parent.mkdir(parents=True, exist_ok=True)
                ref_file.write_text(json.dumps(got, indent=1) + "\n")
                print(f"{key:28s} recorded")
                continue
            ref = json.loads(ref_file.read_text())
            diff = sorted(k for k in set(ref) | set(got) if ref.get(k) != got.get(k))
            bad += bool(diff)
            print(f"{key:28s} {'DIFFERENT: ' + ', '.join(diff) if diff else 'OK'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
