"""The ground floor every FMU carries (it imports nothing of the project): the compile and
cache machinery, and the number rule.

* `jit`: the one switch between compiled (numba) and plain-Python physics and kernels;
* `numba_cache`: loading numba's cache without its compiler set-up, and the stamp that makes a
  cached function follow the compiled functions it calls (the project's one reach into
  numba's internals, gated by numba's version);
* `shipped_cache`: what makes a cache shipped inside an FMU valid where the FMU is extracted;
* `scipy_internals`: the one reach into SciPy's internals (one module of a subpackage imported
  without the rest; the integrator restarted over each step without `ode`'s overhead), gated by
  SciPy's version;
* `numbers`: the one number rule of every file and parameter (what a number is, its range, the
  YAML loader that reads `1e3` as one), which the master's scenario files share with the
  vehicle files: the only module of this floor the master imports.
"""
