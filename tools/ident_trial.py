"""Write a trial log for identification: a vehicle's FMU with perturbed true parameters flown
open loop through fmpy on a schedule of its own, noise added (references/ident_trial.py says
which schedule, truth and noise), results.csv and truth.json in the folder --out.

    .venv/bin/python tools/ident_trial.py h100 --out results/trial_h100            # 180 s, seed 1
    .venv/bin/python tools/ident_trial.py h100 --duration 60 --seed 3 --out /tmp/t
    .venv/bin/python tools/ident_trial.py auv --out results/trial_auv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from references.ident_trial import make_trial  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("vehicle", choices=("h100", "auv"))
    p.add_argument("--out", required=True, help="folder for results.csv and truth.json")
    p.add_argument("--duration", type=float, default=180.0, help="s (default 180)")
    p.add_argument("--seed", type=int, default=1, help="of the noise (default 1)")
    p.add_argument("--noise-scale", type=float, default=1.0, help="times the noise levels (0: none)")
    args = p.parse_args()
    log = make_trial(args.vehicle, Path(args.out), args.duration, args.seed, args.noise_scale)
    print(log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
