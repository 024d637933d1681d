"""Benchmark of the formatting of results.csv: microseconds of CPU per row.

Formats the rows of a survey run (``/work/baseline/survey/results.csv`` when it is there, else
a fresh ``auv-cosim run survey --no-plots``; or the results.csv given with ``--csv``, e.g.
an H100 run's 91 columns), in blocks of 256 rows as the master hands them over, three ways,
interleaved, the best of the repeats kept (the machine is shared):

  percent   one ``%``-format per row (``"%r"`` per Real, ``"%d"`` per Integer or Boolean), the
            way before ``csv_writer.format_block``: in the writer process, from the block's flat
            list of values cut into rows (``writer``), and in the master's process, from the
            block's ``tolist()`` (``inline``);
  columns   ``repr`` a column at a time (``csv_writer._format_with_repr``), what format_block
            does without ujson or for a block with a NaN or an infinity;
  ujson     ``auv_cosim.master.csv_writer.format_block`` over the block's flat list of values, what both
            use now (one ``ujson.dumps`` of the block's rows);

and checks that every way gives the file's text byte for byte.

    .venv/bin/python benchmarks/bench_recorder.py [--repeats 5] [--csv results/h100_hold/results.csv]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from auv_cosim.master import csv_writer  # noqa: E402

BASELINE = Path("/work/baseline/survey/results.csv")
INTEGER_COLUMNS = ("sensors.AltitudeValid", "control.WaypointIndex", "control.MissionFinished")
BLOCK_ROWS = 256


def survey_csv() -> Path:
    if BASELINE.exists():
        return BASELINE
    out = Path(tempfile.mkdtemp(prefix="bench-recorder-"))
    subprocess.run([sys.executable, "-m", "auv_cosim", "run", "survey", "--no-plots", "--no-progress", "-q",
                    "--out", str(out)], cwd=ROOT, check=True)
    return out / "results.csv"


def percent_format(integer: list[bool], rows) -> str:
    fmt = ",".join("%d" if i else "%r" for i in integer) + "\n"
    return "".join([fmt % tuple(row) for row in rows])


def rows_of(values: list, ncols: int) -> list:
    return [values[i:i + ncols] for i in range(0, len(values), ncols)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--csv", type=Path, help="another run's results.csv (default: the survey's)")
    args = parser.parse_args()
    path = args.csv or survey_csv()
    lines = path.read_text().splitlines(True)
    names = lines[0].strip().split(",")
    data = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    # whole-number columns: the survey's, or in another file those whose texts are all digits
    texts = list(zip(*(line.strip().split(",") for line in lines[1:])))
    integer = [name in INTEGER_COLUMNS if args.csv is None else all(t.lstrip("-").isdigit() for t in column)
               for name, column in zip(names, texts)]
    kinds = csv_writer.column_kinds(integer)
    blocks = [data[i:i + BLOCK_ROWS] for i in range(0, len(data), BLOCK_ROWS)]
    expected = "".join(lines[1:])

    flat = [b.ravel().tolist() for b in blocks]   # what the writer process reads
    ncols = len(names)
    cases = {
        "percent, writer": lambda: "".join(percent_format(integer, rows_of(v, ncols)) for v in flat),
        "percent, inline": lambda: "".join(percent_format(integer, b.tolist()) for b in blocks),
        "columns, writer": lambda: "".join(csv_writer._format_with_repr(kinds, v) for v in flat),
        "columns, inline": lambda: "".join(csv_writer._format_with_repr(kinds, b.ravel().tolist()) for b in blocks),
        "ujson, writer": lambda: "".join(csv_writer.format_block(kinds, v) for v in flat),
        "ujson, inline": lambda: "".join(csv_writer.format_block(kinds, b.ravel().tolist()) for b in blocks),
    }
    if csv_writer._ujson is None:
        sys.exit("bench_recorder: ujson is missing or does not write repr's text (pip install ujson)")
    best = {name: float("inf") for name in cases}
    for _ in range(args.repeats):
        for name, case in cases.items():
            t0 = time.process_time()
            text = case()
            best[name] = min(best[name], time.process_time() - t0)
            if text != expected:
                sys.exit(f"bench_recorder: {name} does not give {path} byte for byte")
    rows = len(data)
    print(f"bench_recorder: {rows} rows x {len(names)} columns of {path}, blocks of {BLOCK_ROWS}, "
          f"best of {args.repeats} interleaved repeats (CPU time)")
    for name, seconds in best.items():
        before = best["percent, " + name.split(", ")[1]]
        print(f"  {name:16s} {seconds * 1e6 / rows:6.2f} us a row   {seconds:6.3f} s for the run   "
              f"{seconds / before:5.2f} x percent")
    print("  every way byte-identical to the file: yes")


if __name__ == "__main__":
    main()
