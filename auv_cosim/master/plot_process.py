"""The plots of a run, drawn by a process forked before the run steps.

Drawing the PNG plots after a run first imports the plotting library (matplotlib and its
pyplot: about 0.35 s on the 2-core machine) and then lays out and renders every figure. A
user waits for both after the last step. So, where it is safe, ``auv_cosim.master.run`` forks a plot
process right before the FMUs start: while the master starts the FMUs and steps (one core),
the plot process imports and warms up what the registered plots need (each ``RunFigures``'
``prepare_plots``) on the other core, then waits. When the run ends the master hands it the
run's rows and waits for the list of files; the registered ``plots`` run in the plot process
exactly as they would in the master (the same ``summary.make_plots``), so the files are the
same, byte for byte. The rows go through shared memory where the platform has it (Linux's
``memfd_create``, made before the fork, inherited by the plot process and by what it forks to
share the drawing): the master copies them there and sends their shape down the pipe; the plot
process and its drawers map them (``rows_handle``, ``rows_from_handle``) instead of each
receiving and decoding a copy (8 MB for the survey; 30-80 ms against 8-25 ms measured side by
side on the loaded 2-core machine). Elsewhere they go down the pipe.

No plot process (the plots are drawn in the master's process after the run, as before) when
the platform has no ``fork``, the machine one CPU, another thread of the master is alive (a
forked child could inherit a lock that thread holds: Dask workers, GUIs), or
``AUV_MASTER_PLOTS=serial``. If the plot process dies or a plot fails in it, the master draws
the plots itself: the plots, or the plot error summary.json reports, are the master's own. So
it does when the plot process has not answered ``PLOT_TIMEOUT_S`` after the run (it is killed).

The plot process leads a process group of its own (with whatever it forks to share the
drawing), ignores Ctrl-C at the terminal (the master decides: it abandons the plots on a
signal, killing the group) and ends when the master closes its end of the pipe without a run.
On Linux it also dies with the master (even a master killed by SIGKILL, which can close
nothing): an orphan still drawing could otherwise write an old run's PNGs into a folder that a
new run already uses.
"""

from __future__ import annotations

import mmap
import os
import pickle
import select
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import registry
from .layout import layout_row
from .plan import Plan
from .summary import RunData, make_plots


def _may_fork() -> bool:
    return (hasattr(os, "fork") and (os.cpu_count() or 1) > 1 and threading.active_count() == 1
            and os.environ.get("AUV_MASTER_PLOTS", "").strip().lower() != "serial")


def read_all(fd: int) -> bytes:
    """Everything a pipe holds until its writer closes it."""
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


#: bytes a pipe to a drawing process holds (Linux: F_SETPIPE_SZ, at most
#: /proc/sys/fs/pipe-max-size, 1 MiB by default), instead of 64 KiB: the run's rows (8 MB for the
#: survey) then cross in a few writes, not a hundred, each waiting for the reader to be scheduled
#: (on a busy machine that added a tenth of a second)
PIPE_SIZE = 1 << 20


def widen_pipe(fd: int) -> None:
    """The pipe of ``fd`` made to hold ``PIPE_SIZE`` bytes where the platform allows; unchanged
    otherwise."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
    except (OSError, ImportError):
        pass


#: seconds the master waits for the plot process's answer before drawing the plots itself
#: (``AUV_MASTER_PLOT_TIMEOUT`` changes it): a plot process stuck for any reason (a lock
#: inherited through the fork, a hung library) must not hold up the run's end for ever
PLOT_TIMEOUT_S = 300.0


def _plot_timeout() -> float:
    text = os.environ.get("AUV_MASTER_PLOT_TIMEOUT", "").strip()
    try:
        value = float(text) if text else PLOT_TIMEOUT_S
    except ValueError:
        return PLOT_TIMEOUT_S
    return value if value > 0 else PLOT_TIMEOUT_S


def _exchange(to_fd: int, payload: bytes, from_fd: int, timeout: float) -> bytes | None:
    """Write ``payload`` to ``to_fd`` and close it, then read ``from_fd`` to its end; None if
    this takes more than ``timeout`` seconds (the other side is stuck). ``to_fd`` is closed in
    every case."""
    deadline = time.monotonic() + timeout
    view = memoryview(payload)
    chunks = []
    os.set_blocking(to_fd, False)
    try:
        while view:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [to_fd], [], left)[1]:
                return None
            try:
                view = view[os.write(to_fd, view[:PIPE_SIZE]):]
            except BlockingIOError:
                continue
    finally:
        os.close(to_fd)
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([from_fd], [], [], left)[0]:
            return None
        chunk = os.read(from_fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def write_all(fd: int, data: bytes) -> None:
    """All of ``data`` into a (blocking) pipe."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


@dataclass(frozen=True)
class SharedRows:
    """Where the run's rows are in shared memory: the descriptor of the memory (the same number
    in the master, the plot process and what it forks), and the rows' shape and dtype."""

    fd: int
    shape: tuple[int, ...]
    dtype: str

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * np.dtype(self.dtype).itemsize


def _shared_memory() -> int | None:
    """A descriptor of anonymous shared memory that processes forked afterwards inherit (Linux's
    memfd, closed on exec), or None where the platform has none."""
    create = getattr(os, "memfd_create", None)
    if create is None:
        return None
    try:
        return create("auv-master-rows", getattr(os, "MFD_CLOEXEC", 0))
    except OSError:
        return None


def _share_rows(fd: int, data: np.ndarray) -> SharedRows | None:
    """``data`` copied into the shared memory ``fd``; None if it could not be (no memory left):
    then the rows go down the pipe."""
    rows = np.ascontiguousarray(data)
    view = memoryview(rows).cast("B")
    try:
        os.ftruncate(fd, len(view))
        done = 0
        while done < len(view):
            done += os.pwrite(fd, view[done:], done)
    except OSError:
        return None
    return SharedRows(fd, tuple(rows.shape), rows.dtype.str)


#: the run's rows as this process mapped them from shared memory, and where they are
_mapped: tuple[np.ndarray, SharedRows] | None = None


def rows_from_handle(handle: SharedRows) -> np.ndarray:
    """The run's rows, mapped from the shared memory ``handle`` names (in the plot process, or a
    process it forked: ``fork_drawer``). The mapping is private: writing into the array changes
    this process's copy only."""
    size = handle.nbytes
    if size == 0:
        return np.empty(handle.shape, dtype=handle.dtype)
    memory = mmap.mmap(handle.fd, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    return np.frombuffer(memory, dtype=handle.dtype).reshape(handle.shape)


def rows_handle(data: np.ndarray) -> SharedRows | None:
    """Where ``data`` is in shared memory if it is the run's rows as the plot process received
    them that way (a plot function hands this to a drawer it forked, which maps the rows with
    ``rows_from_handle`` instead of receiving a copy); None otherwise."""
    if _mapped is not None and data is _mapped[0]:
        return _mapped[1]
    return None


#: the plot process's ends of its pipes to the master: a drawer it forks closes them (the master
#: reads the plot process's answer to its end, which a drawer holding a copy would delay)
_master_pipes: set[int] = set()


def end_drawer(pid: int, kill: bool = True) -> None:
    """Wait for the drawing process ``pid`` (a child of this process) to end, after killing it
    (SIGKILL), and the process group it leads if it leads one, when ``kill``: a drawer abandoned
    (an error, Ctrl-C, no answer in time) must not go on writing files. A process already gone
    is no error."""
    if kill:
        for send in (os.killpg, os.kill):
            try:
                send(pid, signal.SIGKILL)
            except OSError:
                pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def fork_drawer() -> int | None:
    """A child process that a plot function forks to draw part of the plots on another core:
    its pid in the parent, 0 in the child, None (draw everything here) where that is not safe
    or of no use: no ``fork`` on this platform, one CPU, another thread alive (the child could
    inherit a lock it holds), or ``AUV_MASTER_PLOTS=serial``. The child dies with the process
    that forked it (Linux, ``die_with_parent``) and holds none of the plot process's pipes to
    the master."""
    if not _may_fork():
        return None
    parent = os.getpid()
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice by the child
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:
        die_with_parent(parent)
        for fd in list(_master_pipes):
            _master_pipes.discard(fd)
            try:
                os.close(fd)
            except OSError:
                pass
    return pid


#: prctl's option asking the kernel for a signal when the parent dies (linux/prctl.h)
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Ask the kernel (Linux) to kill this process when ``parent`` dies; if it is already gone
    (it died before the request), exit now. Elsewhere, nothing: the pipe's end-of-file still
    ends a plot process that has not started drawing. Called first thing in a forked child
    that draws (the plot process, and the children a plot function forks to share the work)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(0)


class PlotProcess:
    """A forked process that will draw the plots of ``plan``'s run (see the module's doc)."""

    def __init__(self, plan: Plan, pid: int, to_child: int, from_child: int, rows_fd: int | None = None):
        self.plan = plan
        self.pid: int | None = pid
        self._to_child: int | None = to_child
        self._from_child: int | None = from_child
        self._rows_fd: int | None = rows_fd

    @classmethod
    def start(cls, plan: Plan) -> PlotProcess | None:
        """Fork the plot process of ``plan``'s run; None where it is not safe (then draw with
        ``summary.make_plots`` after the run)."""
        if not _may_fork():
            return None
        for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice by the child
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):  # closed, a broken pipe, None: nothing to copy
                pass
        data_r, data_w = os.pipe()
        result_r, result_w = os.pipe()
        widen_pipe(data_w)
        rows_fd = _shared_memory()
        master_pid = os.getpid()
        try:
            pid = os.fork()
        except OSError:
            for fd in (data_r, data_w, result_r, result_w, rows_fd):
                if fd is not None:
                    os.close(fd)
            return None
        if pid == 0:  # the plot process
            code = 1
            try:
                die_with_parent(master_pid)
                os.close(data_w)
                os.close(result_r)
                code = _serve(plan, data_r, result_w, rows_fd)
            finally:
                os._exit(code)  # nothing of the master's to finalise here
        os.close(data_r)
        os.close(result_w)
        try:
            os.setpgid(pid, pid)  # also done by the child: whichever runs first
        except OSError:
            pass
        return cls(plan, pid, data_w, result_r, rows_fd)

    def draw(self, data: np.ndarray, colmap: dict[str, int], out_dir: Path) -> list[Path]:
        """The run's plots drawn by the plot process into ``out_dir``: the list of files, as
        ``summary.make_plots`` returns it. If the plot process fails, the plots are drawn here
        (an error raised then is the plots' own). On any exception (Ctrl-C too) the plot
        process and its children are killed. A plot process that has not answered after
        ``PLOT_TIMEOUT_S`` (``AUV_MASTER_PLOT_TIMEOUT``) is killed too, and the plots drawn here."""
        try:
            try:
                _restore_priority(os.getpriority(os.PRIO_PROCESS, 0), self.pid)
            except (AttributeError, OSError):
                pass
            rows = _share_rows(self._rows_fd, data) if self._rows_fd is not None else None
            payload = pickle.dumps((data if rows is None else rows, colmap, Path(out_dir)),
                                   protocol=pickle.HIGHEST_PROTOCOL)
            answer = b""
            to_child, self._to_child = self._to_child, None
            try:
                answer = _exchange(to_child, payload, self._from_child, _plot_timeout())
            except BrokenPipeError:
                pass  # the plot process is gone: drawn here below
            self._reap(kill=answer is None)  # stuck: killed, and drawn here below
            if answer:
                status, files = pickle.loads(answer)
                if status == "ok":
                    return files
        except BaseException:
            self.close()
            raise
        self.close()
        return make_plots(self.plan, data, colmap, out_dir)

    def close(self) -> None:
        """Kill the plot process and its children if they are still there (nothing to draw, or
        the plots abandoned), and release the pipes."""
        for name in ("_to_child", "_from_child", "_rows_fd"):
            fd = getattr(self, name)
            if fd is not None:
                setattr(self, name, None)
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._reap(kill=True)

    def _reap(self, kill: bool) -> None:
        if self.pid is not None:
            pid, self.pid = self.pid, None
            end_drawer(pid, kill)


#: how much lower the plot process's scheduling priority (``nice``) is while the run steps: what
#: it does then (import matplotlib, build the figures: about 0.6 s of CPU, and its helper's 0.2)
#: should not take a core from the master and its CSV writer on a busy machine; on an idle one
#: it has a core of its own anyway. Measured side by side at load 2-3 (others' work): start-up
#: 0.45-0.5 s against 0.66-0.95, stepping about 1.0 against 1.25 s, the whole command about the
#: same (the plot process then finishes getting ready after the run). Not 10: at load 2-3 it
#: was then rarely ready when the run ended.
PREPARE_NICE = 5


def _lower_priority() -> int | None:
    """The plot process's priority lowered by ``PREPARE_NICE`` (for the processes it forks too):
    the priority it had, or None if it could not be changed."""
    try:
        before = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, 0, min(before + PREPARE_NICE, 19))
        return before
    except (AttributeError, OSError):
        return None


def _restore_priority(before: int | None, group: int = 0) -> None:
    """Back to the priority ``before`` for the processes of the plot process's group (``group``:
    its pid; 0: this process's own), what a plot function forked to share the drawing included,
    now that the master waits for the plots. The master does it when it hands the rows over
    (the plot process may still be getting ready then), the plot process when it gets them.
    Raising a priority again takes a privilege (CAP_SYS_NICE, or RLIMIT_NICE): without it they
    draw at the lower one (on an idle machine the same speed)."""
    if before is None:
        return
    try:
        os.setpriority(os.PRIO_PGRP, group, before)
    except (AttributeError, OSError):
        pass


def _serve(plan: Plan, data_fd: int, result_fd: int, rows_fd: int | None = None) -> int:
    """The plot process: get ready, wait for the run's rows, draw, answer. The rows come down
    the pipe, or their place in the shared memory ``rows_fd`` does."""
    global _mapped
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    priority = _lower_priority()
    _master_pipes.update((data_fd, result_fd))
    try:
        # the run as its plots will see it, without its rows: its plan and its columns
        layout = layout_row(plan)
        run = RunData(plan, np.empty((0, len(layout.columns))), layout.colmap)
    except Exception:
        run = None  # the plots are only warmed up; built after the run
    for figures in registry.figures().values():
        if figures.prepare_plots is not None:
            try:
                figures.prepare_plots(run)
            except Exception:
                pass  # the same error, if it matters, comes from the plots themselves
    select.select([data_fd], [], [])  # the rows coming (or the end: no plots after all)
    _restore_priority(priority)  # before reading them: the master waits from now on
    payload = read_all(data_fd)
    os.close(data_fd)
    _master_pipes.discard(data_fd)
    if not payload:
        return 0  # the run drew no plots after all
    rows, colmap, out_dir = pickle.loads(payload)
    try:
        if isinstance(rows, SharedRows):
            data = rows_from_handle(rows)
            _mapped = (data, rows)
        else:
            data = rows
        answer = ("ok", make_plots(plan, data, colmap, out_dir))
    except Exception:
        answer = ("failed", None)  # the master draws them again and reports its own error
    _mapped = None
    write_all(result_fd, pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    os.close(result_fd)
    _master_pipes.discard(result_fd)
    return 0
