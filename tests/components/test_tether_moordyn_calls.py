"""None keeps its reference count through the tether's calls into moordyn: moordyn 2.7.2's
wrapper takes one from None at each call of SetLineUnstretchedLength, SetLineUnstretchedLengthVel
and Deserialize, which on CPython before 3.12 aborts the host's interpreter after some thousands
of steps ("Fatal Python error: none_dealloc"). auv_cosim/components/tether/moordyn_calls.py
measures which functions take one and gives it back."""
from __future__ import annotations

import ctypes
import sys
from types import SimpleNamespace

import pytest

from auv_cosim.components.tether import moordyn_calls

_decref = ctypes.pythonapi.Py_DecRef
_decref.argtypes = [ctypes.py_object]
_decref.restype = None


def test_a_function_that_takes_a_reference_from_none_gets_it_back_and_one_that_does_not_is_left_alone():
    def steals():          # as moordyn 2.7.2's setters do
        _decref(None)

    def keeps():
        return None

    fake = SimpleNamespace(StealsFromNone=steals, KeepsNone=keeps)
    stealing, keeping = (moordyn_calls.returning_none(fake, n) for n in ("StealsFromNone", "KeepsNone"))
    stealing()
    keeping()
    before = sys.getrefcount(None)
    for _ in range(200):
        stealing()
        keeping()
    change = sys.getrefcount(None) - before    # before the assert: pytest's rewriting holds Nones
    assert change == 0
    if sys.version_info < (3, 12):    # None is immortal from 3.12: its count does not move
        assert moordyn_calls.takes_a_reference("StealsFromNone") is True
    assert moordyn_calls.takes_a_reference("KeepsNone") is False


def test_a_paying_out_tether_with_restored_states_leaves_none_its_references():
    pytest.importorskip("moordyn")
    from auv_cosim.components.tether import Tether, TetherConfig

    cable = Tether(TetherConfig(Length=35.0, SegmentCount=4, AxialStiffness=2e4, TimeStep=0.01), (20.0, 0.0, 10.0))
    state = cable.get_state()
    before = sys.getrefcount(None)
    for k in range(300):
        cable.step((20.0, 0.0, 10.0), (0.0, 0.0, 0.0), 0.1, pay_out_speed=0.01)
        if k % 10 == 0:
            cable.set_state(state)
    change = sys.getrefcount(None) - before
    cable.close()
    # without the give-back: about -630 (two setters a step, two calls a restore)
    assert abs(change) < 20, change
