"""FMUs that travel: each FMU copied to a fresh folder runs in a bare venv that holds only its
`resources/requirements.txt` and fmpy (no project installed, no environment variable, a working
directory outside the checkout), and gives the trajectory it gives in the project's venv; a C
host without Python finds that venv's interpreter on PATH once the interpreter recorded at build
is gone; a missing requirement fails fmi2Instantiate naming the package and the pip line.

The bare venv is made here: an empty venv (python -m venv, no pip) into which the project's pip
installs the requirements offline from the wheels of the project's own venv
(tests/install/venvs.py), as a user's pip installs them from an index."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.harness import build
from tests.wrapper_kind import has_native_wrapper, native_wrapper

ROOT = Path(__file__).resolve().parents[2]
FMUS = ("Auv", "AuvSensors", "AuvControl", "H100Sensors", "H100", "H100Control", "H100_6", "H100Control_6",
        "Tether")
HOST_SOURCE = ROOT / "tests" / "hosts" / "fmi2_host.c"

#: run by a venv's python on one FMU (argv: fmu, output file): 30 steps of 0.1 s from the
#: defaults, every Real output read after each step (fmpy's FMU2Slave, as a user would)
TRAJECTORY = r"""
import json, sys
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
path, out = sys.argv[1], sys.argv[2]
md = read_model_description(path)
fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(path), modelIdentifier=md.coSimulation.modelIdentifier,
                instanceName="traveller")
outputs = [v.valueReference for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
fmu.instantiate()
fmu.setupExperiment(startTime=0.0)
fmu.enterInitializationMode()
fmu.exitInitializationMode()
rows = []
for k in range(30):
    fmu.doStep(k * 0.1, 0.1)
    rows.append(fmu.getReal(outputs))
fmu.terminate()
fmu.freeInstance()
json.dump(rows, open(out, "w"))
"""


def requirements(fmu: Path) -> list:
    with zipfile.ZipFile(fmu) as archive:
        text = archive.read("resources/requirements.txt").decode()
    return [line for line in text.splitlines() if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def fmus():
    build(*FMUS)
    return {name: ROOT / "fmus" / f"{name}.fmu" for name in FMUS}


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory, fmus):
    """A venv of the base interpreter with only the FMUs' requirements and fmpy."""
    import fmpy

    from tests.install.venvs import fresh_venv, pip_install, wheelhouse

    venv = tmp_path_factory.mktemp("bare") / "venv"
    fresh_venv(venv)   # empty, no pip: the project's pip installs into it, offline, from the wheelhouse
    wanted = sorted({line for fmu in fmus.values() for line in requirements(fmu)} | {f"fmpy=={fmpy.__version__}"})
    pip = pip_install(venv / "bin" / "python", "--no-index", "--find-links", str(wheelhouse()), *wanted, timeout=1800)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-3000:]
    return venv


def trajectory(python: Path, fmu: Path, folder: Path, env: dict) -> list:
    out = folder / f"{fmu.stem}.json"
    run = subprocess.run([str(python), "-c", TRAJECTORY, str(fmu), str(out)], cwd=folder, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(out.read_text())


def assert_same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for row_a, row_b in zip(a, b):
        for x, y in zip(row_a, row_b):
            assert abs(x - y) <= 1e-12 * max(abs(x), abs(y), 1e-300) or x == y, (x, y)


def test_each_fmu_declares_what_it_imports_and_no_yaml_or_pydantic(fmus):
    for name, fmu in fmus.items():
        names = [line.partition("==")[0].lower() for line in requirements(fmu)]
        assert "numpy" in names and ("scipy" in names) == (name not in ("H100Sensors", "Tether")), (name, names)
        assert ("moordyn" in names) == (name == "Tether"), (name, names)
        assert not {"pyyaml", "pydantic", "pythonfmu", "fmpy"} & set(names), (name, names)
        assert ("daqp" in names) == name.startswith("H100Control"), (name, names)
        assert all("==" in line for line in requirements(fmu)), name


@pytest.mark.parametrize("name", FMUS)
def test_a_copied_fmu_runs_in_a_bare_venv_with_no_environment_as_in_the_project(bare_venv, fmus, name, tmp_path):
    here = tmp_path / "here"
    away = tmp_path / "away"
    for folder in (here, away):
        folder.mkdir()
    copy = away / f"{name}.fmu"
    shutil.copyfile(fmus[name], copy)
    expected = trajectory(Path(sys.executable), fmus[name], here, dict(os.environ))
    assert_same(trajectory(bare_venv / "bin" / "python", copy, away, {}), expected)


def _without_recorded_interpreter(fmu: Path, target: Path) -> None:
    """A copy of the FMU whose recorded interpreter no longer exists (another machine)."""
    with zipfile.ZipFile(fmu) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "resources/python_environment.txt":
                data = b"".join(line if not line.startswith(b"executable=") else b"executable=/gone/bin/python\n"
                                for line in data.splitlines(keepends=True))
            copy.writestr(info, data)


@pytest.fixture(scope="module")
def c_host(tmp_path_factory):
    compiler = native_wrapper.find_compiler()
    if compiler is None:
        pytest.skip("no C compiler: the FMUs carry pythonfmu's stock binary")
    host = tmp_path_factory.mktemp("host") / "fmi2_host"
    subprocess.run([*compiler, "-std=c99", "-O1", "-o", str(host), str(HOST_SOURCE), "-ldl"], check=True)
    return host


def _c_host(c_host, folder: Path, model: str, env: dict):
    return subprocess.run([str(c_host), str(folder / "binaries" / "linux64" / f"{model}.so"),
                           str(folder / "resources"), "1.0", "0.1", "0"],
                          capture_output=True, text=True, timeout=600, env=env, cwd=folder)


def test_a_c_host_finds_python3_on_path_when_the_recorded_interpreter_is_gone(bare_venv, fmus, c_host, tmp_path):
    if not has_native_wrapper(fmus["Auv"]):
        pytest.skip("pythonfmu's stock binary")
    copy = tmp_path / "Auv.fmu"
    _without_recorded_interpreter(fmus["Auv"], copy)
    folder = tmp_path / "Auv"
    zipfile.ZipFile(copy).extractall(folder)
    path = f"{bare_venv / 'bin'}:/usr/bin:/bin"
    moved = _c_host(c_host, folder, "Auv", {"PATH": path})
    assert moved.returncode == 0, moved.stderr[-3000:]
    home = _c_host(c_host, folder, "Auv", {"PATH": path, "FMU_PYTHON_EXECUTABLE": sys.executable})
    assert home.returncode == 0 and home.stdout == moved.stdout, (home.stdout, moved.stdout)


def test_when_no_python_fits_instantiate_names_each_candidate_the_package_and_the_pip_line(fmus, c_host, tmp_path):
    if not has_native_wrapper(fmus["Auv"]):
        pytest.skip("pythonfmu's stock binary")
    lacking = tmp_path / "lacking"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(lacking)], check=True)
    copy = tmp_path / "Auv.fmu"
    _without_recorded_interpreter(fmus["Auv"], copy)
    folder = tmp_path / "Auv"
    zipfile.ZipFile(copy).extractall(folder)
    run = _c_host(c_host, folder, "Auv", {"PATH": f"{lacking / 'bin'}:/usr/bin:/bin",
                                          "FMU_PYTHON_EXECUTABLE": str(lacking / "bin" / "python")})
    assert run.returncode == 1
    said = run.stderr
    assert "FMU_PYTHON_EXECUTABLE" in said and "/gone/bin/python" in said and "python3 on PATH" in said, said
    assert "numpy==" in said and "-m pip install -r" in said and "requirements.txt" in said, said


def test_in_a_python_host_a_missing_requirement_fails_instantiate_with_the_pip_line(fmus, tmp_path):
    """The host's own interpreter is the only candidate: here the project's, with a requirements
    file that also asks for a package nobody has."""
    copy = tmp_path / "Auv.fmu"
    with zipfile.ZipFile(fmus["Auv"]) as source, zipfile.ZipFile(copy, "w") as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "resources/requirements.txt":
                data += b"no-such-package-anywhere==1.0\n"
            target.writestr(info, data)
    script = ("import sys\nfrom fmpy import extract, read_model_description\nfrom fmpy.fmi2 import FMU2Slave\n"
              "md = read_model_description(sys.argv[1])\n"
              "fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(sys.argv[1]), modelIdentifier='Auv', "
              "instanceName='a')\n"
              "try:\n    fmu.instantiate()\nexcept Exception as error:\n    print('refused:', error)\n")
    run = subprocess.run([sys.executable, "-c", script, str(copy)], capture_output=True, text=True, cwd=tmp_path)
    said = run.stdout + run.stderr
    assert "refused:" in said, said
    assert "lacks what the FMU needs: no-such-package-anywhere==1.0" in said, said
    assert f"{sys.executable} -m pip install -r " in said and "requirements.txt" in said, said
