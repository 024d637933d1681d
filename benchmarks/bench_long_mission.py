"""Benchmark of a long mission's memory: ``auv-cosim run depth_step --no-plots`` over a day and
over a week, each under GNU time (``/usr/bin/time -v``).

Prints, for each stop time, the run's peak resident memory as GNU time reports it (the largest
of the command's process and its children: the master, the CSV writer), the wall seconds, the
rows and the size of results.csv; then the week's peak against the day's and each against the
bar of docs/performance.md (within 10 % of each other, at most 300 MB). Exits 1 when a bar is
missed.

    .venv/bin/python benchmarks/bench_long_mission.py [--stop-times 86400 604800] [--keep DIR]

The results.csv of a week is about 4 GB: it is written into a temporary folder and removed
(``--keep DIR`` keeps the runs' folders there).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: docs/performance.md's bars
MAX_PEAK_MB = 300.0
MAX_SPREAD = 0.10


def peak_of(time_report: str) -> float:
    """GNU time -v's 'Maximum resident set size (kbytes)', in MB (10**6 bytes)."""
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", time_report)
    if not m:
        raise SystemExit(f"bench_long_mission: no peak memory in GNU time's report:\n{time_report}")
    return int(m.group(1)) * 1024 / 1e6


def fly(stop: float, out: Path) -> dict:
    cmd = ["/usr/bin/time", "-v", str(ROOT / ".venv" / "bin" / "auv-cosim"), "run", "depth_step",
           "--stop-time", f"{stop:g}", "--no-plots", "--quiet", "--no-progress", "--out", str(out)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"bench_long_mission: {' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
    summary = json.loads((out / "summary.json").read_text())
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", p.stderr).group(1)
    seconds = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
    return {"stop": stop, "peak_mb": peak_of(p.stderr), "wall_s": seconds, "rows": summary["rows"],
            "stepping_s": summary["stepping_time_s"], "csv_mb": (out / "results.csv").stat().st_size / 1e6}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stop-times", type=float, nargs="+", default=[86400.0, 604800.0])
    ap.add_argument("--keep", type=Path, help="keep the runs' folders here")
    a = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(dir=a.keep.parent if a.keep else None) as tmp:
        for stop in a.stop_times:
            out = (a.keep if a.keep else Path(tmp)) / f"depth_step_{stop:g}"
            r = fly(stop, out)
            rows.append(r)
            print(f"depth_step --stop-time {stop:>8g}: peak {r['peak_mb']:6.1f} MB, {r['rows']:>9,} rows, "
                  f"results.csv {r['csv_mb']:7.0f} MB, wall {r['wall_s']:6.1f} s (stepping {r['stepping_s']:.1f} s)",
                  flush=True)
            if not a.keep:
                (out / "results.csv").unlink()
    ok = True
    peaks = [r["peak_mb"] for r in rows]
    for r in rows:
        if r["peak_mb"] > MAX_PEAK_MB:
            ok = False
            print(f"MISSED: the peak at {r['stop']:g} s is above {MAX_PEAK_MB:g} MB")
    if len(peaks) > 1:
        spread = max(peaks) / min(peaks) - 1
        print(f"largest peak / smallest: {max(peaks) / min(peaks):.3f} (bar: within {MAX_SPREAD:.0%})")
        ok &= spread <= MAX_SPREAD
    print("OK" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
