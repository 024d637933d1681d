"""Loading the physics' compiled code from numba's cache without numba's compiler set-up
(start-up time, issue 15).

The first call of a compiled function in a process loads its machine code from the cache
(`__pycache__/*.nbi|*.nbc`, shipped inside the FMU: fmu_support/numba_cache.py). Before it
loads anything, numba's cache "refreshes" its target context: it imports and registers every
typing and lowering implementation numba has (the NumPy, typed-container, random, polynomial,
jitclass ... support), some 0.15-0.3 s of CPU, half of an Auv.fmu start-up once numba is
imported. Loading cached code needs none of it: the code is already compiled and linked
against nothing but numba's runtime (NRT), its C helpers and a few CPython symbols.

`load_cache_lightly(dispatcher)` makes the dispatcher's cache do only that part of the
refresh: start numba's runtime (`rtsys.initialize`, which registers the NRT symbols the
linker resolves) and import `numba.cpython.hashing` (the other module that registers symbols
when it is imported); numba's C helpers and CPython's exception objects are registered when
numba itself is imported. What the cache does not hold (another CPU, another numba, a changed
source) is compiled as before, and numba's compiler does the whole refresh itself first. Any
exception of the light load sends that load the ordinary way.

Only for the numba versions it has been checked with (`CHECKED`: the cache's `load_overload`
must still be "refresh, then `_load_overload`"); `AUV_NUMBA_FULL_LOAD=1` turns it off (the
tests compare both ways, bit for bit).
"""
from __future__ import annotations

import os

import numba
from numba.core.caching import FunctionCache

#: numba versions (major, minor) whose FunctionCache.load_overload this replaces
CHECKED = {(0, 68)}


def _version() -> tuple[int, int]:
    major, minor = numba.__version__.split(".")[:2]
    return int(major), int(minor)


class _ForgivingCache(FunctionCache):
    """numba's cache of one function, where a cache file that cannot be read (a corrupt or
    truncated index or data file, shipped in an FMU or left by a crash) is a miss: the function
    is compiled, as with no cache at all, instead of the call raising numba's UnpicklingError
    (the cache is an optimisation, never a requirement: fmu_support/numba_cache.py). A cache
    that cannot be written then is left as it is (the code compiled stays in use)."""

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except Exception:
            return None

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except Exception:
            pass


class _LightlyLoadingCache(_ForgivingCache):
    """numba's cache of one function, loading from the cache with the runtime alone."""

    def load_overload(self, sig, target_context):
        try:
            from numba.core.runtime import rtsys
            import numba.cpython.hashing  # noqa: F401  (registers its symbols when imported)

            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)
        except Exception:
            return super().load_overload(sig, target_context)  # the ordinary load (a miss if it fails)


#: True when the compiled functions load from the cache the light way (decided once, at import)
ENABLED = _version() in CHECKED and os.environ.get("AUV_NUMBA_FULL_LOAD", "") in ("", "0")


def load_cache_lightly(dispatcher):
    """The dispatcher, its cache loading lightly where that is known to work (see the module),
    an unreadable cache file a miss in any case (`_ForgivingCache`)."""
    if type(getattr(dispatcher, "_cache", None)) is FunctionCache:
        dispatcher._cache.__class__ = _LightlyLoadingCache if ENABLED else _ForgivingCache
    return dispatcher
