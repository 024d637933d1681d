"""The one module that reaches into SciPy's internals, for two things a vehicle FMU does often:
start (once per instance) and integrate one communication step (every step).

* `import_alone(name)`: one module of a SciPy subpackage without the rest of the subpackage.
  Importing `scipy.integrate._ode` (the `ode` class, SciPy's wrapper of Hairer's DOPRI5) or
  `scipy.linalg.cython_blas` (the BLAS that numba's compiled `@` and `np.dot` call) first runs
  the subpackage's `__init__.py`, which imports everything else in it: the quadratures, the BVP
  solver and solve_ivp with scipy.special, optimize and sparse behind them for scipy.integrate,
  the whole of scipy.linalg for numba. Neither module needs its package's other contents. The
  module is imported with its package's module object present in sys.modules but not executed,
  under the import lock, and the package is taken out again. A later `import scipy.integrate`
  (by the host, which shares this interpreter, or by anything else) runs the package as usual,
  finds this same module in sys.modules, and gets it as an attribute as an ordinary import
  would have set it (`_AttachOnImport`, a finder on sys.meta_path until that happens). When the
  package is imported already it is simply used; anything unexpected falls back to the
  ordinary import.
* `Restarts`: DOPRI5 (or DOP853) run from t0 to t1 from a given state, over and over, as
  `ode.set_initial_value` then `ode.integrate` do, less their Python overhead: the integrator's
  work arrays are made (by its `reset`) only when the step length changes and restored in
  place from copies of the fresh ones otherwise, and its runner (SciPy's C DOPRI5) is called
  with the arguments `ode.integrate` would give it.

Both are used only on the SciPy versions in CHECKED (their internals read as here); on any
other, or with ENABLED set to False, the public API does the same: `importlib.import_module`,
and `ode.set_integrator(first_step=...)`, `set_initial_value`, `integrate`, which give the same
numbers bit for bit (tests/compiled/test_scipy_internals.py runs both paths;
benchmarks/bench_internals.py measures what each gains).
"""
from __future__ import annotations

import importlib
import importlib.util
import sys

import numpy as np

#: SciPy versions (major, minor) whose internals this module was written against and tested on
CHECKED = {(1, 14), (1, 15), (1, 16), (1, 17)}


def _scipy_version():
    import scipy   # light: the subpackages are not imported by it

    major, minor = scipy.__version__.split(".")[:2]
    return int(major), int(minor)


#: True when the internals are used (decided once, at import; tests and the benchmark set it)
ENABLED = _scipy_version() in CHECKED


class _AttachOnImport:
    """A meta path finder that steps in once, when a package whose submodules were imported
    alone is imported for real: it finds the package's spec with the other finders and sets
    those submodules as attributes of the package once it has run."""

    def __init__(self):
        self.children: dict = {}     # package -> {attribute: module}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.children:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                spec.loader = _AttachingLoader(spec.loader, self.children.pop(fullname))
                if not self.children:
                    sys.meta_path.remove(self)
                return spec
        return None


class _AttachingLoader:
    def __init__(self, loader, children: dict):
        self._loader, self._children = loader, children

    def __getattr__(self, name):      # get_source, is_package, ...: the package's own loader
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        for attribute, child in self._children.items():
            if not hasattr(module, attribute):
                setattr(module, attribute, child)


_ATTACH = _AttachOnImport()


def import_alone(name: str):
    """The module `name` ("package.module"), imported without executing its package."""
    package, _, attribute = name.rpartition(".")
    if not ENABLED or package in sys.modules or name in sys.modules:
        return importlib.import_module(name)
    import _imp
    _imp.acquire_lock()
    try:
        try:
            spec = importlib.util.find_spec(package)
            sys.modules[package] = importlib.util.module_from_spec(spec)
            try:
                module = importlib.import_module(name)
            finally:
                del sys.modules[package]
        except Exception:  # pragma: no cover - another SciPy layout: the ordinary import
            sys.modules.pop(name, None)
            return importlib.import_module(name)
        _ATTACH.children.setdefault(package, {})[attribute] = module
        if _ATTACH not in sys.meta_path:
            sys.meta_path.insert(0, _ATTACH)
        return module
    finally:
        _imp.release_lock()


class Restarts:
    """One SciPy `ode` solver run again and again from a given state over one step:
    `integrate(y0, t0, t1)` is y(t1) from y(t0) = y0, every run starting as a fresh
    `set_initial_value` would (the first step it tries is the whole interval). After a run,
    `success` says whether the integrator succeeded, `t_reached` where it stopped, `message`
    why it failed. The fast path (ENABLED) and the public one give the same numbers."""

    def __init__(self, solver, method: str, **options):
        self.solver, self.method, self.options = solver, method, options
        solver.set_integrator(method, **options)
        self.fast = ENABLED
        self.success, self.t_reached, self.message = True, 0.0, ""
        self._step_length = None      # the step the integrator was last made for
        self._fresh_work = self._fresh_iwork = None
        self._run_arguments = None    # what SciPy's runner takes after (f, t0, y0, t1)

    def integrate(self, y0: np.ndarray, t0: float, t1: float) -> np.ndarray:
        """y at t1 from y0 at t0. The runner copies y0 before it integrates (SciPy's wrappers of
        DOPRI5 and DOP853 do not overwrite y), so a view of a state is safe to hand over."""
        if not self.fast:
            return self._integrate_public(y0, t0, t1)
        solver = self.solver
        integrator = solver._integrator
        step_length = t1 - t0
        if step_length != self._step_length:
            integrator.first_step = step_length
            integrator.reset(y0.size, False)
            self._fresh_work, self._fresh_iwork = integrator.work.copy(), integrator.iwork.copy()
            self._run_arguments = (*integrator.call_args, solver.f_params)
            self._step_length = step_length
        else:
            integrator.work[:] = self._fresh_work
            integrator.iwork[:] = self._fresh_iwork
            integrator.success = 1
        # the integrator's `run` less its argument tuples: its runner (SciPy's C DOPRI5 / DOP853)
        # with the arguments `run` gives it, and its bookkeeping of a failure
        self.t_reached, y, integrator.istate = integrator.runner(solver.f, t0, y0, t1, *self._run_arguments)
        self.success = integrator.istate >= 0
        if not self.success:
            integrator.success = 0
            self.message = integrator.messages.get(integrator.istate, f"return code {integrator.istate}")
        return y

    def _integrate_public(self, y0, t0, t1):
        solver = self.solver
        step_length = t1 - t0
        if step_length != self._step_length:
            solver.set_integrator(self.method, first_step=step_length, **self.options)
            self._step_length = step_length
        solver.set_initial_value(y0, t0)
        y = solver.integrate(t1)
        self.success, self.t_reached = solver.successful(), solver.t
        if not self.success:
            self.message = f"SciPy's return code {solver.get_return_code()}"
        return y
