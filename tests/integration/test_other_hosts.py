"""Auv.fmu and the survey stack in other co-simulation hosts, against the master.

libcosim (libcosimpy, the Open Simulation Platform's engine) and Ecos (ecospy's Python API and
its `ecos` command line, a C++ process without Python) run Auv.fmu alone and the survey stack
exported by `auv-cosim export-ssp`. Both engines step every FMU from the same
communication point and exchange values afterwards (Jacobi), so the master runs the same system
with `algorithm: jacobi`; the vehicle's position must agree to 1e-9 m at every checkpoint (the
Ecos command line writes its CSV with 6 decimals: there to 1e-6 m). Every host runs in its own
process (tests/hosts/host_runs.py), a few times, and must exit with status 0: the processes
that crashed at exit with pythonfmu's binary. The 20- and 50-run proofs are
tools/prove_hosts.py.

The hosts are the `hosts` extra of pyproject.toml (build.sh installs it; Ecos also needs the
TBB runtime, libtbb12, which build.sh installs with apt-get when it can). A host that cannot be
imported skips its tests with the reason.
"""
from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap
from functools import lru_cache
from pathlib import Path

import pytest

from tests.wrapper_kind import has_native_wrapper
from auv_cosim.master import find_scenario

ROOT = Path(__file__).resolve().parents[2]
AUV = ROOT / "fmus" / "Auv.fmu"
HOST_RUNS = ROOT / "tests" / "hosts" / "host_runs.py"
STEP = 0.1
CRUISE = {"ThrustPower": 30.0, "Pos0[3]": 10.0, "AverageDensity": 1025.0, "LocalVel0[1]": 1.3}
POSITION = ["vehicle.Pos[1]", "vehicle.Pos[2]", "vehicle.Pos[3]"]
SURVEY_STOP, ALONE_STOP = 30.0, 10.0


@lru_cache(maxsize=None)
def host_problem(module: str) -> str | None:
    """Why `module` cannot be used here (None: it can), found in a separate process."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    if done.returncode == 0:
        return None
    last = (done.stderr.strip().splitlines() or ["?"])[-1]
    return (f"{module} is not usable here ({last}); it is in the 'hosts' extra of pyproject.toml, "
            f"which ./build.sh installs (Ecos also needs libtbb12)")


def need(module: str) -> None:
    problem = host_problem(module)
    if problem:
        pytest.skip(problem)


# pythonfmu's stock binary (kept when no C compiler was found) crashes hosts now and then at exit,
# after their work is done (README, "Without a C compiler"): with it, a run that printed its
# results and then died of SIGABRT / SIGSEGV is accepted; with the project's wrapper, never.
EXIT_CRASHES_OF_THE_STOCK_BINARY = (-6, -11, 134, 139)


def run_host(host: str, source: Path, stop: float, every: int, *extra: str) -> dict:
    """One run of `host` in its own process; asserts that the process exited with 0."""
    done = subprocess.run([sys.executable, str(HOST_RUNS), host, str(source), "--stop", repr(stop),
                           "--step", repr(STEP), "--every", str(every), *extra],
                          capture_output=True, text=True, timeout=900)
    tolerated = () if has_native_wrapper(AUV) else EXIT_CRASHES_OF_THE_STOCK_BINARY
    assert done.returncode == 0 or (done.returncode in tolerated and done.stdout.strip()), \
        f"{host} exited with {done.returncode}:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def master_run(scenario: Path, out: Path) -> list[dict]:
    """results.csv of `auv-cosim run`, as a list of rows (row k: after step k)."""
    done = subprocess.run([sys.executable, "-m", "auv_cosim", "run", str(scenario), "--no-plots", "-q",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out / "results.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def largest_difference(host: dict, rows: list[dict]) -> float:
    worst = 0.0
    for i, k in enumerate(host["steps"]):
        for name in POSITION:
            worst = max(worst, abs(host["values"][name][i] - float(rows[k][name])))
    return worst


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    """(the survey exported as SSP with Jacobi stepping, the master's rows of that SSP)."""
    folder = tmp_path_factory.mktemp("survey")
    scenario = folder / "survey_jacobi.yaml"
    scenario.write_text(textwrap.dedent(f"""\
        include: {find_scenario('survey')}
        name: survey_jacobi
        algorithm: jacobi
        stop_time: {SURVEY_STOP}
        """))
    ssp = folder / "survey_jacobi.ssp"
    done = subprocess.run([sys.executable, "-m", "auv_cosim", "export-ssp", str(scenario), str(ssp)],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return ssp, master_run(ssp, folder / "master")


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The master's rows of Auv.fmu alone: cruising (CRUISE), and at its default values."""
    folder = tmp_path_factory.mktemp("alone")
    rows = {}
    for label, parameters in (("cruise", CRUISE), ("defaults", {})):
        scenario = folder / f"{label}.yaml"
        scenario.write_text(json.dumps({"name": f"auv_{label}", "stop_time": ALONE_STOP, "step": STEP,
                                        "instances": {"vehicle": {"fmu": str(AUV), "parameters": parameters}}}))
        rows[label] = master_run(scenario, folder / label)
    return rows


def _set(values):
    return [f"--set={k}={v!r}" for k, v in values.items()]


# ------------------------------------------------------------------------------ libcosim
def test_libcosim_runs_auv_alone_as_the_master(alone):
    need("libcosimpy")
    result = run_host("libcosim", AUV, ALONE_STOP, 10, *_set(CRUISE))
    assert largest_difference(result, alone["cruise"]) <= 1e-9


def test_libcosim_runs_the_survey_ssp_as_the_jacobi_master(survey):
    need("libcosimpy")
    ssp, rows = survey
    for _ in range(2):
        result = run_host("libcosim", ssp, SURVEY_STOP, 50)
        assert largest_difference(result, rows) <= 1e-9
    assert abs(float(rows[-1]["vehicle.Pos[3]"]) - float(rows[0]["vehicle.Pos[3]"])) > 1.0  # it dived


# ------------------------------------------------------------------------------ Ecos, Python API
def test_ecos_api_runs_auv_alone_as_the_master(alone):
    need("ecospy")
    result = run_host("ecos-api", AUV, ALONE_STOP, 10, *_set(CRUISE))
    assert largest_difference(result, alone["cruise"]) <= 1e-9


def test_ecos_api_runs_the_survey_ssp_as_the_jacobi_master(survey):
    need("ecospy")
    ssp, rows = survey
    for _ in range(2):
        result = run_host("ecos-api", ssp, SURVEY_STOP, 50, "--parameter-set", "survey_jacobi")
        assert largest_difference(result, rows) <= 1e-9


def test_ecos_applies_ssp_parameters_only_from_a_named_set(survey):
    need("ecospy")
    ssp, rows = survey
    result = run_host("ecos-api", ssp, 10.0, 100)            # no parameter set named
    assert result["values"]["vehicle.Pos[1]"][0] - float(rows[100]["vehicle.Pos[1]"]) > 1.0


# ------------------------------------------------------------------------------ Ecos, command line
def _need_ecos_cli():
    need("ecospy")
    if not has_native_wrapper(AUV):
        pytest.skip("fmus/Auv.fmu carries pythonfmu's stock binary (no C compiler at build time): "
                    "the ecos command line would need LD_PRELOAD and crash at exit")


def test_ecos_cli_runs_auv_alone_without_ld_preload(alone):
    _need_ecos_cli()
    for _ in range(2):
        result = run_host("ecos-cli", AUV, ALONE_STOP, 10)
        assert largest_difference(result, alone["defaults"]) <= 1e-6   # its CSV: 6 decimals


def test_ecos_cli_runs_the_survey_ssp_without_ld_preload(survey):
    _need_ecos_cli()
    ssp, rows = survey
    for _ in range(2):
        result = run_host("ecos-cli", ssp, SURVEY_STOP, 50, "--parameter-set", "survey_jacobi")
        assert largest_difference(result, rows) <= 1e-6
