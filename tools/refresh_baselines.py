"""Refresh the golden baselines deliberately: fly each case of tests/baselines/cases.yaml and
rewrite tests/baselines/<case>.csv, printing for each column how far the new values moved (the
baselines' reading, reduction and comparison: references/golden.py).

    .venv/bin/python tools/refresh_baselines.py              # every case
    .venv/bin/python tools/refresh_baselines.py zigzag battery
    git diff --stat tests/baselines/ && git diff tests/baselines/zigzag.csv

Run it after a change that is meant to change results (a physics fix, a new default), look at
what it prints and at the diff, and commit the baselines with the change that explains them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from references.golden import Config, compare, load_config, read_csv, reduce, run_case, write_baseline  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", metavar="CASE", help="cases to refresh (default: all)")
    args = p.parse_args(argv)
    config: Config = load_config()
    unknown = [c for c in args.cases if c not in config.cases]
    if unknown:
        print(f"unknown case(s) {', '.join(unknown)}; tests/baselines/cases.yaml has: {', '.join(config.cases)}",
              file=sys.stderr)
        return 2
    for name in args.cases or list(config.cases):
        case = config.cases[name]
        with tempfile.TemporaryDirectory(prefix=f"baseline-{name}-") as tmp:
            fresh = run_case(case, Path(tmp))
            if case.file.is_file():
                moved = compare(config, case, fresh)
                status = "unchanged" if not moved else f"{len(moved)} column(s) moved:"
            else:
                moved, status = [], "new"
            header, data = read_csv(fresh)
            header, data = reduce(case, header, data)
            write_baseline(case, header, data)
        print(f"{name}: {len(data)} rows x {len(header)} columns to t = {data[-1, 0]:g} s, "
              f"{case.file.stat().st_size / 1024:.1f} KB: {status}")
        for d in moved:
            print(f"  {d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
