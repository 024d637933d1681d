"""The last module the local cluster's forkserver preloads (``sweep.start_worker_forkserver``):
there, and only there, it makes the forkserver's exit immediate.

The forkserver holds the sweep's standard output and error (the workers it forks write their
messages there), so whoever reads them through a pipe (``| tee``, a benchmark, a CI log) gets
their end only when the forkserver has exited too; it exits when the sweep does, and Python's
ordinary finalisation of what it has loaded (Dask, numba, the master) took about 0.2 s more on
the 2-core machine. The forkserver has nothing of its own to flush or write, so it ends with
``os._exit`` (an ``atexit`` handler registered after those of the modules it loaded runs first).
The workers forked from it end through multiprocessing's own ``os._exit`` and never run it.
Imported anywhere else (the sweep's process, a worker), this module does nothing.
"""

from __future__ import annotations

import atexit
import os
import sys


def in_forkserver() -> bool:
    """True when this import is the forkserver's preload (``multiprocessing.forkserver.main``
    is on the stack)."""
    from multiprocessing import forkserver

    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "main" and frame.f_code.co_filename == forkserver.__file__:
            return True
        frame = frame.f_back
    return False


def _exit_now() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(0)


if in_forkserver():
    atexit.register(_exit_now)
