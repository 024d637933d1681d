"""How the local cluster's worker processes start (auv_cosim.campaigns.sweep.start_worker_forkserver):
the first local cluster of a process forks its workers from a forkserver that has imported
WORKER_PRELOAD, with SIGINT ignored; later clusters, and AUV_CAMPAIGN_WORKER_START=spawn, spawn
them (Dask's default). What is preloaded never includes a package an FMU bundles (the FMU must
import its own copy). Each case runs in a fresh process: the forkserver is per process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# imported here, at collection (tests/master/ is a package named `master` too); the module, not
# the function `sweep` that auv_cosim.campaigns exports under the same name
import auv_cosim.campaigns.sweep  # noqa: F401

SWEEP = sys.modules["auv_cosim.campaigns.sweep"]
REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, os, signal, sys
sw = sys.modules.get("auv_cosim.campaigns.sweep") or __import__("auv_cosim.campaigns.sweep", fromlist=["_"])

def probe():
    return {"ppid": os.getppid(), "modules": [m for m in sw.WORKER_PRELOAD if m in sys.modules],
            "sigint_ignored": signal.getsignal(signal.SIGINT) == signal.SIG_IGN}

if __name__ == "__main__":
    out = {"pid": os.getpid(), "clusters": []}
    for _ in range(2):
        ready = sw.start_worker_forkserver()
        client, cluster = sw._make_client(2, None, 2)
        out["clusters"].append({"ready": ready, "workers": list(client.run(probe).values())})
        client.close()
        cluster.close()
    print(json.dumps(out))
    sys.stdout.flush()
    os._exit(0)
"""


def _probe(tmp_path: Path, **env) -> dict:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    e = {k: v for k, v in os.environ.items() if k != "AUV_CAMPAIGN_WORKER_START"}
    e.update(PYTHONPATH=str(REPO), **env)
    r = subprocess.run([sys.executable, str(script)], cwd=str(REPO), env=e, capture_output=True, text=True,
                       timeout=180)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="the forkserver start method is checked on Linux only")
def test_first_cluster_forks_warm_workers_later_ones_spawn(tmp_path):
    out = _probe(tmp_path)
    first, second = out["clusters"]
    assert first["ready"] is True and second["ready"] is False
    assert len(first["workers"]) == 2 and len(second["workers"]) == 2
    for w in first["workers"]:
        assert w["ppid"] != out["pid"], "a worker of the first cluster was not forked from the forkserver"
        assert w["modules"] == list(SWEEP.WORKER_PRELOAD), w
        assert w["sigint_ignored"], "Ctrl-C at the terminal must reach only the sweep, not its workers"
    assert len({w["ppid"] for w in first["workers"]}) == 1  # the same forkserver
    for w in second["workers"]:
        assert w["ppid"] == out["pid"], "a later cluster must spawn its workers (what they inherit changed)"
        assert w["sigint_ignored"]


def test_spawn_on_request(tmp_path):
    out = _probe(tmp_path, AUV_CAMPAIGN_WORKER_START="spawn")
    for cluster in out["clusters"]:
        assert cluster["ready"] is False
        for w in cluster["workers"]:
            assert w["ppid"] == out["pid"] and w["sigint_ignored"]
            assert "numba" not in w["modules"]


def test_nothing_preloaded_is_a_package_an_fmu_bundles():
    fmus = sorted((REPO / "fmus").glob("*.fmu"))
    if not fmus:
        pytest.fail("the FMUs are not built: run ./build.sh first")
    bundled = set()
    for fmu in fmus:
        with zipfile.ZipFile(fmu) as z:
            for name in z.namelist():
                parts = name.split("/")
                if parts[0] == "resources" and len(parts) > 2:
                    bundled.add(parts[1])
    # what the check is about is really there: the FMUs' own package, pythonfmu
    assert "pythonfmu" in bundled and any(name.startswith("_auv_cosim_") for name in bundled), bundled
    preloaded = {m.split(".")[0] for m in SWEEP.WORKER_PRELOAD}
    assert not preloaded & bundled


def test_the_exit_module_does_nothing_outside_the_forkserver():
    code = ("import atexit; atexit.register(print, 'atexit ran'); import auv_cosim.campaigns.forkserver_exit as m; "
            "print(m.in_forkserver())")
    r = subprocess.run([sys.executable, "-c", code], cwd=str(REPO), capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert r.stdout.split() == ["False", "atexit", "ran"], (r.stdout, r.stderr)
