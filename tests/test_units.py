"""The units' registry (auv_cosim/units.py): what each unit declares resolves, the build builds
what the units declare, reading the registry imports no vehicle code, a unit's stack imports
none of its physics, and a broken unit is reported and left out."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from auv_cosim import units

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_every_declared_name_resolves():
    for name, unit in units.units().items():
        assert unit.name == name and unit.folder.is_dir()
        for fmu in unit.fmus:
            assert (unit.folder / fmu.slave).is_file(), (name, fmu.name)
            for entry in fmu.numba_warm_up:
                assert callable(units.load(entry)), entry
        references = [unit.figures, unit.identification, unit.prepare_vehicle_file,
                      *unit.analyses.values(), *unit.commands.values()]
        for reference in filter(None, references):
            assert units.load(reference) is not None, reference


def test_the_build_builds_every_fmu_the_units_declare_and_no_other():
    listed = subprocess.run([sys.executable, str(ROOT / "tools" / "build_fmus.py"), "--list"],
                            capture_output=True, text=True, check=True).stdout.split()
    declared = [fmu.name for _, fmu in units.fmus()]
    assert listed == declared
    assert {"Auv", "AuvSensors", "AuvControl", "H100", "H100Sensors", "H100Control"} <= set(declared)
    assert len(set(declared)) == len(declared)


def test_reading_the_registry_imports_no_vehicle_code():
    out = json.loads(_python(
        "import json, sys\nfrom auv_cosim import units\nunits.units()\n"
        "print(json.dumps([sorted(m for m in sys.modules if m.startswith('auv_cosim')), 'numpy' in sys.modules]))"))
    modules, numpy = out
    assert not numpy
    doors = {"auv_cosim", "auv_cosim.units", "auv_cosim.vehicles", "auv_cosim.components"}
    assert set(modules) - doors == {f"{u.package}{part}" for u in units.units().values() for part in ("", ".unit")}


def test_a_stack_imports_none_of_its_vehicles_physics():
    out = json.loads(_python(
        "import json, sys\nimport auv_cosim.vehicles.auv.stack.instruments, auv_cosim.vehicles.h100.stack.instruments\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('auv_cosim.vehicles'))))"))
    physics = [m for m in out if ".stack" not in m and m not in
               ("auv_cosim.vehicles", "auv_cosim.vehicles.auv", "auv_cosim.vehicles.h100")]
    assert physics == [], physics


def test_the_package_doors_still_hand_out_the_vehicles_names():
    from auv_cosim.vehicles.auv import AuvModel, AuvParameters
    from auv_cosim.vehicles.h100 import H100Model, linearize, load_vehicle

    import auv_cosim.vehicles.h100 as h100
    assert AuvModel.__module__.endswith(".auv.model") and AuvParameters.__module__.endswith(".auv.parameters")
    assert H100Model.__module__.endswith(".h100.model") and callable(linearize) and callable(load_vehicle)
    assert h100.dynamics.__name__ == "auv_cosim.vehicles.h100.dynamics"     # a submodule, as after an eager import
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        h100.NoSuchName


class _EntryPoint:
    def __init__(self, name, value, loaded=None, error=None):
        self.name, self.value, self._loaded, self._error = name, value, loaded, error

    def load(self):
        if self._error:
            raise self._error
        return self._loaded


def test_a_broken_unit_is_reported_and_left_out(monkeypatch, capsys):
    good = units.Unit(name="good", package="auv_cosim.vehicles.auv")
    found = [_EntryPoint("broken", "nowhere.unit:UNIT", error=ImportError("No module named 'nowhere'")),
             _EntryPoint("good", "x:UNIT", loaded=good),
             _EntryPoint("other", "y:UNIT", loaded=object()),
             _EntryPoint("misnamed", "z:UNIT", loaded=units.Unit(name="else", package="p"))]
    monkeypatch.setattr(units, "entry_points", lambda group: found if group == units.GROUP else [])
    monkeypatch.setattr(units, "_cache", {})
    assert list(units.units()) == ["good"]
    err = capsys.readouterr().err
    assert "ignoring the unit 'broken' (nowhere.unit:UNIT): ImportError: No module named 'nowhere'" in err
    assert "ignoring the unit 'other' (y:UNIT): not a Unit named 'other'" in err
    assert "ignoring the unit 'misnamed' (z:UNIT): not a Unit named 'misnamed'" in err


def test_every_scenario_is_found_by_its_name_in_its_units_folder():
    from auv_cosim.master import find_scenario, list_scenarios

    listed = list_scenarios()
    names = [path.stem for _, _, path in listed]
    assert len(names) == len(set(names)), "two units have a scenario of the same name"
    assert {"survey", "convoy", "wake_crossing", "h100_hold", "ident_h100"} <= set(names)
    folders = units.scenario_folders()
    for _, _, path in listed:
        assert find_scenario(path.stem) == path and path.parent in folders
    assert find_scenario("stacks/h100").parent.parent == units.units()["h100"].folder / "scenarios"


def test_an_include_is_the_file_beside_the_including_one_before_a_units(tmp_path):
    """A user's own stack file of a unit's stack file's name wins; without one, the unit's."""
    from auv_cosim.master import load_scenario

    (tmp_path / "stacks").mkdir()
    own = (tmp_path / "stacks" / "survey.yaml")
    own.write_text((units.units()["auv"].folder / "scenarios" / "stacks" / "survey.yaml").read_text()
                   .replace("step: 0.1 ", "step: 0.2 "))
    mine = tmp_path / "mine.yaml"
    mine.write_text("include: stacks/survey.yaml\nstop_time: 1\n")
    assert load_scenario(mine).model.step == 0.2
    own.unlink()
    assert load_scenario(mine).model.step == 0.1
    (tmp_path / "bad.yaml").write_text("include: stacks/nowhere.yaml\n")
    with pytest.raises(Exception, match=r"bad.yaml: include\[0\]: included file not found: stacks/nowhere.yaml"):
        load_scenario(tmp_path / "bad.yaml")


def test_no_file_of_the_h100_lies_outside_its_folder():
    """`git ls-files | grep -i h100`: only the unit's folder, the tests, the docs and the benchmarks."""
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    folder = units.units()["h100"].package.replace(".", "/") + "/"
    outside = [name for name in listed.stdout.split() if "h100" in name.lower()
               and not name.startswith((folder, "tests/", "docs/", "benchmarks/"))]
    assert outside == []
