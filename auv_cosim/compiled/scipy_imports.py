"""One module of a SciPy subpackage without the rest of the subpackage (start-up time).

Importing `scipy.integrate._ode` (the `ode` class, SciPy's wrapper of Hairer's DOPRI5) or
`scipy.linalg.cython_blas` (the BLAS that numba's compiled `@` and `np.dot` call) first runs
the subpackage's `__init__.py`, which imports everything else in it: the quadratures, the BVP
solver and solve_ivp with scipy.special, optimize and sparse behind them for scipy.integrate
(about half of an FMU's start-up before this), the whole of scipy.linalg for numba. Neither
module needs its package's other contents.

`import_alone(name)` imports the module with its package's module object present in
sys.modules but not executed, under the import lock, and takes the package out again. A later
`import scipy.integrate` (by the host, which shares this interpreter, or by anything else) runs
the package as usual, finds this same module in sys.modules, and gets it as an attribute as an
ordinary import would have set it (`_AttachOnImport`). When the package is imported already it
is simply used; anything unexpected falls back to the ordinary import.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys


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
    if package in sys.modules or name in sys.modules:
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
