"""The one switch between compiled and plain-Python physics.

Every physics function is written in the subset of Python and NumPy that numba compiles, and
decorated with `jit`. With numba installed the functions are compiled on first call (and the
machine code cached next to the sources); with `AUV_NO_JIT=1` in the environment, or without
numba, they run as ordinary Python: slower, same results to rounding.
"""
import os

try:
    if os.environ.get("AUV_NO_JIT", "") not in ("", "0"):
        raise ImportError("AUV_NO_JIT is set")
    import numba

    def jit(function):
        return numba.njit(cache=True, fastmath=False, error_model="numpy")(function)

    JIT_ENABLED = True
except ImportError:  # pragma: no cover - exercised with AUV_NO_JIT=1
    def jit(function):
        return function

    JIT_ENABLED = False
