"""The compile and cache machinery every FMU carries (the ground floor: it imports nothing of
the project).

* `jit`: the one switch between compiled (numba) and plain-Python physics and kernels;
* `numba_cache`: loading numba's cache without its compiler set-up, and the stamp that makes a
  cached function follow the compiled functions it calls (the project's one reach into
  numba's internals, gated by numba's version);
* `shipped_cache`: what makes a cache shipped inside an FMU valid where the FMU is extracted;
* `scipy_imports`: one SciPy module without the rest of its subpackage.
"""
