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

    # the BLAS module numba checks for when it sets up its NumPy support, without the whole
    # of scipy.linalg that `import scipy.linalg.cython_blas` would run first (see _imports.py)
    try:
        from .scipy_internals import import_alone
        import_alone("scipy.linalg.cython_blas")
    except ImportError:  # pragma: no cover - no SciPy: numba reports it where BLAS is needed
        pass

    from .numba_cache import load_cache_lightly

    def jit(function):
        return load_cache_lightly(numba.njit(cache=True, fastmath=False, error_model="numpy")(function))

    def jit_inlined(function):
        return numba.njit(inline="always", fastmath=False, error_model="numpy")(function)

    JIT_ENABLED = True
except ImportError:  # pragma: no cover - exercised with AUV_NO_JIT=1
    def jit(function):
        return function

    def jit_inlined(function):
        return function

    JIT_ENABLED = False


jit_inlined.__doc__ = """A small helper of compiled kernels, compiled into each compiled function that
calls it (numba's ``inline="always"``: its code is put in the caller's before the caller is
typed), where `jit` would compile and cache a version of it for every distinct literal argument
a caller passes (a channel or loop number, a flag: a kernel's helpers made 31 cache files of
the AUV's instruments, in two FMUs). Same arithmetic in the same order (no fastmath, as `jit`):
the caller's results are the same bit for bit. Called from Python (a kernel's ``py_func``, a
test) it is compiled as `jit` would, uncached. Without numba: the function itself."""


def compiled_entry(function, *example_args):
    """What to call for `function` when it is called very often with arguments of the types of
    `example_args` (and only those): the machine code's own entry of its compiled version for
    these types, which skips the dispatcher's choice of a version from the argument types
    (about 0.15 us of a call with five arguments). The caller guarantees the types: an
    argument of another type is not refused but misread (a float64 array expected, an int
    array given, say). Without numba: `function` itself. Calls `function` once with the
    examples (which compiles it, or loads it from the cache)."""
    function(*example_args)
    overloads = getattr(function, "overloads", None)
    if not JIT_ENABLED or overloads is None:
        return function
    return overloads[tuple(numba.typeof(a) for a in example_args)].entry_point
