"""Campaigns on a real local Dask cluster: 2 worker processes (processes=True,
threads_per_worker=1), the real FMUs, short runs (20 s of simulated time).

The campaign: the survey with vehicle.Length in {-1 (refused by the FMU at initialisation),
1.8, 2.2} x 2 noise seeds = 6 runs; -1 comes first, so each worker process runs good runs after
a failed one (refused: nothing of it runs). Checked: the failing runs are recorded with the
FMU's reason and the others complete; a second sweep into the same folder runs nothing (run counters on the workers, file
mtimes); a lost summary reruns exactly that run; every run's results.csv is byte-identical to
``auv-cosim run`` on the run's scenario.yaml in a fresh process; the CLI; the path where
workers send the files back (cluster without a shared file system).

Speed: the physics runs as plain Python here (AUV_NO_JIT=1 for the workers and the
subprocesses): a fresh process would otherwise spend ~20 s compiling it with numba, and these
runs are short. Set CAMPAIGN_TEST_JIT=1 to run them compiled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Everything from `master` is imported here, at collection: tests/master/ is a package named
# `master` too, and once pytest has collected it, `import master` inside a test would find it.
import auv_cosim.campaigns.plots  # noqa: F401  (imported lazily by auv_cosim.campaigns.sweep)
from auv_cosim.campaigns import CampaignPlan, build_campaign, execute, sweep
from auv_cosim.campaigns.worker import runs_executed
from auv_cosim import units
from auv_cosim.master import find_scenario

FMUS_BUILT = all((units.fmu_folder() / f"{n}.fmu").is_file() for n in ("Auv", "AuvSensors", "AuvControl"))
pytestmark = pytest.mark.skipif(not FMUS_BUILT, reason="FMUs not built (./build.sh)")

STOP = 20.0
VARY = {"vehicle.Length": [-1.0, 1.8, 2.2]}
SEEDS = 2


@pytest.fixture(scope="module")
def survey(tmp_path_factory) -> str:
    """The survey scenario on a snapshot of the FMUs: fmus/ may be rebuilt by ./build.sh while
    the tests run, and a campaign refuses FMUs that change under it."""
    import shutil

    d = tmp_path_factory.mktemp("fmus")
    for n in ("Auv", "AuvSensors", "AuvControl"):
        shutil.copy2(units.fmu_folder() / f"{n}.fmu", d / f"{n}.fmu")
    f = d / "survey.yaml"
    f.write_text(f"include: {find_scenario('survey')}\n"
                 f"name: survey\n"
                 f"instances:\n"
                 f"  vehicle: {{fmu: {d / 'Auv.fmu'}}}\n"
                 f"  sensors: {{fmu: {d / 'AuvSensors.fmu'}}}\n"
                 f"  control: {{fmu: {d / 'AuvControl.fmu'}}}\n")
    return str(f)


def _env():
    env = dict(os.environ)
    if os.environ.get("CAMPAIGN_TEST_JIT", "") in ("", "0"):
        env["AUV_NO_JIT"] = "1"
    return env


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    saved = os.environ.get("AUV_NO_JIT")
    if "AUV_NO_JIT" in _env():
        os.environ["AUV_NO_JIT"] = _env()["AUV_NO_JIT"]  # the worker processes inherit it
    try:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=40)
        c = Client(cluster)
        yield c
        c.close()
        cluster.close()
    finally:
        if saved is None:
            os.environ.pop("AUV_NO_JIT", None)
        else:
            os.environ["AUV_NO_JIT"] = saved


def _runs_executed(client) -> int:
    return sum(client.run(runs_executed).values())


@pytest.fixture(scope="module")
def campaign(client, tmp_path_factory, survey):
    out = tmp_path_factory.mktemp("campaign")
    before = _runs_executed(client)
    table = sweep(survey, VARY, SEEDS, client=client, out_dir=out, stop_time=STOP, progress=False)
    return table, out, _runs_executed(client) - before


def test_campaign_runs_records_failures_and_writes_its_files(campaign):
    table, out, executed = campaign
    assert executed == 6
    assert len(table) == 6
    assert table["vehicle.Length"] == [-1.0, -1.0, 1.8, 1.8, 2.2, 2.2]
    assert table["sensors.Seed"] == [1, 2, 1, 2, 1, 2]
    assert table["status"] == ["failed", "failed", "completed", "completed", "completed", "completed"]
    for r in table.where(status="failed"):
        assert "Length" in r["reason"] and "must be positive" in r["reason"], r["reason"]
        assert r["distance_run_m"] is None
    for r in table.where(status="completed"):
        assert r["reason"] == f"reached stop time {STOP:g} s"
        assert r["distance_run_m"] > 20  # ~1.3 m/s for 20 s
        assert r["simulated_time_s"] == STOP
    # the seeds change the instruments' noise, hence the run
    a, b = table.where(**{"vehicle.Length": 1.8})
    assert a["cross_track_error_m.rms"] != b["cross_track_error_m.rms"]
    # the files
    assert (out / "campaign.csv").read_text().count("\n") == 7
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is in the outputs extra")
    assert pq.read_table(out / "campaign.parquet").column("sensors.Seed").to_pylist() == [1.0, 2.0] * 3
    assert (out / "campaign.yaml").is_file()
    assert (out / "plots" / "vs_vehicle.Length.png").stat().st_size > 10000
    for r in table:
        d = out / r["run_dir"]
        # a run whose start value the FMU refused ran nothing: no results.csv
        assert (d / "scenario.yaml").is_file() and (d / "results.csv").is_file() == (r["status"] == "completed")
        s = json.loads((d / "summary.json").read_text())
        assert s["status"] == r["status"]
        assert s["campaign"]["finished"] is True and s["campaign"]["run_id"] == r["run_id"]
        assert s["campaign"]["values"] == {"vehicle.Length": r["vehicle.Length"], "sensors.Seed": r["sensors.Seed"]}
    assert not (out / ".campaign.lock").exists()


def test_every_run_is_identical_to_running_its_scenario_alone(campaign, tmp_path):
    table, out, _ = campaign
    procs = []
    for r in table.where(status="completed"):
        scen = out / r["run_dir"] / "scenario.yaml"
        alone = tmp_path / r["run_id"]
        p = subprocess.Popen([sys.executable, "-m", "auv_cosim", "run", str(scen), "--out", str(alone), "--no-plots", "-q"],
                             cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append((r, alone, p))
    assert len(procs) == 4
    for r, alone, p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
        mine = (out / r["run_dir"] / "results.csv").read_bytes()
        assert (alone / "results.csv").read_bytes() == mine, r["run_id"]
        assert mine.count(b"\n") == int(STOP / 0.1) + 2  # header + t = 0 .. STOP
    # a failing run is refused alone too (the FMU refuses its Length at initialisation), for the
    # same reason
    bad = table.where(status="failed")[0]
    p = subprocess.run([sys.executable, "-m", "auv_cosim", "run", str(out / bad["run_dir"] / "scenario.yaml"),
                        "--out", str(tmp_path / "bad"), "--no-plots", "-q"], env=_env(), capture_output=True, timeout=300)
    assert p.returncode == 2
    assert b"vehicle.Length refused by the FMU at initialisation" in p.stderr and b"must be positive" in p.stderr
    assert not (tmp_path / "bad" / "summary.json").exists()


def test_resumed_campaign_reruns_nothing_finished(campaign, client, survey):
    table, out, _ = campaign
    files = sorted(p for p in (out / "runs").rglob("*") if p.is_file())
    mtimes = {p: p.stat().st_mtime_ns for p in files}
    before = _runs_executed(client)
    again = sweep(survey, VARY, SEEDS, client=client, out_dir=out, stop_time=STOP, progress=False)
    assert _runs_executed(client) == before  # nothing was submitted
    assert {p: p.stat().st_mtime_ns for p in files} == mtimes
    assert all(r["reused"] for r in again)
    assert again["status"] == table["status"]
    assert again["distance_run_m"] == table["distance_run_m"]


def test_interrupted_run_is_the_only_one_rerun(campaign, client, survey):
    table, out, _ = campaign
    victim = out / table[3]["run_dir"]
    (victim / "summary.json").unlink()  # as if the campaign had stopped during this run
    others = {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("results.csv") if victim not in p.parents}
    old = (victim / "results.csv").read_bytes()
    before = _runs_executed(client)
    again = sweep(survey, VARY, SEEDS, client=client, out_dir=out, stop_time=STOP, progress=False)
    assert _runs_executed(client) - before == 1
    assert [r["reused"] for r in again] == [True, True, True, False, True, True]
    assert again[3]["status"] == "completed"
    assert (victim / "results.csv").read_bytes() == old
    assert {p: p.stat().st_mtime_ns for p in others} == others


def test_changed_inputs_rerun_and_failed_runs_retry_on_request(campaign, client, survey):
    table, out, _ = campaign
    before = _runs_executed(client)
    t = sweep(survey, VARY, SEEDS, client=client, out_dir=out, stop_time=STOP, progress=False, retry_failed=True)
    assert _runs_executed(client) - before == 2  # the two failed runs, nothing else
    assert t["status"] == table["status"]
    before = _runs_executed(client)
    # an extra value: only its runs are new
    t = sweep(survey, {"vehicle.Length": [-1.0, 1.8, 2.2, 2.0]}, SEEDS, client=client, out_dir=out,
              stop_time=STOP, progress=False)
    assert _runs_executed(client) - before == 2
    assert len(t) == 8 and sum(not r["reused"] for r in t) == 2


def test_workers_without_the_campaign_folder_send_the_files_back(client, campaign, tmp_path, survey):
    """On a cluster without a shared file system the workers run in a temporary folder and
    return the files; the client writes them (forced here, the workers could see the folder)."""
    table, out, _ = campaign
    c = build_campaign(survey, {"vehicle.Length": [1.8]}, SEEDS, out_dir=tmp_path / "t", stop_time=STOP)
    t = execute(CampaignPlan(c), client=client, progress=False, plots=False, force_transfer=True)
    assert t["status"] == ["completed", "completed"]
    for r in t:
        same = table.where(**{"vehicle.Length": 1.8, "sensors.Seed": r["sensors.Seed"]})[0]
        assert (tmp_path / "t" / r["run_dir"] / "results.csv").read_bytes() == \
            (out / same["run_dir"] / "results.csv").read_bytes()
        s = json.loads((tmp_path / "t" / r["run_dir"] / "summary.json").read_text())
        assert s["campaign"]["finished"]


def test_cli_sweep_with_a_campaign_file(tmp_path, survey):
    """`auv-cosim sweep` with its own local cluster (--workers 2), a campaign file, and
    command-line options taking precedence over the file."""
    f = tmp_path / "c.yaml"
    f.write_text(f"scenario: {survey}\n"
                 "vary:\n  vehicle.Length: [-1, 2.0]\nstop_time: 500\nout: camp\n")
    p = subprocess.run([sys.executable, "-m", "auv_cosim", "sweep", str(f), "--stop-time", "5", "--workers", "2"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr  # one run failed
    assert "2 runs (1 completed, 1 failed" in p.stdout
    assert "vehicle.Length=-1: failed: " in p.stdout and "Length = -1.0 must be positive" in p.stdout
    assert "vehicle.Length refused by the FMU at initialisation" in p.stdout
    assert "free(): corrupted" not in p.stderr
    rows = (tmp_path / "camp" / "campaign.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("run_id,vehicle.Length,status,reason,")
    scen = (tmp_path / "camp" / "runs" / "vehicle.Length=2" / "scenario.yaml").read_text()
    assert "stop_time: 5.0" in scen
    # resuming from the campaign folder's own campaign.yaml, from another folder, runs nothing
    p = subprocess.run([sys.executable, "-m", "auv_cosim", "sweep", "campaign.yaml", "--workers", "2"],
                       cwd=tmp_path / "camp", env=_env(), capture_output=True, text=True, timeout=300)
    assert "2 from an earlier sweep" in p.stdout, p.stdout + p.stderr


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sweep_on_an_existing_cluster_started_with_the_dask_commands(tmp_path, campaign, survey):
    """`dask scheduler` + `dask worker --nworkers 2 --nthreads 1` started from another folder
    (as on other machines), then `auv-cosim sweep --scheduler ADDRESS`."""
    import time

    table, out, _ = campaign
    port = _free_port()
    dask_cmd = str(Path(sys.executable).parent / "dask")
    wd = tmp_path / "elsewhere"
    wd.mkdir()
    procs = []
    try:
        procs.append(subprocess.Popen([dask_cmd, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                      cwd=wd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        procs.append(subprocess.Popen([dask_cmd, "worker", f"tcp://127.0.0.1:{port}", "--nworkers", "2", "--nthreads", "1",
                                       "--no-dashboard"], cwd=wd, env=_env(), stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE))
        from distributed import Client

        deadline = time.time() + 60
        while True:
            try:
                with Client(f"tcp://127.0.0.1:{port}", timeout="5s") as c:
                    c.wait_for_workers(2, timeout=60)
                break
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)
        p = subprocess.run([sys.executable, "-m", "auv_cosim", "sweep", survey, "--vary", "vehicle.Length=1.8",
                            "--seeds", "2", "--stop-time", str(STOP), "--scheduler", f"tcp://127.0.0.1:{port}",
                            "--out", str(tmp_path / "c")], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "running on scheduler" in p.stderr
        for seed in (1, 2):
            rid = f"vehicle.Length=1.8+sensors.Seed={seed}"
            same = table.where(**{"vehicle.Length": 1.8, "sensors.Seed": seed})[0]
            assert (tmp_path / "c" / "runs" / rid / "results.csv").read_bytes() == \
                (out / same["run_dir"] / "results.csv").read_bytes()
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        if len(procs) > 1 and procs[1].stderr is not None:
            err = procs[1].stderr.read().decode(errors="replace")
            assert "free(): corrupted" not in err
