"""The stepping loop's C backend (``auv_cosim/master/_step_loop.c``), compiled once per machine.

The Python backend (``loop.PythonSteps``) makes a dozen ctypes calls a step (each instance's
transfers, fmi2DoStep and reads), each costing about a microsecond of Python around the FMU's
own work, plus the loop's bookkeeping: about half of the no-op floor of the survey stack.
``run_steps`` makes the same calls, in the same order, with the same values, from C, for as
many steps as it can before Python has something to do (a full block for the observers, a stop
condition that may fire, a flush, a failed call, the pacer's turn): ``loop.NativeSteps``.

The C file is compiled with the machine's C compiler ($CC, else cc, gcc or clang) the first
time it is needed, into the user's cache folder (``$XDG_CACHE_HOME/auv-cosim/native``, else
``~/.cache/auv-cosim/native``), named after the digest of the source and the compiler: a new version
of the file or another compiler builds anew, and a library once built is reused by every run.
``./build.sh`` builds it ahead. Without a compiler (or when it fails) the master steps in
Python with the same results: ``available()`` says which, and why; a run chooses with
``loop="c"`` or ``loop="python"`` (``auv_cosim.master.run``).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from ctypes import POINTER, Structure, c_double, c_int64, c_void_p
from pathlib import Path

SOURCE = Path(__file__).with_name("_step_loop.c")
CFLAGS = ("-O2", "-shared", "-fPIC", "-std=c99", "-D_POSIX_C_SOURCE=199309L", "-Wall", "-Wextra")

#: the kinds of call, as _step_loop.c's enum
CALL_SET_REAL, CALL_SET_DISCRETE, CALL_DO_STEP, CALL_GET_REAL, CALL_GET_DISCRETE = range(5)
#: the stop conditions' operators, as _step_loop.c's `compare`
STOP_OPS = {"==": 0, "!=": 1, "<=": 2, ">=": 3, "<": 4, ">": 5}


class Call(Structure):
    _fields_ = [("kind", c_int64), ("function", c_void_p), ("component", c_void_p), ("vr", c_void_p),
                ("n", c_int64), ("source", c_void_p), ("checked", c_int64), ("buffer", c_void_p),
                ("offset", c_int64)]


class Stop(Structure):
    _fields_ = [("column", c_int64), ("op", c_int64), ("value", c_double), ("met", c_int64),
                ("deadline", c_double)]


class Outcome(Structure):
    _fields_ = [("steps", c_int64), ("failed_call", c_int64), ("status", c_int64)]


_loaded = None     # (run_steps or None, reason)


def find_compiler() -> list[str] | None:
    """The C compiler command ($CC, else cc / gcc / clang on the PATH), or None. Also the one
    auv_cosim/build/native_wrapper.py compiles the FMUs' wrapper with."""
    configured = os.environ.get("CC", "").strip()
    if configured:
        command = shlex.split(configured)
        return command if shutil.which(command[0]) else None
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return [found]
    return None


def _cache_folder() -> Path:
    """Beside the FMU cache (auv_cosim/master/fmu_cache.py): $XDG_CACHE_HOME, else ~/.cache."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "auv-cosim" / "native"


def library_path(compiler: list[str]) -> Path:
    """Where the library compiled from this source with this compiler lives."""
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join([*compiler, *CFLAGS]).encode()).hexdigest()[:20]
    return _cache_folder() / f"step_loop-{digest}.so"


def build() -> Path:
    """The compiled library (compiled now if it is not in the cache). Raises RuntimeError with
    the reason when it cannot be."""
    if not sys.platform.startswith("linux") and sys.platform != "darwin":
        raise RuntimeError(f"not built on {sys.platform}")
    compiler = find_compiler()
    if compiler is None:
        raise RuntimeError(f"no C compiler (CC={os.environ.get('CC', '')!r}, cc, gcc, clang)")
    path = library_path(compiler)
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    # compiled beside its final name, then renamed: a concurrent run sees a whole file or none
    fd, partial = tempfile.mkstemp(prefix=path.stem + "-", suffix=".so.part", dir=path.parent)
    os.close(fd)
    try:
        command = [*compiler, *CFLAGS, "-o", partial, str(SOURCE), "-lm"]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{shlex.join(command)} failed: {(result.stderr or result.stdout).strip()[:500]}")
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return path


def available():
    """``(run_steps, reason)``: the C function (None when the master steps in Python) and why
    not. Compiled and loaded once per process."""
    global _loaded
    if _loaded is None:
        try:
            function = ctypes.CDLL(str(build())).run_steps
            function.restype = None
            function.argtypes = [POINTER(Call), c_int64, c_void_p, c_int64, c_void_p, c_int64, c_double,
                                 c_void_p, c_int64, c_int64, c_void_p, POINTER(Stop), c_int64, c_double,
                                 c_double, POINTER(Outcome)]
            _loaded = (function, "")
        except (OSError, RuntimeError, AttributeError) as error:
            _loaded = (None, str(error))
    return _loaded


def time_calls(ns, kinds) -> None:
    """Time each FMI call the C loop makes from now on, for benchmarks (benchmarks/bench_stack.py
    --breakdown): the nanoseconds spent in call i (the FMU's function alone) are added to ns[i]
    and its kind (CALL_*) written to kinds[i], for as many calls as the two int64 numpy arrays
    hold (in the order the engine lists them: per instance its transfers in, fmi2DoStep, its
    reads); `time_calls(None, None)` stops. The arrays must outlive the timing."""
    library = ctypes.CDLL(str(build()))   # the library run_steps is in (dlopen: the same one)
    library.time_calls.restype = None
    library.time_calls.argtypes = [c_void_p, c_void_p, c_int64]
    if ns is None:
        library.time_calls(None, None, 0)
    else:
        library.time_calls(ns.ctypes.data, kinds.ctypes.data, min(len(ns), len(kinds)))


def address(obj) -> int:
    """The address of a ctypes object's or a numpy array's data."""
    return obj.ctypes.data if hasattr(obj, "ctypes") else ctypes.addressof(obj)


if __name__ == "__main__":   # ./build.sh: build ahead, say where (or why not)
    try:
        print(f"master native loop: {build()}")
    except RuntimeError as error:
        print(f"master native loop: not built ({error}); the master steps in Python")
