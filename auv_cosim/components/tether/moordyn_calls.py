"""The calls into MoorDyn's Python wrapper (`moordyn`) that return nothing, made safe for the host.

Why: moordyn 2.7.2's C extension returns None from `SetLineUnstretchedLength`,
`SetLineUnstretchedLengthVel` and `Deserialize` without the reference to None that a returned
object carries: each call leaves None one reference poorer (measured here: -1 a call; the
wrapper's other functions the tether calls keep the rule). On CPython before 3.12, where None
is counted like any object, a run of some thousands of steps (each step sets the winch's speed)
brings None's count to zero, and the interpreter aborts with "Fatal Python error: none_dealloc",
taking the FMU's host down with it.

`returning_none(moordyn, name)` is the wrapper's function `name`, called so that None gets back
what the call took. Whether a function takes a reference is measured on its first calls, not
assumed from a version number: None's reference count before and after a call whose result is
dropped changes by 0 for a function that keeps the rule and by -1 for one that breaks it. A
fixed wrapper, and a Python whose None is immortal (3.12 on: the count does not move), get no
compensation; a measurement disturbed by something else (neither 0 nor -1) is made again at the
next call. This module is the tether's only reach past the wrapper's documented behaviour.
"""
from __future__ import annotations

import ctypes
import sys
from typing import Callable, Dict

#: how many calls a function is measured on before it is taken to keep the rule
MEASUREMENTS = 3

_incref = ctypes.pythonapi.Py_IncRef
_incref.argtypes = [ctypes.py_object]
_incref.restype = None
#: function name -> True (takes a reference from None), False (keeps the rule)
_takes: Dict[str, bool] = {}


def returning_none(moordyn, name: str) -> Callable[..., None]:
    """``moordyn.<name>`` (a function that returns None), called so that None keeps its count."""
    function = getattr(moordyn, name)
    tries = [0]

    def call(*args) -> None:
        known = _takes.get(name)
        if known is None:
            before = sys.getrefcount(None)
            function(*args)
            change = sys.getrefcount(None) - before
            if change == -1:
                _takes[name] = True
                _incref(None)
            elif change == 0:
                tries[0] += 1
                if tries[0] >= MEASUREMENTS:
                    _takes[name] = False
            return None
        function(*args)
        if known:
            _incref(None)
        return None

    call.__name__ = name
    call.__doc__ = function.__doc__
    return call


def takes_a_reference(name: str):
    """What the measurements found of ``name``: True, False, or None (not measured yet)."""
    return _takes.get(name)
