"""A vehicle of another distribution (examples/drifter: its own pyproject.toml, one entry point in
auv_cosim.units) installed beside auv-cosim: `auv-cosim list` shows its scenario, `auv-cosim
build` builds its two FMUs, which pass fmpy's validator, and its scenario flies and holds the
depth it asks for. No file of auv-cosim names it.

It is installed into a venv of its own that sees the project's (tests/install/venvs.py): the
project's venv is shared with the tests running beside this one, which must not see a third unit."""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys

import pytest

from tests.install.venvs import ROOT, overlay_venv, pip_install

EXAMPLE = ROOT / "examples" / "drifter"


@pytest.fixture(scope="module")
def plugged(tmp_path_factory):
    """(the venv's python, an empty folder, the environment): the drifter installed."""
    root = tmp_path_factory.mktemp("plugin")
    source = root / "drifter"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    python = overlay_venv(root / "venv")
    done = pip_install(python, "--no-deps", "--no-build-isolation", "--no-index", str(source))
    assert done.returncode == 0, done.stderr[-3000:]
    work = root / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return python, work, env


def _auv_cosim(plugged, *arguments, timeout=600):
    python, work, env = plugged
    return subprocess.run([str(python), "-m", "auv_cosim", *arguments], cwd=work, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_its_scenario_is_listed(plugged):
    listed = _auv_cosim(plugged, "list")
    assert listed.returncode == 0, listed.stderr
    assert any(line.split()[0] == "drifter_demo" for line in listed.stdout.splitlines() if line.strip())


def test_its_fmus_build_validate_and_its_scenario_flies(plugged):
    from fmpy.validation import validate_fmu

    _, work, _ = plugged
    built = _auv_cosim(plugged, "build", "Drifter", "DrifterControl", "--out", "fmus")
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    for name in ("Drifter", "DrifterControl"):
        assert validate_fmu(str(work / "fmus" / f"{name}.fmu")) == [], name
    run = _auv_cosim(plugged, "run", "drifter_demo", "--no-plots", "--no-progress")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    with open(work / "results" / "drifter_demo" / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert float(rows[-1]["time"]) == 600.0
    assert abs(float(rows[-1]["vehicle.Depth"]) - 20.0) < 1.0          # the depth it holds
    assert float(rows[-1]["vehicle.Pos[1]"]) > 40.0                    # carried by the 0.1 m/s current


def test_no_file_of_auv_cosim_names_it():
    tracked = subprocess.run(["git", "ls-files", "auv_cosim", "pyproject.toml", "tools", "build.sh"], cwd=ROOT,
                             capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    naming = [name for name in tracked.stdout.split()
              if (ROOT / name).is_file() and b"drifter" in (ROOT / name).read_bytes().lower()]
    assert naming == []
