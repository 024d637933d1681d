#!/usr/bin/env python3
"""Fly every scenario and check that its results.csv is byte-identical to the reference
(references/results_identical.py: the runs, the short runs, the recorded hashes).

    .venv/bin/python tools/check_results_identical.py                 # all, against the hashes
    .venv/bin/python tools/check_results_identical.py zigzag survey   # some
    .venv/bin/python tools/check_results_identical.py --reference /work/baseline   # cmp files
    .venv/bin/python tools/check_results_identical.py --short         # short runs (the test's)
    .venv/bin/python tools/check_results_identical.py --record        # rewrite the hashes

`--record` is for a change that is MEANT to change the results, and says so in its commit.

Prints one line per scenario (name, OK / DIFFERENT / NO HASH, seconds) and exits 1 unless
every one is OK.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from references.results_identical import HASHES, SHORT_RUNS, check, scenario_names  # noqa: E402


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="scenarios (default: every registered unit's, auv-cosim list)")
    parser.add_argument("--reference", type=Path,
                        help="folder of reference runs (REFERENCE/NAME/results.csv) to cmp against")
    parser.add_argument("--record", action="store_true",
                        help=f"write the hashes of these runs to {HASHES.relative_to(ROOT)}")
    parser.add_argument("--keep", type=Path, help="keep the runs in this folder")
    parser.add_argument("--short", action="store_true", help="the short runs of the test")
    args = parser.parse_args(argv)
    names = args.names or (sorted(SHORT_RUNS) if args.short else scenario_names())
    recorded = json.loads(HASHES.read_text()) if HASHES.exists() else {}
    kind = "short" if args.short else "full"
    hashes = recorded.setdefault(kind, {})
    outcome = check(names, reference=args.reference, hashes=hashes, keep=args.keep,
                    short=args.short)
    for name, result in outcome.items():
        verdict = ("recorded" if args.record else "OK" if result["same"]
                   else "DIFFERENT" if args.reference is not None or name in hashes else "NO HASH")
        print(f"{name:18s} {verdict:9s} {result['seconds']:6.1f} s  {result['sha256']}")
    if args.record:
        hashes.update({name: result["sha256"] for name, result in outcome.items()})
        recorded[kind] = dict(sorted(hashes.items()))
        HASHES.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
        return 0
    return 0 if all(result["same"] for result in outcome.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
