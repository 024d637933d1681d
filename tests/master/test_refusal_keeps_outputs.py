"""A refused command changes nothing on disk: every command that writes a folder or a file
(`run`, `sweep`, `compare`, `identify`, `export`, `export-ssp`, `export-osp`, `view`, `build`,
`coverage`, `plan-survey`) leaves what
an earlier command wrote there byte for byte when it refuses (exit 2); a run replaces the files
of the earlier run only once it has made its first step, and then every one of them (the
formats it was not asked for too), never a file that is not a run's."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("fmus_built")


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "auv_cosim", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def _digest(root: Path) -> dict:
    """Every path under root (hidden ones too) with its bytes' digest and mode."""
    if not root.exists():
        return {}
    if root.is_file():
        return {".": hashlib.sha256(root.read_bytes()).hexdigest()}
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir",
                                       p.stat().st_mode)
            for p in sorted(root.rglob("*"))}


@pytest.fixture(scope="module")
def earlier(tmp_path_factory):
    """A run's folder with every format and the plots, and a trial log for identify."""
    root = tmp_path_factory.mktemp("earlier")
    r = _cli("run", "depth_step", "--stop-time", "3", "--format", "mcap,parquet,rosbag", "-q", "--out", root / "run")
    assert r.returncode == 0, r.stderr
    (root / "run" / "notes.txt").write_text("the user's own file\n")
    return root


def _refused(result, *words):
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    for w in words:
        assert w in result.stderr, result.stderr


@pytest.mark.parametrize("refusal, words", [
    (["--set", "vehicle.Length=-1"], ["vehicle.Length"]),                     # the FMU refuses it at initialisation
    (["--set", "vehicle.Length=-1", "--format", "mcap,rosbag,parquet"], ["vehicle.Length"]),
    (["--realtime", "1e-300"], ["--realtime"]),
    (["--set", "vehicle.Lenght=2"], ["did you mean"]),
    (["--format", "mcap,mcap"], ["--format"]),
])
def test_a_refused_run_leaves_the_earlier_run_byte_for_byte(earlier, tmp_path, refusal, words):
    folder = tmp_path / "run"
    subprocess.run(["cp", "-a", str(earlier / "run"), str(folder)], check=True)
    before = _digest(folder)
    _refused(_cli("run", "depth_step", "--stop-time", "2", "--no-plots", "--out", folder, *refusal), *words)
    assert _digest(folder) == before


def test_a_refused_run_into_a_new_folder_leaves_no_folder(tmp_path):
    _refused(_cli("run", "depth_step", "--stop-time", "2", "--out", tmp_path / "a" / "b", "--set", "vehicle.Length=-1"))
    assert list(tmp_path.iterdir()) == []


def test_an_accepted_run_replaces_every_file_of_the_earlier_run_and_nothing_else(earlier, tmp_path):
    folder = tmp_path / "run"
    subprocess.run(["cp", "-a", str(earlier / "run"), str(folder)], check=True)
    r = _cli("run", "depth_step", "--stop-time", "2", "--no-plots", "-q", "--out", folder)
    assert r.returncode == 0, r.stderr
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["notes.txt", "results.csv", "scenario.resolved.yaml", "summary.json"], names
    assert (folder / "notes.txt").read_text() == "the user's own file\n"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["rows"] == 21 and len((folder / "results.csv").read_text().splitlines()) == 22


def test_a_run_that_fails_at_its_first_step_keeps_the_earlier_run(earlier, tmp_path):
    """A NaN reaches the vehicle's input at the first step: failed (exit 1), and nothing of it
    replaces the earlier run; into a new folder, its results and summary are written."""
    from auv_cosim.master.runner import find_scenario

    scenario = tmp_path / "nan0.yaml"
    scenario.write_text(f"""
include: {find_scenario('depth_step').resolve().as_posix()}
name: nan_at_start
stop_time: 2
disconnect: [vehicle.ThrustPower]
signals:
  vehicle.ThrustPower: {{step: {{time: 0.0, before: 30.0, after: .nan}}}}
""")
    folder = tmp_path / "run"
    subprocess.run(["cp", "-a", str(earlier / "run"), str(folder)], check=True)
    before = _digest(folder)
    r = _cli("run", scenario, "--no-plots", "--out", folder)
    assert r.returncode == 1, r.stderr
    assert "ThrustPower" in r.stderr and "keeps the earlier run's results" in r.stdout
    assert _digest(folder) == before
    fresh = _cli("run", scenario, "--no-plots", "--out", tmp_path / "fresh")
    assert fresh.returncode == 1
    summary = json.loads((tmp_path / "fresh" / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["rows"] == 1


# ------------------------------------------------------------------ the other commands

def _filled(folder: Path, names) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(f"earlier {name}\n".encode())
    return folder


def test_a_refused_sweep_leaves_its_folder(tmp_path):
    folder = _filled(tmp_path / "sweep", ["campaign.csv", "notes.txt"])
    (folder / "campaign.yaml").write_text("name: depth_step\nscenario: nowhere.yaml\n")
    before = _digest(folder)
    _refused(_cli("sweep", "depth_step", "--vary", "control.DepthKpp=1,2", "--stop-time", "1", "--out", folder),
             "did you mean")
    _refused(_cli("sweep", "depth_step", "--vary", "control.DepthKp=1,2", "--stop-time", "1", "--out", folder),
             "holds campaign")
    _refused(_cli("sweep", "depth_step", "--vary", "control.DepthKp=1,2", "--stop-time", "-1", "--out", folder))
    assert _digest(folder) == before


def test_a_refused_comparison_leaves_its_folder(tmp_path):
    folder = _filled(tmp_path / "compare", ["comparison.csv", "comparison.md", "tracks.png"])
    before = _digest(folder)
    _refused(_cli("compare", "h100_hold", "--stop-time", "1", "--out", folder, "--set", "control.Nope=1"), "Nope")
    _refused(_cli("compare", "h100_hold", "--stop-time", "-1", "--out", folder), "--stop-time")
    assert _digest(folder) == before
    _refused(_cli("compare", "h100_hold", "--set", "control.Nope=1", "--out", tmp_path / "new"))
    assert not (tmp_path / "new").exists()


def test_a_refused_identification_leaves_its_folder(earlier, tmp_path):
    folder = _filled(tmp_path / "identify", ["estimates.json", "fit.json", "residuals.csv", "report.txt"])
    before = _digest(folder)
    log = earlier / "run" / "results.csv"
    _refused(_cli("identify", log, "--vehicle", "auv", "--fit", "AxialDragCoef", "--out", folder),
             "did you mean 'AxialDragCoeff'")
    _refused(_cli("identify", log, "--vehicle", "auv", "--fit", "AxialDragCoeff", "--out", folder, "--start", "99"))
    assert _digest(folder) == before


def test_refused_exports_leave_their_files(earlier, tmp_path):
    ssp = tmp_path / "survey.ssp"
    assert _cli("export-ssp", "depth_step", ssp).returncode == 0
    osp = tmp_path / "osp"
    assert _cli("export-osp", "depth_step", osp).returncode == 0
    before = {p: _digest(p) for p in (ssp, osp)}
    _refused(_cli("export-ssp", "depth_step", ssp, "--force", "--set", "vehicle.Lenght=2"), "did you mean")
    _refused(_cli("export-ssp", "depth_step", ssp, "--force", "--stop-time", "-1"))
    _refused(_cli("export-osp", "depth_step", osp, "--force", "--set", "vehicle.Lenght=2"), "did you mean")
    _refused(_cli("export-osp", "depth_step", osp))   # exists: not replaced without --force
    assert {p: _digest(p) for p in (ssp, osp)} == before
    _refused(_cli("export-osp", "depth_step", tmp_path / "new" / "osp", "--set", "vehicle.Lenght=2"))
    assert not (tmp_path / "new").exists()
    run = tmp_path / "run"
    subprocess.run(["cp", "-a", str(earlier / "run"), str(run)], check=True)
    before = _digest(run)
    _refused(_cli("export", run, "--format", "mcap,parquet"), "exists")
    _refused(_cli("view", run, "--frames", "1"))
    _refused(_cli("view", run, "--out", run / "notes.txt"), "notes.txt")
    assert _digest(run) == before


def test_a_refused_build_leaves_its_folder(tmp_path):
    """`build` refuses an unknown name, no name, and an --out that is a file, before it writes."""
    out = tmp_path / "fmus"
    out.mkdir()
    (out / "Auv.fmu").write_bytes(b"an earlier build\n")
    before = _digest(out)
    _refused(_cli("build", "NoSuchFmu", "--out", out), "NoSuchFmu")
    _refused(_cli("build", "--out", out), "--all")
    assert _digest(out) == before
    afile = tmp_path / "a_file"
    afile.write_text("mine\n")
    _refused(_cli("build", "--all", "--out", afile), "not a folder")
    assert afile.read_text() == "mine\n"
    _refused(_cli("build", "NoSuchFmu", "--out", tmp_path / "new"))
    assert not (tmp_path / "new").exists()


def test_refused_seabed_commands_leave_their_files(earlier, tmp_path):
    """`coverage` (a swath that cannot be, a polygon of two vertices) and `plan-survey` (an
    existing --out without --force, a negative altitude with it) refuse before they write."""
    run = tmp_path / "run"
    subprocess.run(["cp", "-a", str(earlier / "run"), str(run)], check=True)
    before = _digest(run)
    _refused(_cli("coverage", run, "--half-angle", "95", "--range", "60"), "half")
    _refused(_cli("coverage", run, "--half-angle", "30", "--range", "60", "--polygon", "0,0; 10,10"), "--polygon")
    assert _digest(run) == before
    plan = tmp_path / "lines.yaml"
    plan.write_text("the user's own file\n")
    area = ["--area", "0,0; 0,200; 100,200; 100,0", "--half-angle", "30", "--range", "60"]
    _refused(_cli("plan-survey", *area, "--altitude", "10", "--out", plan), "lines.yaml")
    _refused(_cli("plan-survey", *area, "--altitude", "-5", "--out", plan, "--force"), "altitude")
    assert plan.read_text() == "the user's own file\n"


def test_every_command_that_writes_a_folder_or_file_is_covered_here():
    """A new command with an output is added to the tests above (this list is theirs)."""
    from auv_cosim.cli import build_parser

    covered = {"run", "sweep", "compare", "identify", "export", "export-ssp", "export-osp", "view", "build",
               "coverage", "plan-survey"}
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    writing = set()
    for name, p in sub.choices.items():
        dests = {a.dest for a in p._actions}
        if dests & {"out", "out_dir", "results_dir"}:
            writing.add(name)
    assert writing <= covered, writing - covered
    assert {"run", "sweep", "compare", "identify", "export-ssp", "export-osp"} <= writing
