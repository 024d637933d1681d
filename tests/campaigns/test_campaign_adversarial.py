"""Issue 17, the campaign findings (numbered as in the issue): `auv-cosim sweep` through
the CLI in a fresh process, as users run it."""
from __future__ import annotations

import csv
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from auv_cosim.master import find_scenario

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "master"))
from master_helpers import _env, master  # noqa: E402

DEPTH_STEP = (find_scenario("depth_step")).as_posix()


@pytest.fixture(scope="module")
def fmus_built():
    missing = [n for n in ("Auv", "AuvSensors", "AuvControl") if not (REPO / "fmus" / f"{n}.fmu").is_file()]
    if missing:
        pytest.fail(f"the FMUs are not built ({', '.join(missing)} missing): run ./build.sh first")


pytestmark = pytest.mark.usefixtures("fmus_built")


def rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_02_03_vary_drives_signal_inputs_and_elements_as_set_does(tmp_path):
    """2: --vary of a signal-driven input replaced nothing (identical runs); 3: --vary of an
    element lost to the file's own element setting."""
    scen = tmp_path / "elem.yaml"
    scen.write_text(f"include: {DEPTH_STEP}\ninstances:\n  vehicle:\n    parameters:\n      'Pos0[3]': 10\n")
    old_umask = os.umask(0o022)  # (25: the campaign's files are checked for it below)
    try:
        r = master("sweep", str(scen), "--vary", "control.SpeedCommand=0.8,1.4", "--vary", "vehicle.Pos0[3]=3,6",
                   "--stop-time", "0.2", "--workers", "1", "--no-progress", "--no-plots", out=tmp_path / "c")
    finally:
        os.umask(old_umask)
    assert r.rc == 0, r
    runs = {(float(x["control.SpeedCommand"]), float(x["vehicle.Pos0[3]"])): x for x in rows(tmp_path / "c" / "campaign.csv")}
    assert len(runs) == 4
    for (speed, z0), row in runs.items():
        run_dir = tmp_path / "c" / row["run_dir"]
        data = rows(run_dir / "results.csv")
        assert float(data[0]["vehicle.Pos[3]"]) == z0
        assert float(data[1]["control.SpeedCommand"]) == speed
        scenario = yaml.safe_load((run_dir / "scenario.yaml").read_text())
        assert scenario["signals"]["control.SpeedCommand"] == {"constant": speed}
    # 25: the campaign's files have the mode the umask gives, not 0600
    files = [tmp_path / "c" / "campaign.yaml", tmp_path / "c" / "campaign.csv"] + list((tmp_path / "c" / "runs").glob("*/*"))
    modes = {f.name: oct(stat.S_IMODE(f.stat().st_mode)) for f in files if f.is_file()}
    assert "summary.json" in modes and "scenario.yaml" in modes
    assert set(modes.values()) == {"0o644"}, modes
    # 9: the folder of this campaign is not taken over by another campaign
    before = {p: p.read_bytes() for p in (tmp_path / "c").glob("campaign.*")}
    r = master("sweep", "depth_step", "--vary", "vehicle.Length=1.5", "--stop-time", "0.2", "--workers", "1",
               "--no-progress", out=tmp_path / "c")
    assert r.rc == 2, r
    assert "holds campaign 'elem' of" in r.stderr and "this is campaign 'depth_step'" in r.stderr
    assert {p: p.read_bytes() for p in (tmp_path / "c").glob("campaign.*")} == before
    assert len(list((tmp_path / "c" / "runs").iterdir())) == 4
    # a connection-driven input cannot be varied (it would be overwritten), like run --set
    r = master("sweep", "survey", "--vary", "vehicle.ThrustPower=0,100", "--stop-time", "20", "--dry-run",
               out=tmp_path / "d")
    assert r.rc == 2, r
    assert "--vary: vehicle.ThrustPower: vehicle.ThrustPower is driven by connection" in r.stderr


def test_21_vary_of_an_element_past_the_end_names_the_index(tmp_path):
    r = master("sweep", "depth_step", "--vary", "vehicle.Pos0[4]=1,2", "--dry-run", out=tmp_path / "c")
    assert r.rc == 2, r
    assert "--vary: vehicle.Pos0[4]: vehicle.Pos0 has 3 elements (Pos0[1] .. Pos0[3]); there is no element [4]" in r.stderr


def test_04_vary_refuses_integers_beyond_32_bits(tmp_path):
    r = master("sweep", "depth_step", "--vary", "sensors.Seed=1,4294967297", "--dry-run", out=tmp_path / "c")
    assert r.rc == 2 and "4294967297 is outside" in r.stderr, r


def test_11_sweep_refuses_an_unusable_out_by_name(tmp_path):
    (tmp_path / "file").write_text("x")
    for out, why in ((tmp_path / "file", "exists and is not a folder"),
                     (tmp_path / "file" / "sub", "cannot create the campaign folder")):
        r = master("sweep", "depth_step", "--vary", "vehicle.Length=1.5", "--stop-time", "0.2", out=out)
        assert r.rc == 2 and "Traceback" not in r.stderr, r
        assert f"--out: {out}: {why}" in r.stderr


def test_14_campaigns_that_cannot_finish_are_refused_at_once(tmp_path):
    r = master("sweep", "depth_step", "--vary", "vehicle.Length=1.5", "--stop-time", "1e17", "--dry-run",
               out=tmp_path / "c", timeout=120)
    assert r.rc == 2 and "--stop-time: stop_time:" in r.stderr and "steps; a run is limited to 2**53" in r.stderr, r
    r = master("sweep", "depth_step", "--vary", "vehicle.Length=1:2:1000", "--vary", "control.CruiseSpeed=1:2:1000",
               "--dry-run", out=tmp_path / "c", timeout=120)
    assert r.rc == 2 and "1000 x 1000 = 1,000,000 runs; a campaign is limited to 100,000 runs" in r.stderr, r
    spec = tmp_path / "big.yaml"
    spec.write_text(f"scenario: {DEPTH_STEP}\nvary:\n  vehicle.Length: {{start: 1, stop: 2, num: 100000000}}\n")
    r = master("sweep", str(spec), "--dry-run", timeout=120)
    assert r.rc == 2 and "big.yaml: vary" in r.stderr and "less than or equal to 100000" in r.stderr, r
    # 10,000 runs are planned in seconds, not tens of seconds (generous bound: a shared machine)
    r = master("sweep", "depth_step", "--vary", "vehicle.Length=1:2:100", "--vary", "control.CruiseSpeed=1:2:100",
               "--dry-run", out=tmp_path / "c", timeout=120)
    assert r.rc == 0 and r.stdout.count("\n  vehicle.Length=") == 10000, r.stderr


@pytest.mark.parametrize("k", ["0", "-3"])
def test_18_workers_below_one_are_refused(tmp_path, k):
    r = master("sweep", "depth_step", "--vary", "vehicle.Length=1.5", "--workers", k, "--dry-run", out=tmp_path / "c")
    assert r.rc == 2 and f"--workers: {k}: the number of worker processes must be at least 1" in r.stderr, r


def test_26_sigterm_stops_a_sweep_cleanly(tmp_path):
    out = tmp_path / "c"
    cmd = [sys.executable, "-m", "auv_cosim", "sweep", "survey", "--vary", "vehicle.Length=1.6,1.7", "--stop-time", "600",
           "--workers", "1", "--no-progress", "--no-plots", "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    # wait until a run is under way (its folder has results.csv)
    while not list(out.glob("runs/*/results.csv")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=240)
    assert proc.returncode == 130, err
    assert not (out / ".campaign.lock").exists()
    assert not [p for p in out.iterdir() if "token" in p.name]
    statuses = [r["status"] for r in rows(out / "campaign.csv")]
    assert "interrupted" in statuses and "pending" not in statuses, statuses


def test_27_an_unreachable_scheduler_writes_nothing(tmp_path):
    out = tmp_path / "c"
    env = {**_env(), "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    proc = subprocess.run([sys.executable, "-m", "auv_cosim", "sweep", "depth_step", "--vary", "vehicle.Length=1.5",
                           "--scheduler", "tcp://127.0.0.1:9", "--out", str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "--scheduler: tcp://127.0.0.1:9: cannot connect to the Dask scheduler" in proc.stderr
    assert not out.exists()
