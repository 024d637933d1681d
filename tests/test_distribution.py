"""The project as its users get it: one distribution with one import package and one command, a
README for users, no issue tracker's numbers in the code and docs."""
from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("run", "view", "export-ssp", "validate", "list", "build", "compare", "identify", "sweep")


def test_a_wheel_installs_exactly_one_import_package(tmp_path):
    """Built from a copy of the checkout's files (setuptools writes its build/ beside the
    sources)."""
    source = tmp_path / "source"
    listed = subprocess.run(["git", "ls-files", "pyproject.toml", "README.md", "auv_cosim"], cwd=ROOT,
                            capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in listed.stdout.split():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes((ROOT / name).read_bytes())
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(tmp_path)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel, = tmp_path.glob("auv_cosim-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"auv_cosim"}
    assert "auv-cosim = auv_cosim.__main__:main" in entry_points
    # every unit, its scenarios and stack files, and the H100's vehicle files, as package data
    from auv_cosim import units
    for name, unit in units.units().items():
        assert f'{name} = {unit.package}.unit:UNIT' in entry_points, name
        folder = unit.folder.relative_to(ROOT)
        for kind in filter(None, (unit.scenarios, unit.vehicle_files)):
            tracked = sorted(p.relative_to(ROOT).as_posix() for p in (unit.folder / kind).rglob("*.yaml"))
            assert tracked and set(tracked) <= set(names), (folder, kind)


def _help(*command: str) -> str:
    out = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_one_command_lists_every_command_and_python_m_is_the_same():
    script = Path(sys.executable).with_name("auv-cosim")
    assert script.exists(), "the console script is not installed: run ./build.sh"
    listed = _help(str(script))
    for command in COMMANDS:
        assert re.search(rf"^\s+{re.escape(command)}\b", listed, re.M), (command, listed)
    assert _help(sys.executable, "-m", "auv_cosim") == listed


def test_the_old_entry_point_is_gone():
    """No shim: `python -m master` is not a command any more."""
    out = subprocess.run([sys.executable, "-m", "master", "--help"], capture_output=True, text=True, cwd="/",
                         timeout=60)
    assert out.returncode != 0 and "No module named master" in out.stderr


def test_the_readme_is_for_users_and_speed_has_its_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    for command in ("./build.sh run", "./build.sh test"):
        assert command in readme
    assert (ROOT / "docs" / "performance.md").is_file()
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).exists(), link


ISSUE = re.compile(r"\bissues? [0-9]+", re.I)


@pytest.mark.parametrize("suffix", [".py", ".md"])
def test_no_issue_numbers_outside_the_tests(suffix):
    """A reader has no tracker: code and docs say the reason in words (git history has the
    rest)."""
    tracked = subprocess.run(["git", "ls-files", f"*{suffix}"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    found = [f"{name}:{n}" for name in tracked.stdout.split() if not name.startswith("tests/")
             for n, line in enumerate((ROOT / name).read_text(errors="replace").splitlines(), 1)
             if ISSUE.search(line)]
    assert found == []
