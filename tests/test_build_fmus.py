"""tools/build_fmus.py builds what is asked, the caches several FMUs share compiled once, its
children two at a time, and each FMU the same whether built with the others or alone."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "build_fmus.py"
GROUP = ("AuvSensors", "AuvControl")   # the AUV's instruments and control share one cache


def _build(*args: str) -> str:
    result = subprocess.run([sys.executable, str(TOOL), *args], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _members(fmu: Path) -> dict[str, bytes]:
    """Every member's bytes; modelDescription.xml without the two attributes pythonfmu makes
    anew for every build (its guid and generation time)."""
    import re

    with zipfile.ZipFile(fmu) as archive:
        out = {name: archive.read(name) for name in archive.namelist()}
    out["modelDescription.xml"] = re.sub(rb'(guid|generationDateAndTime)="[^"]*"', rb'\1=""', out["modelDescription.xml"])
    return out


def test_the_survey_and_the_others_are_the_whole_list():
    names = _build("--list").split()
    assert names[:3] == ["Auv", "AuvSensors", "AuvControl"] and len(names) == 9 and "Tether" in names


@pytest.fixture(scope="module")
def together(tmp_path_factory):
    """The group built in parallel (two children), its cache compiled in a folder of its own."""
    root = tmp_path_factory.mktemp("fmubuild")
    compiled = root / "compiled"
    out = _build("--jobs", "2", "--no-check", "--dest", str(root / "together"), "--compiled", str(compiled), *GROUP)
    return root, compiled, out


def test_a_shared_cache_is_compiled_once_and_each_fmu_is_the_same_built_alone(together):
    root, compiled, out = together
    assert out.count("compiled the cache auv_stack shares") == 1, out
    caches = list(compiled.glob("auv_stack-*"))
    assert len(caches) == 1 and (caches[0] / "complete").is_file()
    # one at a time, the second of the group first, each alone: the complete cache is reused
    alone = root / "alone"
    for name in reversed(GROUP):
        again = _build("--jobs", "1", "--no-check", "--dest", str(alone), "--compiled", str(compiled), name)
        assert "compiled the cache" not in again and f"built {alone / name}.fmu" in again, again
    for name in GROUP:
        a, b = _members(root / "together" / f"{name}.fmu"), _members(alone / f"{name}.fmu")
        assert sorted(a) == sorted(b), name
        assert [m for m in a if a[m] != b[m]] == [], name
    # every compiled file each ships is the group cache's own, byte for byte
    stage = caches[0] / "stage"
    for name in GROUP:
        members = _members(root / "together" / f"{name}.fmu")
        shipped = [m for m in members if m.endswith((".nbi", ".nbc"))]
        assert any("kernel" in m for m in shipped), (name, shipped)
        for m in shipped:
            assert members[m] == (stage / m.removeprefix("resources/")).read_bytes(), (name, m)


def test_a_change_to_one_member_makes_every_member_stale(together):
    """A member's stamp holds its group's cache: the cache of the group is part of every member."""
    root, compiled, _out = together
    stamps = [(root / "together" / f".build-stamp-{name}").read_text().split() for name in GROUP]
    assert all(len(s) == 2 for s in stamps) and stamps[0][1] == stamps[1][1] == next(compiled.glob("auv_stack-*")).name
