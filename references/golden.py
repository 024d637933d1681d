"""Golden baselines: small reference results of each scenario, kept in the repository, that a
fresh run must reproduce within a stated tolerance (tests/baselines/cases.yaml says which
scenarios, columns, rows and tolerance). Used by tests/test_golden_baselines.py and
tools/refresh_baselines.py; plain Python, the master run as users run it (a fresh process).
"""

from __future__ import annotations

import csv
import math
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parents[1]
BASELINE_DIR = REPO / "tests" / "baselines"
CASES_FILE = BASELINE_DIR / "cases.yaml"


@dataclass
class Case:
    name: str
    scenario: str
    stop_time: float | None
    columns: list[str]  # regular expressions
    rows: int

    @property
    def file(self) -> Path:
        return BASELINE_DIR / f"{self.name}.csv"


@dataclass
class Config:
    cases: dict[str, Case]
    rtol: float
    atol: float
    angles: str


def load_config(path: Path = CASES_FILE) -> Config:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    cases = {}
    for name, spec in (doc.get("cases") or {}).items():
        cases[name] = Case(name, spec["scenario"], spec.get("stop_time"), spec.get("columns", doc["columns"]),
                           int(spec.get("rows", doc["rows"])))
    tol = doc["tolerance"]
    return Config(cases, float(tol["rtol"]), float(tol["atol"]), doc.get("angles", r"$^"))


def run_case(case: Case, out_dir: Path, sets: dict[str, str] | None = None) -> Path:
    """Fly the case's scenario with ``auv-cosim run`` (no plots); returns results.csv."""
    cmd = [sys.executable, "-m", "auv_cosim", "run", case.scenario, "--no-plots", "--no-progress", "-q", "--out", str(out_dir)]
    if case.stop_time is not None:
        cmd += ["--stop-time", repr(float(case.stop_time))]
    for k, v in (sets or {}).items():
        cmd += ["--set", f"{k}={v}"]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return out_dir / "results.csv"


def read_csv(path: Path) -> tuple[list[str], np.ndarray]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        data = np.array([[float(x) for x in row] for row in reader if row], dtype=float)
    return header, data


def reduce(case: Case, header: list[str], data: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The case's columns (time first) at about ``case.rows`` rows evenly spread, last row kept."""
    keep = [0] + [i for i, h in enumerate(header) if i and any(re.search(p, h) for p in case.columns)]
    idx = np.unique(np.linspace(0, len(data) - 1, min(case.rows, len(data))).round().astype(int))
    return [header[i] for i in keep], data[np.ix_(idx, keep)]


def write_baseline(case: Case, header: list[str], data: np.ndarray) -> None:
    with open(case.file, "w", encoding="utf-8", newline="\n") as f:
        f.write(f"# golden baseline of '{case.scenario}'"
                + (f" to t = {case.stop_time:g} s" if case.stop_time is not None else "")
                + ": tools/refresh_baselines.py wrote it; tests/test_golden_baselines.py compares\n")
        f.write(",".join(header) + "\n")
        for row in data:
            f.write(",".join(f"{v:.10g}" for v in row) + "\n")


def read_baseline(case: Case) -> tuple[list[str], np.ndarray]:
    if not case.file.is_file():
        raise FileNotFoundError(f"{case.file}: no baseline (make it with: python tools/refresh_baselines.py {case.name})")
    lines = [ln for ln in case.file.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#")]
    header = lines[0].split(",")
    return header, np.array([[float(x) for x in ln.split(",")] for ln in lines[1:]], dtype=float)


@dataclass
class Difference:
    column: str
    time: float
    reference: float
    fresh: float
    allowed: float

    def __str__(self) -> str:
        return (f"{self.column} at t = {self.time:g} s: {self.fresh:.10g} against {self.reference:.10g} "
                f"(off by {abs(self.fresh - self.reference):.3g}, allowed {self.allowed:.3g})")


def compare(config: Config, case: Case, fresh_csv: Path) -> list[Difference]:
    """Every column of the baseline that the fresh run misses or leaves the tolerance in (the
    worst row of each); an empty list is a pass."""
    ref_header, ref = read_baseline(case)
    header, data = read_csv(fresh_csv)
    problems = []
    col = {h: i for i, h in enumerate(header)}
    missing = [h for h in ref_header if h not in col]
    for h in missing:
        problems.append(Difference(h, math.nan, math.nan, math.nan, 0.0))
    # the fresh rows at the baseline's times
    t = data[:, 0]
    rows = np.searchsorted(t, ref[:, 0] - 1e-9)
    rows = np.clip(rows, 0, len(t) - 1)
    if len(t) == 0 or np.any(np.abs(t[rows] - ref[:, 0]) > 1e-9):
        return [Difference("time", float(t[-1]) if len(t) else math.nan, float(ref[-1, 0]), math.nan, 1e-9)]
    for j, h in enumerate(ref_header):
        if h in missing:
            continue
        r, v = ref[:, j], data[rows, col[h]]
        d = v - r
        if re.search(config.angles, h):
            d = (d + math.pi) % (2 * math.pi) - math.pi
        allowed = config.atol + config.rtol * float(np.max(np.abs(r)))
        bad = np.abs(d) > allowed
        if np.any(bad) or not np.all(np.isfinite(v)):
            k = int(np.nanargmax(np.where(np.isfinite(d), np.abs(d), np.inf)))
            problems.append(Difference(h, float(ref[k, 0]), float(r[k]), float(v[k]), allowed))
    return problems
