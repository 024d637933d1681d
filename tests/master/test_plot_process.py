"""The plot process (auv_cosim/master/plot_process.py): forked before the FMUs start, it draws the plots
after the run. Whatever happens to it, the run's plots (or its plot error) are those the master
would have drawn alone, and no process of it is left behind."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from master_helpers import REPO, _env, master

pytestmark = pytest.mark.usefixtures("fmus_built")

PLOTS = ["actuators.png", "attitude.png", "battery.png", "depth.png", "navigation.png", "track.png"]

#: a fresh interpreter runs master.run with the plot process changed as MODE says, then reports
#: the plot process's pid, whether it is gone, the files and the plot error
SCRIPT = r"""
import json, os, sys
import auv_cosim.master.plot_process as pp
import auv_cosim.master.runner as runner

mode, out = sys.argv[1], sys.argv[2]
if mode == "dies":            # the plot process dies before it reads the rows
    pp._serve = lambda *args: os._exit(3)
elif mode == "hangs":         # the plot process never answers
    import time
    pp._serve = lambda *args: time.sleep(600) or 0
elif mode == "fails":         # a plot raises, in the plot process and in the master alike
    def failing(*args, **kwargs):
        raise ValueError("no plot today")
    pp.make_plots = runner.make_plots = failing
elif mode == "run_raises":    # the run itself ends in an exception
    def raising(*args, **kwargs):
        raise RuntimeError("the run broke")
    runner.simulate = raising
elif mode == "pipe":          # no shared memory on this platform: the rows go down the pipe
    pp._shared_memory = lambda: None

# every process that maps the run's rows from shared memory notes its pid
mapped_log = out.rstrip("/") + ".mapped"
real_rows_from_handle = pp.rows_from_handle


def rows_from_handle(handle):
    with open(mapped_log, "a") as f:
        f.write(f"{os.getpid()}\n")
    return real_rows_from_handle(handle)


pp.rows_from_handle = rows_from_handle

started = []
real_start = pp.PlotProcess.start.__func__


def start(cls, plan):
    process = real_start(cls, plan)
    started.append(process.pid if process is not None else None)
    if mode == "normal" and process is not None:
        # forked already: only the master's fallback drawing fails, so plots drawn in the
        # master instead of the plot process show as a plot error
        def master_draws(*args, **kwargs):
            raise RuntimeError("the master drew the plots, not the plot process")
        pp.make_plots = master_draws
    return process


pp.PlotProcess.start = classmethod(start)
from auv_cosim import master

report = {}
try:
    r = master.run("depth_step", out_dir=out, stop_time=60, progress=False, echo_messages=False)
    report.update(files=sorted(p.name for p in r.plots), plot_error=r.summary.get("plot_error"))
except RuntimeError as e:
    report["raised"] = str(e)
pid = report["pid"] = started[0] if started else None
report["mapped"] = len(set(open(mapped_log).read().split())) if os.path.exists(mapped_log) else 0
try:
    os.kill(pid, 0)
    report["gone"] = False
except ProcessLookupError:
    report["gone"] = True
print(json.dumps(report), flush=True)
os._exit(0)
"""


def run_with(mode: str, out, **env) -> dict:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, mode, str(out)], cwd=REPO, env=dict(_env(), **env),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The plots the master draws alone (AUV_MASTER_PLOTS=serial: no plot process)."""
    out = tmp_path_factory.mktemp("alone")
    env = dict(os.environ, AUV_MASTER_PLOTS="serial")
    r = subprocess.run([sys.executable, "-m", "auv_cosim", "run", "depth_step", "--stop-time", "60", "--out", str(out)],
                       cwd=REPO, env=dict(_env(), **env), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("mode", ["normal", "pipe"])
def test_the_plot_process_draws_the_plots_the_master_draws_alone(tmp_path, alone, mode):
    report = run_with(mode, tmp_path / "out")
    assert isinstance(report["pid"], int) and report["gone"], report
    assert report["files"] == PLOTS and report["plot_error"] is None, report
    for name in PLOTS:
        assert (tmp_path / "out" / name).read_bytes() == (alone / name).read_bytes(), name
    # the rows in shared memory, mapped by the plot process and the helper it forked (Linux);
    # down the pipe where there is none
    if mode == "normal" and hasattr(os, "memfd_create"):
        assert report["mapped"] == 2, report
    if mode == "pipe":
        assert report["mapped"] == 0, report


def test_a_plot_process_that_dies_leaves_the_plots_to_the_master(tmp_path, alone):
    report = run_with("dies", tmp_path)
    assert report["gone"] and report["files"] == PLOTS and report["plot_error"] is None, report
    for name in PLOTS:
        assert (tmp_path / name).read_bytes() == (alone / name).read_bytes(), name


def test_a_plot_process_that_never_answers_is_killed_and_the_master_draws(tmp_path, alone):
    started = time.monotonic()
    report = run_with("hangs", tmp_path, AUV_MASTER_PLOT_TIMEOUT="2")
    assert time.monotonic() - started < 120, "the master waited for the stuck plot process"
    assert isinstance(report["pid"], int) and report["gone"], report
    assert report["files"] == PLOTS and report["plot_error"] is None, report
    for name in PLOTS:
        assert (tmp_path / name).read_bytes() == (alone / name).read_bytes(), name


def test_a_failing_plot_is_the_masters_own_plot_error(tmp_path):
    report = run_with("fails", tmp_path)
    assert report["plot_error"] == "ValueError: no plot today", report
    assert report["files"] == [] and report["gone"], report
    assert not list(tmp_path.glob("*.png"))
    assert (tmp_path / "summary.json").is_file()


def test_a_run_that_raises_ends_its_plot_process(tmp_path):
    report = run_with("run_raises", tmp_path)
    assert report["raised"] == "the run broke", report
    assert isinstance(report["pid"], int) and report["gone"], report


def test_no_plot_process_without_plots_or_when_told_serial(tmp_path):
    """`--no-plots` forks nothing; AUV_MASTER_PLOTS=serial neither (the files are drawn here)."""
    script = ("from auv_cosim import master\nimport json, os, auv_cosim.master.plot_process as pp\n"
              "calls = []\n"
              "real = pp.os.fork\n"
              "pp.os.fork = lambda: calls.append(1) or real()\n"
              "r = master.run('depth_step', out_dir=os.environ['OUT'], stop_time=5, progress=False, "
              "echo_messages=False, plots=os.environ['PLOTS'] == '1')\n"
              "print(json.dumps([len(calls), len(r.plots)]), flush=True)\n"
              "os._exit(0)\n")
    seen = {}
    for plots, serial in (("0", ""), ("1", "serial"), ("1", "")):
        env = dict(_env(), OUT=str(tmp_path / f"{plots}{serial}"), PLOTS=plots, AUV_MASTER_PLOTS=serial)
        proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        seen[(plots, serial)] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {("0", ""): [0, 0], ("1", "serial"): [0, len(PLOTS)], ("1", ""): [1, len(PLOTS)]}, seen


@pytest.mark.parametrize("stdout", ["none", "closed"])
def test_a_master_without_a_usable_stdout_still_draws_its_plots(tmp_path, stdout):
    """A library caller with no stdout (sys.stdout None: pythonw, a daemon) or a closed one: the
    plot process is forked as usual and the run completes with every plot (flushing the streams
    before the fork must not raise)."""
    script = ("from auv_cosim import master\nimport json, os, sys, auv_cosim.master.plot_process as pp\n"
              "calls = []\n"
              "real = pp.os.fork\n"
              "pp.os.fork = lambda: calls.append(1) or real()\n"
              "report = sys.stderr\n"
              "if os.environ['STDOUT'] == 'none':\n"
              "    sys.stdout = None\n"
              "else:\n"
              "    sys.stdout.close()\n"
              "r = master.run('depth_step', out_dir=os.environ['OUT'], stop_time=5, progress=False, "
              "echo_messages=False)\n"
              "report.write(json.dumps([r.status, len(calls), sorted(p.name for p in r.plots), "
              "r.summary.get('plot_error')]) + '\\n')\n"
              "report.flush()\n"
              "os._exit(0)\n")
    env = dict(_env(), OUT=str(tmp_path), STDOUT=stdout, AUV_MASTER_PLOTS="")
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stderr.strip().splitlines()[-1]) == ["completed", 1, PLOTS, None], proc.stderr


def _alive(pid: int) -> bool:
    """True while the process exists and is not a zombie (an orphan's reaper may be slow)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _gone_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` is gone within ``seconds``; if not, it is killed here (a test
    leaves nothing behind) and the answer is False."""
    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        os.kill(pid, 9)
        return False
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's prctl")
def test_a_plot_process_dies_with_a_master_killed_while_it_draws(tmp_path):
    """A master killed by SIGKILL closes nothing: its plot process, busy drawing (here: a long
    sleep in its place), must not live on to write an old run's PNGs into the folder."""
    pid_file = tmp_path / "plot_process.pid"
    script = ("import os, signal, sys, time, auv_cosim.master.plot_process as pp\n"
              "pp._serve = lambda *args: time.sleep(60) or 0\n"
              "process = pp.PlotProcess.start(None)\n"
              "open(sys.argv[1], 'w').write(str(process.pid))\n"
              "time.sleep(0.5)\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    # no pipes: the plot process inherits the master's streams, and waiting for their end would
    # wait for it
    proc = subprocess.run([sys.executable, "-c", script, str(pid_file)], cwd=REPO, env=_env(),
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == -9
    child = int(pid_file.read_text())
    assert _gone_within(child, 10.0), "the plot process outlived its master"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's prctl")
def test_the_child_a_plot_function_forks_dies_with_its_parent(tmp_path):
    """The AUV's plots share the drawing with a forked child (auv_cosim.vehicles.auv.host.plots). When the
    process that forked it is killed by SIGKILL while the child draws (here: a long sleep in its
    place), the child must not live on."""
    pid_file = tmp_path / "drawer.pid"
    script = ("import os, signal, sys, time, auv_cosim.vehicles.auv.host.plots as ap\n"
              "ap._mpl = lambda: None\n"
              "def fake_draw(run, out_dir, mine):\n"
              "    if mine('actuators.png'):  # the child's share\n"
              "        open(sys.argv[1], 'w').write(str(os.getpid()))\n"
              "        time.sleep(60)\n"
              "    else:\n"
              "        time.sleep(0.5)\n"
              "        os.kill(os.getpid(), signal.SIGKILL)\n"
              "ap._draw = fake_draw\n"
              "ap.make_plots(None, None)\n")
    env = dict(_env())
    env.pop("AUV_MASTER_PLOTS", None)
    proc = subprocess.run([sys.executable, "-c", script, str(pid_file)], cwd=REPO, env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    assert proc.returncode == -9
    if not pid_file.exists():
        pytest.fail("no child drew: auv_cosim.vehicles.auv.host.plots did not fork (one CPU, or AUV_MASTER_PLOTS=serial?)")
    child = int(pid_file.read_text())
    assert _gone_within(child, 10.0), "the drawing child outlived the process that forked it"


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="no memfd_create on this platform: rows go down the pipe")
def test_rows_in_shared_memory_are_the_rows_and_each_process_writes_its_own_copy():
    import numpy as np

    from auv_cosim.master import plot_process as pp

    data = np.random.default_rng(5).standard_normal((1001, 7))
    data[3, 2] = np.nan
    fd = pp._shared_memory()
    try:
        handle = pp._share_rows(fd, data[:, :])
        assert handle.shape == (1001, 7) and handle.nbytes == data.nbytes
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # a process forked afterwards maps them, and scribbles on its copy
            code = 1
            try:
                rows = pp.rows_from_handle(handle)
                same = rows.tobytes() == data.tobytes()
                rows[:] = 0.0
                os.write(write, b"1" if same else b"0")
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        answer = os.read(read, 1)
        os.close(read)
        assert os.waitpid(pid, 0)[1] == 0
        assert answer == b"1"
        mine = pp.rows_from_handle(handle)
        assert mine.tobytes() == data.tobytes()  # the child's writes stayed in the child
        pp._mapped = (mine, handle)
        assert pp.rows_handle(mine) is handle and pp.rows_handle(mine.copy()) is None
    finally:
        pp._mapped = None
        os.close(fd)


def test_end_drawer_kills_the_drawer_and_its_group_and_reaps_it():
    import signal as _signal
    import time as _time

    from auv_cosim.master.plot_process import end_drawer

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # a drawer leading its group, with a grandchild of its own
        try:
            os.setpgid(0, 0)
            grandchild = os.fork()
            if grandchild == 0:
                _time.sleep(60)
                os._exit(0)
            os.write(write_fd, str(grandchild).encode())
            _time.sleep(60)
        finally:
            os._exit(0)
    os.close(write_fd)
    grandchild = int(os.read(read_fd, 64))
    os.close(read_fd)
    end_drawer(pid)
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(pid, os.WNOHANG)
    def dead(pid):  # gone, or a zombie its new parent has not reaped yet
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
        except FileNotFoundError:
            return True
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            return False

    deadline = _time.monotonic() + 5.0
    while _time.monotonic() < deadline:  # the grandchild died with the group
        if dead(grandchild):
            break
        _time.sleep(0.01)
    else:
        os.kill(grandchild, _signal.SIGKILL)
        pytest.fail("the drawer's group outlived end_drawer")
    end_drawer(pid)  # already gone: no error
    child = os.fork()
    if child == 0:
        os._exit(0)
    end_drawer(child, kill=False)  # only waited for
    with pytest.raises(ChildProcessError):
        os.waitpid(child, os.WNOHANG)
