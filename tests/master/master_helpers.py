"""Helpers of the master tests: run the CLI in a fresh process (as users do), read what it
wrote. The real FMUs in fmus/ are used; `./build.sh test` builds them first.

(tests/master has no __init__.py on purpose: as a package it would be imported under the name
`master` and shadow the real master package.)"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path


REPO = Path(__file__).resolve().parents[2]
FMUS = [REPO / "fmus" / f"{n}.fmu" for n in ("Auv", "AuvSensors", "AuvControl")]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Run:
    def __init__(self, proc: subprocess.CompletedProcess, out: Path, wall: float):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out = out
        self.wall = wall

    @property
    def summary(self) -> dict:
        return json.loads((self.out / "summary.json").read_text())

    @property
    def csv_path(self) -> Path:
        return self.out / "results.csv"

    def table(self) -> tuple[list[str], list[list[str]]]:
        with open(self.csv_path, newline="") as f:
            rows = list(csv.reader(f))
        return rows[0], rows[1:]

    def column(self, name: str) -> list[float]:
        header, rows = self.table()
        i = header.index(name)
        return [float(r[i]) for r in rows]

    def __repr__(self):
        return f"<Run rc={self.rc}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr[-3000:]}>"


def master(*args: str, out: Path | None = None, cwd: Path = REPO, timeout: float = 300) -> Run:
    """`python -m master ARGS [--out OUT]` in a fresh interpreter."""
    cmd = [sys.executable, "-m", "master", *args]
    if out is not None:
        cmd += ["--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)
    return Run(proc, out, time.perf_counter() - t0)


def popen_master(*args: str, out: Path, cwd: Path = REPO) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "master", *args, "--out", str(out)]
    return subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
