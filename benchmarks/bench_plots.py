"""Benchmark of the AUV plots' own work: the CPU seconds of filling and writing the five PNG plots
of a run (auv_cosim/vehicles/auv/host/plots.py ``_fill``: lines, limits, legends, layout, drawing, PNG), the
figures built first (as the plot process builds them while the run steps), warm, in one process,
one figure after the other. This is what is left after the last step when the plot process is
ready; the whole command is ``benchmarks/bench_run.py``.

    .venv/bin/python benchmarks/bench_plots.py [--scenario survey] [--rounds 6] [--repeats 3] [--before DIR]

The scenario is run once without plots (its rows kept); each round then builds and fills the
figures ``--repeats`` times in a fresh interpreter and keeps the median. With ``--before DIR``
(another checkout, e.g. ``git archive COMMIT | tar -x -C DIR``) every round also runs DIR's
plots on the same rows, alternated with this checkout's, and checks their PNG files are the same
byte for byte. Prints each round's medians, and the best and the median of the rounds: the
2-core machine is shared and its load moves.
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(rows: str, scenario: str, repeats: int, out: str) -> None:
    """In a fresh interpreter (the checkout to measure first on sys.path): the figures of the
    run built and filled ``repeats`` times; prints the CPU seconds as JSON."""
    from auv_cosim import master
    from auv_cosim.master.runner import find_scenario
    from auv_cosim.vehicles.auv.host import plots as ap

    data, colmap = pickle.loads(Path(rows).read_bytes())
    plan = master.build_plan(master.load_scenario(find_scenario(scenario)))
    run = master.RunData(plan, data, colmap)
    ap._mpl()
    ap._warm_up()
    figures: dict[str, list[float]] = {}
    totals = []
    for _ in range(repeats):
        names, built = ap._build(run, lambda name: True)
        d = ap._decimated(run)
        total = 0.0
        for item in built:
            start = time.process_time()
            ap._fill([item], d, Path(out))
            spent = time.process_time() - start
            figures.setdefault(item[0], []).append(spent)
            total += spent
        totals.append(total)
    print(json.dumps({"total": statistics.median(totals),
                      "figures": {n: statistics.median(v) for n, v in figures.items()}}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default="survey")
    parser.add_argument("--rounds", type=int, default=6, help="alternated rounds (default 6)")
    parser.add_argument("--repeats", type=int, default=3, help="figures built and filled a round (default 3)")
    parser.add_argument("--before", help="another checkout of the project to run side by side")
    parser.add_argument("--child", nargs=3, metavar=("ROWS", "SCENARIO", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.repeats, args.child[2])
        return

    sys.path.insert(0, str(ROOT))
    from auv_cosim import master

    folder = Path(tempfile.mkdtemp(prefix="bench-plots-"))
    r = master.run(args.scenario, out_dir=folder / "run", progress=False, echo_messages=False, plots=False)
    rows = folder / "rows.pickle"
    rows.write_bytes(pickle.dumps((r.data, r.colmap), protocol=pickle.HIGHEST_PROTOCOL))
    trees = {"now": ROOT}
    if args.before:
        trees["before"] = Path(args.before).resolve()
    print(f"bench_plots: the five plots of {args.scenario} ({len(r.data)} rows) filled and written, warm, one "
          f"process; median of {args.repeats} a round, {args.rounds} alternated rounds; load average "
          f"{os.getloadavg()[0]:.2f} before")
    results: dict[str, list[dict]] = {k: [] for k in trees}
    for _ in range(args.rounds):
        for key, tree in trees.items():
            out = folder / key
            out.mkdir(exist_ok=True)
            env = dict(os.environ, PYTHONPATH=str(tree))
            proc = subprocess.run([sys.executable, __file__, "--repeats", str(args.repeats), "--child", str(rows),
                                   args.scenario, str(out)], cwd=str(tree), env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"bench_plots: {key} failed:\n{proc.stderr}")
            results[key].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    for key, rounds in results.items():
        totals = [x["total"] for x in rounds]
        names = list(rounds[0]["figures"])
        per = "  ".join(f"{n.split('.')[0]} {statistics.median(x['figures'][n] for x in rounds):.3f}" for n in names)
        print(f"{key:7s} CPU s, five plots: rounds {' '.join(f'{t:.3f}' for t in totals)}; best {min(totals):.3f}, "
              f"median {statistics.median(totals):.3f} | {per}")
    if args.before:
        print(f"now / before (median of the rounds): "
              f"{statistics.median(x['total'] for x in results['now']) / statistics.median(x['total'] for x in results['before']):.2f}")
        different = [p.name for p in sorted((folder / "now").glob("*.png"))
                     if p.read_bytes() != (folder / "before" / p.name).read_bytes()]
        print(f"PNG files byte-identical to before's: {'yes' if not different else 'NO: ' + ', '.join(different)}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
