"""auv-cosim run builds an FMU of a registered unit that a scenario needs and that is missing,
into the folder the units' FMUs are built to (the clone's fmus/ after `./build.sh run`, which
builds the survey's only; the per-user cache for an installed package), saying so with the
folder; nothing else."""
from __future__ import annotations

import pytest

import auv_cosim.build.command as build_command
from auv_cosim import units
from auv_cosim.cli import build_missing_fmus


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A folder of built FMUs holding Auv.fmu, two registered FMUs (Auv, SonarTest) and no clone;
    the build is recorded, not run."""
    folder = tmp_path / "cache" / "fmus-built"
    folder.mkdir(parents=True)
    (folder / "Auv.fmu").write_bytes(b"")
    monkeypatch.setattr(units, "fmu_folder", lambda: folder)
    monkeypatch.setattr(units, "fmu_names", lambda: {"Auv", "SonarTest"})
    monkeypatch.setattr(units, "checkout", lambda: None)
    built = []
    monkeypatch.setattr(build_command, "build_into", lambda names, out: built.append((list(names), out)) or 0)
    monkeypatch.chdir(tmp_path)
    return folder, built


def _scenario(tmp_path, fmus: dict[str, str]):
    p = tmp_path / "s.yaml"
    p.write_text("stop_time: 1\ninstances:\n" + "".join(f"  {n}: {{fmu: {f}}}\n" for n, f in fmus.items()))
    return p


def test_a_missing_fmu_of_a_unit_is_built_into_the_folder_of_built_fmus_saying_so(tmp_path, store, capsys):
    folder, built = store
    s = _scenario(tmp_path, {"a": "fmus/Auv.fmu", "b": "fmus/SonarTest.fmu", "c": "fmus/Mine.fmu"})
    assert build_missing_fmus(str(s)) == ["SonarTest"]     # Mine.fmu is no unit's FMU; Auv.fmu is there
    assert built == [(["SonarTest"], folder)]
    err = capsys.readouterr().err
    assert f"auv-cosim: building SonarTest.fmu into {folder}/: the scenario needs it" in err


def test_a_units_fmu_named_by_any_path_ending_in_its_name_is_found_in_that_folder(tmp_path, store):
    from auv_cosim.master import resolve_fmu_path

    folder, _ = store
    found, looked = resolve_fmu_path("somewhere/else/Auv.fmu", tmp_path)
    assert found == folder / "Auv.fmu" and looked[0] == tmp_path / "somewhere/else/Auv.fmu"
    assert resolve_fmu_path("fmus/Mine.fmu", tmp_path)[0] is None


def test_nothing_is_built_when_every_fmu_is_there_or_the_scenario_is_unreadable(tmp_path, store, capsys):
    _, built = store
    assert build_missing_fmus(str(_scenario(tmp_path, {"a": "fmus/Auv.fmu"}))) == []
    (tmp_path / "bad.yaml").write_text("instances: [")
    assert build_missing_fmus(str(tmp_path / "bad.yaml")) == []
    assert built == [] and capsys.readouterr().err == ""
