"""The package as a user gets it: a wheel of the clone (`pip wheel .`), installed into a fresh venv
(from a wheelhouse of the project's venv, offline: tests/install/venvs.py), used in an empty
folder. `auv-cosim list` lists every scenario the clone lists; `auv-cosim run survey` builds the
three FMUs it needs into the per-user cache ($XDG_CACHE_HOME/auv-cosim/fmus-built/...), says so
with the folder, flies the survey and writes results/survey/ in the folder it was started in.

The run is made with AUV_NO_JIT=1: numba compiling the survey's kernels into the FMUs it builds
costs minutes, and what this test checks is the package and its data as installed, not the
compiled kernels (tests/integration/ fly the FMUs numba compiled)."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.install.venvs import ROOT, fresh_venv, pip_install, wheelhouse


def _clone_copy(target: Path) -> Path:
    """The clone's tracked files of the distribution (setuptools writes build/ beside them)."""
    listed = subprocess.run(["git", "ls-files", "pyproject.toml", "README.md", "auv_cosim"], cwd=ROOT,
                            capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the wheel is built from its tracked files")
    for name in listed.stdout.split():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_bytes((ROOT / name).read_bytes())
    return target


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the venv's auv-cosim, an empty folder, the environment): the wheel installed."""
    root = tmp_path_factory.mktemp("installed")
    source = _clone_copy(root / "source")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                            "-q", "-w", str(root / "dist")], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel, = (root / "dist").glob("auv_cosim-*.whl")
    python = fresh_venv(root / "venv")
    done = pip_install(python, "--no-index", "--no-compile", "--find-links", str(wheelhouse()), str(wheel))
    assert done.returncode == 0, done.stderr[-3000:]
    empty = root / "work"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(XDG_CACHE_HOME=str(root / "cache"), AUV_NO_JIT="1", HOME=str(root))
    return python.with_name("auv-cosim"), empty, env


def _run(command, cwd, env, timeout=900):
    return subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_the_installed_package_is_the_wheel_not_the_clone(installed):
    script, empty, env = installed
    where = _run([script.with_name("python"), "-c", "import auv_cosim; print(auv_cosim.__file__)"], empty, env)
    assert where.returncode == 0 and Path(where.stdout.strip()).is_relative_to(script.parent.parent), where


def test_list_shows_every_scenario_of_the_clone(installed):
    script, empty, env = installed
    listed = _run([script, "list"], empty, env)
    assert listed.returncode == 0, listed.stderr
    clone = _run([sys.executable, "-m", "auv_cosim", "list"], ROOT, dict(os.environ))
    names = lambda text: {line.split()[0] for line in text.splitlines() if line.strip()}  # noqa: E731
    assert names(clone.stdout) and names(listed.stdout) == names(clone.stdout)


def test_run_survey_builds_its_fmus_into_the_cache_and_writes_its_results_here(installed):
    script, empty, env = installed
    run = _run([script, "run", "survey", "--no-plots", "--no-progress"], empty, env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]
    cache = Path(env["XDG_CACHE_HOME"]) / "auv-cosim" / "fmus-built"
    folder, = cache.iterdir()
    assert folder.name.startswith("0.1.0-")
    assert f"auv-cosim: building Auv.fmu, AuvSensors.fmu, AuvControl.fmu into {folder}/" in run.stderr
    assert sorted(p.name for p in folder.glob("*.fmu")) == ["Auv.fmu", "AuvControl.fmu", "AuvSensors.fmu"]
    with open(empty / "results" / "survey" / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) > 1000 and float(rows[-1]["time"]) > 1000.0
    assert (empty / "results" / "survey" / "summary.json").is_file()
    again = _run([script, "run", "survey", "--no-plots", "--no-progress", "--stop-time", "5", "--out", "again"],
                 empty, env)
    assert again.returncode == 0 and "building" not in again.stderr, again.stderr[-2000:]
