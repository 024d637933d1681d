"""The identification tests' trials and command lines, each in a fresh process as users run
them: a scenario flown by the master with the true vehicle's parameters set (`--set
vehicle.NAME=VALUE`), and `auv-cosim identify`."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def python(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """`python ARGS` in the checkout, its packages importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


def fly(scenario: str, out: Path, stop_time: float, truth: dict[str, float]) -> Path:
    """Fly `scenario` up to `stop_time` with the vehicle's parameters `truth`; its results.csv."""
    sets = [a for k, v in truth.items() for a in ("--set", f"vehicle.{k}={v!r}")]
    r = python("-m", "auv_cosim", "run", scenario, "--stop-time", str(stop_time), "--no-plots", "--no-progress",
               "-q", *sets, "--out", str(out))
    assert r.returncode == 0, r.stderr[-3000:]
    return out / "results.csv"
