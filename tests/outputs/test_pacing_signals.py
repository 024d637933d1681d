"""A paced run is refused before it starts when its waits cannot be slept, and Ctrl-C and
SIGTERM end it at once while it waits, with its summary written as for an unpaced run."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auv_cosim.master.interrupt import Interrupt
from auv_cosim.outputs.pacing import RealTimePacer

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("factor", ["1e-300", "inf", "nan", "0", "-2", "1e-320"])
def test_a_factor_whose_wait_cannot_be_slept_is_refused_before_the_run(tmp_path, capsys, factor):
    from auv_cosim.cli import main

    out = tmp_path / "out"
    code = main(["run", "depth_step", "--stop-time", "2", "--no-plots", "--out", str(out), "--realtime", factor])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--realtime" in err and "Traceback" not in err
    assert not out.exists()


def test_the_pacer_s_wait_ends_when_the_interrupt_s_signal_comes():
    """In-process: SIGTERM sent to ourselves 0.2 s into a wait of an hour ends it at once."""
    pacer = RealTimePacer(1e-4)   # 0.1 s steps wait 1000 s
    with Interrupt() as intr:
        pacer.wake_on(intr)
        pacer.pace(0.0)
        timer = __import__("threading").Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM))
        t0 = time.monotonic()
        timer.start()
        pacer.pace(0.1)
        waited = time.monotonic() - t0
        timer.join()
    assert intr.flag and intr.signame == "SIGTERM"
    assert waited < 5.0
    assert pacer.summary()["points"] == 1   # the interrupted point was never let go


@pytest.mark.usefixtures("fmus_built")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_a_paced_run_promptly_with_its_summary(tmp_path, sig):
    """`run depth_step --realtime 1e-6` waits 1e5 s for its second point: one signal (SIGTERM,
    or the first Ctrl-C) ends it within seconds, exit 130, its rows and summary.json kept."""
    out = tmp_path / "paced"
    proc = subprocess.Popen([sys.executable, "-m", "auv_cosim", "run", "depth_step", "--realtime", "1e-6",
                             "--no-plots", "--no-progress", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        staged = lambda: any(p.name.startswith(".") for p in out.iterdir()) if out.is_dir() else False  # noqa: E731
        while not staged() and not (out / "results.csv").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(2.0)   # the FMUs load and the first step is made; then it waits
        assert proc.poll() is None, proc.communicate()
        t0 = time.monotonic()
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert took < 10.0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted"
    assert summary["reason"].startswith("interrupted by ")
    assert summary["rows"] >= 1 and "realtime" in summary
    lines = (out / "results.csv").read_text().splitlines()
    assert len(lines) == summary["rows"] + 1
