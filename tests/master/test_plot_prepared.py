"""The AUV's figures built ahead (auv_cosim/vehicles/auv/host/plots.py ``prepare``: in the plot process, while
the run steps, by it and a helper process it forks) and filled after the run: the files are
those drawn in one go, byte for byte, whatever becomes of the helper; and a drawer forked in the
plot process holds none of its pipes to the master (auv_cosim/master/plot_process.py ``fork_drawer``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from master_helpers import REPO, _env

pytestmark = pytest.mark.usefixtures("fmus_built")

PLOTS = ["actuators.png", "attitude.png", "battery.png", "depth.png", "navigation.png", "track.png"]

#: a fresh interpreter runs depth_step for 60 s without plots, then draws its plots in one go
#: (into OUT/alone) and as MODE says (into OUT/drawn), and reports what happened
SCRIPT = r"""
import json, os, signal, sys
from pathlib import Path
import numpy as np
from auv_cosim import master
from auv_cosim.master.layout import layout_row
from auv_cosim.master.runner import find_scenario
import auv_cosim.vehicles.auv.host.plots as ap

out, mode = Path(sys.argv[1]), sys.argv[2]
r = master.run("depth_step", out_dir=out / "run", stop_time=60, progress=False, echo_messages=False, plots=False)


def plan_of():
    return master.build_plan(master.load_scenario(find_scenario("depth_step")), stop_time=60)


plan = plan_of()
layout = layout_row(plan)
assert layout.colmap == r.colmap
run = master.RunData(plan, r.data, r.colmap)
(out / "alone").mkdir()
(out / "drawn").mkdir()
ap._draw(run, out / "alone", lambda name: True)
report = {}
ap.prepare(master.RunData(plan, np.empty((0, len(layout.columns))), layout.colmap))
ready = ap._ready
helper = report["helper"] = ready.helper
report["built_here"] = sorted(name for name, _, _ in ready.figures)
if mode == "helper_dies":
    os.kill(helper, signal.SIGKILL)
if mode == "another_run":   # the same scenario, another plan: the figures built ahead are not used
    run = master.RunData(plan_of(), r.data, r.colmap)
files = ap.make_plots(run, out / "drawn")
report["files"] = sorted(p.name for p in files)
report["ready_after"] = ap._ready is not None
try:
    report["helper_left"] = os.waitpid(helper, os.WNOHANG) != (0, 0)
except ChildProcessError:
    report["helper_left"] = False
print(json.dumps(report), flush=True)
os._exit(0)
"""


def draw(mode: str, out) -> dict:
    env = _env()
    env.pop("AUV_MASTER_PLOTS", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(out), mode], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def same_files(out) -> None:
    for name in PLOTS:
        drawn, alone = (out / "drawn" / name).read_bytes(), (out / "alone" / name).read_bytes()
        assert drawn[:8] == b"\x89PNG\r\n\x1a\n" and drawn == alone, name


@pytest.mark.parametrize("mode", ["normal", "helper_dies", "another_run"])
def test_figures_built_ahead_are_filled_into_the_files_drawn_in_one_go(tmp_path, mode):
    """Built ahead (the helper builds attitude and actuators, this process the rest) and filled
    after the run: the same files as built and filled in one go. A helper killed before the
    rows come leaves its share to this process; figures built for another plan are not used
    (the helper is ended, the plots drawn afresh). No helper is left behind in any case."""
    report = draw(mode, tmp_path)
    if os.cpu_count() == 1:
        pytest.fail("one CPU: no helper is forked; this test needs two")
    assert isinstance(report["helper"], int), report
    assert report["built_here"] == ["battery.png", "depth.png", "navigation.png", "track.png"], report
    assert report["files"] == PLOTS and not report["ready_after"] and not report["helper_left"], report
    same_files(tmp_path)


def test_a_drawer_forked_in_the_plot_process_holds_none_of_its_pipes_to_the_master():
    """The master reads the plot process's answer to the end of the pipe: a drawer the plot
    process forks must not keep that pipe open (the master would wait for the drawer)."""
    script = ("import os, time, auv_cosim.master.plot_process as pp\n"
              "r, w = os.pipe()\n"
              "pp._master_pipes.add(w)\n"
              "pid = pp.fork_drawer()\n"
              "if pid == 0:\n"
              "    time.sleep(5)\n"
              "    os._exit(0)\n"
              "os.close(w)\n"
              "start = time.monotonic()\n"
              "os.read(r, 1)  # the end of the pipe: no process holds its writing end\n"
              "waited = time.monotonic() - start\n"
              "os.kill(pid, 9)\n"
              "os.waitpid(pid, 0)\n"
              "print(waited < 2.5, flush=True)\n")
    env = _env()
    env.pop("AUV_MASTER_PLOTS", None)
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True", "the forked drawer kept the plot process's pipe to the master open"


@pytest.mark.parametrize("by", ["plot_process", "master"])
def test_the_plot_process_gets_ready_at_a_lower_priority_and_draws_at_its_own(by):
    """While the run steps, the plot process (and the helper it forks then) runs PREPARE_NICE
    lower than the master; when the rows come, both are back at the master's priority, raised
    by the master as it hands them over or by the plot process as it gets them (raising it
    again needs CAP_SYS_NICE or RLIMIT_NICE: without, the test says so and fails)."""
    script = ("import json, os, sys, time, auv_cosim.master.plot_process as pp\n"
              "start = os.getpriority(os.PRIO_PROCESS, 0)\n"
              "by_master = sys.argv[1] == 'master'\n"
              "r, w = os.pipe()\n"
              "go_r, go_w = os.pipe()\n"
              "pid = os.fork()\n"
              "if pid == 0:  # as the plot process: a group of its own, lowered, a helper forked\n"
              "    os.setpgid(0, 0)\n"
              "    before = pp._lower_priority()\n"
              "    lowered = os.getpriority(os.PRIO_PROCESS, 0)\n"
              "    helper = os.fork()\n"
              "    if helper == 0:\n"
              "        time.sleep(30)\n"
              "        os._exit(0)\n"
              "    helper_lowered = os.getpriority(os.PRIO_PROCESS, helper)\n"
              "    if by_master:  # the master raises the group's priority when it hands the rows over\n"
              "        os.write(w, b'lowered ')\n"
              "        os.read(go_r, 1)\n"
              "    else:\n"
              "        pp._restore_priority(before)\n"
              "    report = [before, lowered, helper_lowered, os.getpriority(os.PRIO_PROCESS, 0),\n"
              "              os.getpriority(os.PRIO_PROCESS, helper)]\n"
              "    os.kill(helper, 9)\n"
              "    os.waitpid(helper, 0)\n"
              "    os.write(w, json.dumps(report).encode())\n"
              "    os._exit(0)\n"
              "os.close(w)\n"
              "if by_master:\n"
              "    assert os.read(r, 8) == b'lowered '\n"
              "    pp._restore_priority(start, pid)\n"
              "    os.write(go_w, b'g')\n"
              "report = json.loads(os.read(r, 1000))\n"
              "os.waitpid(pid, 0)\n"
              "print(json.dumps([start, pp.PREPARE_NICE] + report), flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", script, by], cwd=REPO, env=_env(), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    start, nice, before, lowered, helper_lowered, restored, helper_restored = json.loads(proc.stdout)
    assert before == start and lowered == helper_lowered == min(start + nice, 19) and nice > 0
    if restored != start and not (hasattr(os, "geteuid") and os.geteuid() == 0):
        pytest.fail("this user may not raise a priority again (no CAP_SYS_NICE, RLIMIT_NICE too low): the plot "
                    "process draws at the lower one here; the rest of this test needs the privilege")
    assert restored == helper_restored == start


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
def test_a_pipe_to_a_drawing_process_holds_a_mebibyte():
    """The run's rows cross to the plot process (and on to its helper) in a few writes, not a
    hundred of 64 KiB each waiting for the reader (auv_cosim/master/plot_process.py ``widen_pipe``)."""
    import fcntl

    from auv_cosim.master.plot_process import PIPE_SIZE, widen_pipe

    read_fd, write_fd = os.pipe()
    try:
        widen_pipe(write_fd)
        assert fcntl.fcntl(write_fd, getattr(fcntl, "F_GETPIPE_SZ", 1032)) == PIPE_SIZE == 1 << 20
        os.set_blocking(write_fd, False)
        assert os.write(write_fd, bytes(PIPE_SIZE)) == PIPE_SIZE  # whole, with nobody reading
    finally:
        os.close(read_fd)
        os.close(write_fd)
