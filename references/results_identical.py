"""Every scenario's results.csv, byte for byte, against the reference: the sha256 recorded in
tests/integration/results_sha256.json, or another tree's runs.

The hashes are the sha256 of each scenario's results.csv as `auv-cosim run NAME --no-plots`
writes it: "full" for the whole scenarios, "short" for the short runs of SHORT_RUNS that
tests/integration/test_results_identical.py flies. Each was recorded when its scenario came, and
again only by a change meant to change the results, which says so in its commit (git log
tests/integration/results_sha256.json has the history). A change that keeps the physics and the
recording unchanged keeps them. The results are reproducible bit for bit on one platform;
another CPU or libm may round a transcendental function differently, which would show here
first. The command: tools/check_results_identical.py.
"""
from __future__ import annotations

import filecmp
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Optional, Sequence

from auv_cosim.vehicles.h100.stack.control import CONTROLLERS

ROOT = Path(__file__).resolve().parent.parent
HASHES = ROOT / "tests" / "integration" / "results_sha256.json"


#: The short runs of the test: a minute of each scenario; the battery one with a small battery
#: so that it goes flat (and the run stops 30 s later) within it.
SHORT_RUNS = {name: ["--stop-time", "60"] for name in (
    "current", "depth_step", "disturbance", "free_drift", "survey", "turning_circle", "zigzag")}
SHORT_RUNS["battery"] = ["--stop-time", "120", "--set", "vehicle.Battery0=2000"]
#: ... and the H100's: a minute of station keeping with each controller (each has its own
#: compiled kernels, auv_cosim/vehicles/h100/stack/control_kernel.py), of the depth step and of the six-thruster
#: layout. A name "SCENARIO:VARIANT" runs SCENARIO.
SHORT_RUNS.update({f"h100_hold:{controller}": ["--stop-time", "60", "--set", f"control.Controller={controller}"]
                   for controller in CONTROLLERS})
SHORT_RUNS["h100_depth_step"] = ["--stop-time", "60"]
SHORT_RUNS["h100_six_thrusters"] = ["--stop-time", "60"]
#: ... and the H100 on its tether (MoorDyn's cable stepped by Tether.fmu)
SHORT_RUNS["h100_tether_hold"] = ["--stop-time", "60"]


def scenario_names() -> list:
    """Every scenario of the registered units (auv-cosim list), by name."""
    from auv_cosim.master import list_scenarios

    return sorted(path.stem for _, _, path in list_scenarios())


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_scenario(name: str, out: Path, extra: Sequence[str] = (), root: Path = ROOT) -> Path:
    """`auv-cosim run NAME --no-plots EXTRA --out OUT` in `root`; returns
    OUT/results.csv."""
    command = [sys.executable, "-m", "auv_cosim", "run", name, "--no-plots", "-q", *extra,
               "--out", str(out)]
    result = subprocess.run(command, cwd=root, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{name}: master run failed ({result.returncode}):\n"
                           f"{result.stdout}{result.stderr[-3000:]}")
    return out / "results.csv"


def check(names: Sequence[str], reference: Optional[Path] = None,
          hashes: Optional[Dict[str, str]] = None, keep: Optional[Path] = None,
          short: bool = False) -> Dict[str, dict]:
    """Run each scenario (the SHORT_RUNS version with `short`) and compare: with `reference`
    byte by byte against REFERENCE/NAME/results.csv, else its sha256 against `hashes`. Returns
    name -> {same, seconds, sha256}."""
    outcome = {}
    with tempfile.TemporaryDirectory(prefix="results-identical-") as temporary:
        base = keep or Path(temporary)
        for name in names:
            started = time.perf_counter()
            csv = run_scenario(name.split(":")[0], base / name.replace(":", "-"), SHORT_RUNS[name] if short else ())
            digest = sha256_of(csv)
            if reference is not None:
                same = filecmp.cmp(csv, reference / name / "results.csv", shallow=False)
            else:
                same = hashes is not None and hashes.get(name) == digest
            outcome[name] = {"same": same, "seconds": time.perf_counter() - started,
                             "sha256": digest}
    return outcome
