"""auv-cosim run builds an FMU of the project that a scenario needs and that is missing (after
`./build.sh run`, which builds the survey's only), saying so; nothing else."""
from __future__ import annotations

import sys

import auv_cosim.master as master_api
import auv_cosim.master.scenario as scenario_module
from auv_cosim.cli import build_missing_fmus

STUB = '''import sys
from pathlib import Path
if sys.argv[1:] == ["--list"]:
    print("Auv\\nSonarTest")
    sys.exit(0)
Path(__file__).with_name("called.txt").write_text(" ".join(sys.argv[1:]))
'''


def _project(tmp_path, monkeypatch):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "build_fmus.py").write_text(STUB)
    (tmp_path / "fmus").mkdir()
    (tmp_path / "fmus" / "Auv.fmu").write_bytes(b"")   # present: not built again
    monkeypatch.setattr(master_api, "REPO_ROOT", tmp_path, raising=False)
    monkeypatch.setattr(scenario_module, "REPO_ROOT", tmp_path)
    return tmp_path


def _scenario(tmp_path, fmus: dict[str, str]):
    p = tmp_path / "s.yaml"
    p.write_text("stop_time: 1\ninstances:\n" + "".join(f"  {n}: {{fmu: {f}}}\n" for n, f in fmus.items()))
    return p


def test_a_missing_fmu_of_the_project_is_built_saying_so(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, monkeypatch)
    s = _scenario(tmp_path, {"a": "fmus/Auv.fmu", "b": "fmus/SonarTest.fmu", "c": "fmus/Mine.fmu"})
    assert build_missing_fmus(str(s)) == ["SonarTest"]     # Mine.fmu is no FMU the project builds
    assert (root / "tools" / "called.txt").read_text() == "-q SonarTest"
    assert "auv-cosim: building fmus/SonarTest.fmu: the scenario needs it" in capsys.readouterr().err


def test_nothing_is_built_when_every_fmu_is_there_or_the_scenario_is_unreadable(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, monkeypatch)
    assert build_missing_fmus(str(_scenario(tmp_path, {"a": "fmus/Auv.fmu"}))) == []
    (tmp_path / "bad.yaml").write_text("instances: [")
    assert build_missing_fmus(str(tmp_path / "bad.yaml")) == []
    assert not (root / "tools" / "called.txt").exists() and capsys.readouterr().err == ""
