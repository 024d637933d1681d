"""results.csv, written as the run goes.

Rows arrive in blocks (the master hands over a block every 256 steps or every second of wall
time, whichever comes first, and whatever is left when the run ends, fails or is
interrupted); each block is formatted in one go and flushed to the OS, so a crash of the master
process loses at most the block being filled and an FMU error, a NaN or Ctrl-C lose nothing.

Formatting: ``time`` and every Real as the shortest text that reads back as the same double
(Python's ``repr``), Integer and Boolean columns as whole numbers. The text depends on nothing
but the values, so two runs of a deterministic scenario give byte-identical files.

Where the text is made. Formatting costs about 0.2 us a value (ujson, see
``auv_cosim/master/csv_writer.py``; ``repr`` 0.45 us where ujson cannot be used): some 19 us a row of the
H100's 91 columns, more than half of what the master and the FMI boundary cost per step without
any model. So a run expected to record ``BACKGROUND_CELLS`` values or more (rows times
columns), on a machine with more than one CPU, hands each block as raw float64 values to a
writer process (``auv_cosim/master/csv_writer.py``) that formats and appends it on another core; smaller
runs format in the master's process. Both use ``csv_writer.format_block``: the file is the
same, byte for byte, either way.

The criterion counts values, not rows, because the formatting a writer takes off the master is
proportional to values, while its costs are nearly fixed: some 15-20 ms to start (``python -I
-S`` and ujson, on the other core while the master loads the FMUs) and, at the end, the wait
for the last block still in the pipe (256 rows: about 5 ms for the H100's 91 columns). 100,000
values take about as long to format as the writer takes to start: a 120 s H100 run (1,201 x 91)
goes to the writer, a 60 s survey run (601 x 42) stays inline. The pipe to the writer is
enlarged to 1 MiB where Linux allows it: a 120 s H100 run's rows (1,201 x 91 doubles) then fit
in it, so the master writes without waiting for the writer to read, even when the writer
formats slower than the master steps (no-op FMUs); it waits once, at ``close()``. Campaign
workers format inline (auv_cosim/campaigns/worker.py): their runs already keep both cores busy.
The writer process has written every row it was sent when ``close()`` returns; if the master
process dies, the writer still writes every block it received, then sees the end of its input
and exits.
``AUV_MASTER_CSV_WRITER=process`` or ``inline`` forces one way (tests use it).

A full disk (or any failed write) never leaves a half row: the file is cut back to the end of
the last complete block (``os.ftruncate``; the writer process does the same and exits with
``ENOSPC``), and the OSError goes to the loop, which ends the run as failed with every
complete row kept (the room the cut frees is what summary.json is then written into).

``Decimated`` records every k-th communication point and the last one (``--output-interval``,
as fmpy's ``output_interval`` and libcosim's decimation): it stands between the loop and any
observer that records (``records = True``: this recorder, the writers of other formats).
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from . import csv_writer
from .loop import Observer

#: runs expected to record at least this many values (rows x columns) format them in a writer process
BACKGROUND_CELLS = 100_000
#: the size asked for the pipe to the writer process (Linux's default limit for a user)
WRITER_PIPE_BYTES = 1 << 20


def _want_writer_process(expected_rows: int, columns: int) -> bool:
    mode = os.environ.get("AUV_MASTER_CSV_WRITER", "").strip().lower()
    if mode in ("process", "inline"):
        return mode == "process"
    return expected_rows * columns >= BACKGROUND_CELLS and (os.cpu_count() or 1) > 1 and bool(sys.executable)


def _enlarge_pipe(stream) -> None:
    """Ask for a pipe of WRITER_PIPE_BYTES (Linux's F_SETPIPE_SZ); keep the default (64 KiB)
    where that is not possible: it only means waiting for the writer sooner."""
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, WRITER_PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


class CsvRecorder(Observer):
    """results.csv of a run: an observer of its communication points (see the module)."""

    records = True

    def __init__(self, path: Path, columns: list[str], colmap: dict[str, int], record: list[str], integer_columns: set[str],
                 expected_rows: int = 0):
        self.path = Path(path)
        self.names = ["time"] + list(record)
        self.index = np.array([0] + [colmap[n] for n in record], dtype=np.intp)
        self._kinds = csv_writer.column_kinds([n in integer_columns for n in self.names])
        self._f = open(self.path, "wb", buffering=0)
        self.complete = 0   # bytes of the file that are whole rows (and the header)
        self._append((",".join(self.names) + "\n").encode("utf-8"))
        self.written = 0   # rows written (or handed to the writer process)
        self._writer: subprocess.Popen | None = None
        if _want_writer_process(expected_rows, len(self.names)):
            self._start_writer()

    def _start_writer(self):
        """Hand the file over to a writer process (it appends after the header); stay inline
        if it cannot be started."""
        self._f.close()
        self._f = None
        try:
            folder = csv_writer.fast_formatter_folder()
            self._writer = subprocess.Popen(
                [sys.executable, "-I", "-S", csv_writer.__file__, str(self.path), str(len(self.names)), self._kinds]
                + ([folder] if folder else []),
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                start_new_session=True)  # Ctrl-C at the terminal is the master's; the writer ends with its input
            _enlarge_pipe(self._writer.stdin)
        except OSError:
            self._writer = None
            self._f = open(self.path, "ab", buffering=0)

    @property
    def background(self) -> bool:
        """True while the rows are formatted by a writer process."""
        return self._writer is not None

    def write_block(self, block: np.ndarray):
        sel = block[:, self.index] if len(self.index) != block.shape[1] else block
        if self._writer is not None:
            data = np.ascontiguousarray(sel, dtype=np.float64)
            try:
                self._writer.stdin.write(csv_writer.HEADER.pack(len(data)))
                self._writer.stdin.write(data.tobytes())
                self._writer.stdin.flush()
            except OSError as e:  # the writer process is gone (its error is on stderr)
                self._writer_failed(f"stopped: {e}")
        elif self._f is not None:
            self._append(csv_writer.format_block(self._kinds, sel.ravel().tolist()).encode("utf-8"))
        else:
            return
        self.written += len(sel)

    def _append(self, data: bytes) -> None:
        """Append whole rows; on a failed write (a full disk) cut the file back to its last
        whole row and raise the OSError."""
        view = memoryview(data)
        try:
            while view:
                view = view[self._write_some(view):]
        except OSError:
            try:
                os.ftruncate(self._f.fileno(), self.complete)
            except OSError:
                pass
            self._f.close()
            self._f = None
            raise
        self.complete += len(data)

    def _write_some(self, view: memoryview) -> int:
        """One write of the file (what the operating system took of ``view``)."""
        return self._f.write(view)

    def _writer_failed(self, what: str):
        """The writer process ended early: its full disk as ENOSPC, anything else as it is."""
        writer, self._writer = self._writer, None
        try:
            status = writer.wait(timeout=30)
        except subprocess.TimeoutExpired:
            writer.kill()
            status = writer.wait()
        if status == errno.ENOSPC:
            raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} (writing {self.path}; cut back to its last "
                                        f"whole row)")
        raise OSError(f"the writer process of {self.path} {what} (exit status {status}); see its message above")

    def rows(self, block: np.ndarray) -> None:
        self.write_block(block)

    def flush(self):
        if self._writer is not None:
            try:
                self._writer.stdin.flush()
            except OSError:
                pass  # reported by write_block or close

    def close(self):
        if self._writer is not None:
            writer, self._writer = self._writer, None
            try:
                writer.stdin.close()
            except OSError:
                pass
            if writer.wait() != 0:
                self._writer = writer
                self._writer_failed("failed")
        if self._f is not None:
            self._f.close()
            self._f = None


class Decimated(Observer):
    """Hands ``inner`` every ``k``-th communication point (those whose index from the initial
    point is a multiple of k) and, when the run ends, its last point if it was not one of
    them: a run's end is always recorded."""

    def __init__(self, inner: Observer, k: int):
        self.inner, self.k = inner, int(k)
        self.every = inner.every * self.k
        self.seen = 0
        self.last: np.ndarray | None = None   # the last point, when it was not handed on

    def start(self, plan, layout) -> None:
        self.inner.start(plan, layout)

    def rows(self, block: np.ndarray) -> None:
        picked = block[(-self.seen) % self.k::self.k]
        if len(picked):
            self.inner.rows(picked)
        self.seen += len(block)
        self.last = None if (self.seen - 1) % self.k == 0 else block[-1:].copy()

    def close(self) -> None:
        try:
            if self.last is not None:
                self.inner.rows(self.last)
                self.last = None
        finally:
            self.inner.close()

    def __getattr__(self, name):   # what the runner asks a writer (summary_file, path ...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
