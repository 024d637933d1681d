"""The native wrapper's direct transfers (auv_cosim/build/native/direct_transfers.c;
auv_cosim/fmu/slave.py, "Direct transfers"), through fmpy, on a probe FmuSlave whose values live
in every kind of place a plan can name: elements of a numpy array, elements of a list, entries
of a dict.

What must hold: in the stepping phase a get or set of values kept there calls none of the
slave's Python methods, and gives the values the Python path gives; anything the wrapper relies
on that changes (the array replaced, retyped or shrunk, a list item that is not a float, a new
phase, a new slave after fmi2Reset) sends the call through the slave's methods again, with
their values and their errors; a parameter, or a value the slave refuses, never goes directly;
a value beyond its declared range goes through the slave, which warns; calls with different
references that alternate (a vehicle's commands, then the others' wakes) each keep their plan.
"""
from __future__ import annotations

import subprocess
import sys
from ctypes import c_double, c_uint
from pathlib import Path

import numpy as np
import pytest

from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException

from tests.integration.test_native_wrapper import Instance
from tests.wrapper_kind import ERROR, OK, WARNING, native_wrapper

ROOT = Path(__file__).resolve().parents[2]
MODULE = "native_direct_probe_slave"   # a module name no other FMU of the session uses

PROBE_SOURCE = '''
import numpy as np
from auv_cosim.fmu import FmuSlave

#: every probe instance, so that the test can look at the slave behind the FMI calls
INSTANCES = []

#: per mode from 5: the types of the list's items, of K and of G (numpy's scalars)
NUMPY_SCALARS = {5: (np.float64, np.int64, np.bool_), 6: (np.float64, np.int32, np.uint8),
                 7: (np.float64, np.bool_, np.int16), 8: (np.float64, np.uint64, np.int64),
                 9: (np.float64, np.longlong, np.bool_)}


class DirectProbe(FmuSlave):
    """X[i] = 2 A[i] (a numpy array), L = [A[1] + B, B] (a list), K = N + 1 and G = not F
    (dict entries). Mode (an Integer input) chooses how do_step leaves the arrays: 0 in place,
    1 a new array, 2 a float32 array, 3 an array too short, 4 the list holding ints; from 5 on
    the list, K and G hold numpy's scalars (NUMPY_SCALARS: what a slave computing with numpy
    returns)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inputs = np.zeros(3)
        self.outputs = np.zeros(3)
        self.listed = [0.0, 0.0]
        self.values = {"B": 0.0, "N": 0, "F": False, "Mode": 0, "K": 1, "G": True, "R": 0.0}
        self.P = 1.0
        self.calls = {}
        self.add_real_vector("A", 3, causality="input", description="input", unit=None, attr="inputs")
        self.add_real("B", causality="input", description="input", unit=None, entry=(self.values, "B"))
        self.add_integer("N", causality="input", description="input", entry=(self.values, "N"))
        self.add_integer("Mode", causality="input", description="how do_step leaves the arrays",
                         entry=(self.values, "Mode"))
        self.add_boolean("F", causality="input", description="input", entry=(self.values, "F"))
        self.add_real("P", causality="parameter", variability="tunable", description="tunable", unit=None)
        self.add_real_vector("X", 3, causality="output", description="2 A", unit=None, attr="outputs")
        self.add_real("L1", causality="output", description="A[1] + B", unit=None, element=("listed", 0))
        self.add_real("L2", causality="output", description="B", unit=None, element=("listed", 1))
        self.add_integer("K", causality="output", description="N + 1", entry=(self.values, "K"))
        self.add_boolean("G", causality="output", description="not F", entry=(self.values, "G"))
        self.add_real("R", causality="input", description="an input with a declared range", unit=None,
                      entry=(self.values, "R"), minimum=-1.0, maximum=1.0)
        for name in ("get_real", "set_real", "get_integer", "set_integer", "get_boolean", "set_boolean"):
            setattr(self, name, self._counted(name, getattr(self, name)))   # the class's methods stay
        INSTANCES.append(self)

    def _counted(self, name, method):
        def call(*args):
            self.calls[name] = self.calls.get(name, 0) + 1
            return method(*args)
        return call

    def fmu_initial_outputs(self):
        self.outputs[:] = 2.0 * self.inputs

    def fmu_do_step(self, current_time, step_size):
        doubled = 2.0 * self.inputs
        mode = self.values["Mode"]
        if mode == 0:
            self.outputs[:] = doubled
        elif mode in (1, 2):
            self.outputs = doubled.astype(np.float64 if mode == 1 else np.float32)
        elif mode == 3:
            self.outputs = doubled[:1].copy()
        self.listed[:] = [self.inputs[0] + self.values["B"], self.values["B"]]
        if mode == 4:
            self.listed[:] = [int(v) for v in self.listed]
        self.values["K"] = self.values["N"] + 1
        self.values["G"] = not self.values["F"]
        if mode in NUMPY_SCALARS:
            real, integer, boolean = NUMPY_SCALARS[mode]
            self.listed[:] = [real(v) for v in self.listed]
            self.values["K"] = integer(self.values["K"] if integer is not np.bool_ else self.values["K"] > 3)
            self.values["G"] = boolean(self.values["G"] if boolean is np.bool_ else 3 * self.values["G"])
'''


@pytest.fixture(scope="module")
def direct_probe(tmp_path_factory):
    """(model description, extracted folder, name -> value reference) of DirectProbe.fmu with
    the project's wrapper."""
    compiler = native_wrapper.find_compiler()
    if compiler is None:
        pytest.skip(f"no C compiler: FMUs carry pythonfmu's stock binary ({native_wrapper.NO_COMPILER_COST})")
    d = tmp_path_factory.mktemp("direct")
    src = d / f"{MODULE}.py"
    src.write_text(PROBE_SOURCE)
    # the probe runs on the auv_cosim.fmu of this process (the test's own), which it imports
    subprocess.run([sys.executable, "-m", "pythonfmu", "build", "-f", str(src), "-d", str(d)],
                   check=True, capture_output=True, cwd=ROOT)
    fmu = d / "DirectProbe.fmu"
    assert native_wrapper.install(fmu, "DirectProbe")
    md = read_model_description(str(fmu))
    folder = extract(str(fmu), unzipdir=str(d / "extracted"))
    return md, Path(folder), {v.name: v.valueReference for v in md.modelVariables}


class Probe(Instance):
    def __init__(self, probe):
        super().__init__(probe, name="direct", model="DirectProbe")
        self.slave = sys.modules[MODULE].INSTANCES[-1]
        self.x = [self.vr[f"X[{i}]"] for i in (1, 2, 3)]
        self.a = [self.vr[f"A[{i}]"] for i in (1, 2, 3)]

    def python_calls(self) -> dict:
        """The slave's methods called so far, with their counts; forgets them."""
        calls = dict(self.slave.calls)
        self.slave.calls.clear()
        return calls

    def started(self):
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        self.fmu.exitInitializationMode()
        self.python_calls()
        return self

    def step(self, mode=0, a=(1.0, 2.0, 3.0), b=0.5, n=4, f=True):
        self.fmu.setReal(self.a + [self.vr["B"]], list(a) + [b])
        self.fmu.setInteger([self.vr["N"], self.vr["Mode"]], [n, mode])
        self.fmu.setBoolean([self.vr["F"]], [f])
        self.fmu.doStep(0.0, 0.1)

    def outputs(self):
        return (self.fmu.getReal(self.x), self.fmu.getReal([self.vr["L1"], self.vr["L2"]]),
                self.fmu.getInteger([self.vr["K"]]), self.fmu.getBoolean([self.vr["G"]]))


def test_stepping_transfers_call_no_python_method_and_give_the_python_values(direct_probe):
    p = Probe(direct_probe).started()
    p.step()
    assert p.outputs() == ([2.0, 4.0, 6.0], [1.5, 0.5], [5], [False])
    p.step(a=(0.1, -0.0, float("inf")), b=float("nan"), n=-7, f=False)
    x, (l1, l2), k, g = p.outputs()
    assert x[:2] == [0.2, -0.0] and str(x[1]) == "-0.0" and x[2] == float("inf")
    assert l1 != l1 and l2 != l2 and (k, g) == ([-6], [True])
    assert p.python_calls() == {}, "every get and set went directly"
    assert p.slave.values_changed and p.slave.values["N"] == -7 and type(p.slave.values["F"]) is bool
    assert p.fmu.getReal([p.x[2], p.x[0]]) == [float("inf"), 0.2]      # other references: a plan of their own
    assert p.python_calls() == {}
    p.fmu.freeInstance()


@pytest.mark.parametrize("mode", [5, 6, 7, 8, 9])
@pytest.mark.parametrize("f", [False, True])
def test_numpy_scalars_are_read_directly_with_the_python_values(direct_probe, mode, f):
    """numpy's float64, bool_ and integer scalars (of a slave computing with numpy) are read as
    Python's float, bool and int are: no Python method called, the values of the slave's own
    getters (float(), int(), bool() of them)."""
    p = Probe(direct_probe).started()
    p.step(mode=mode, a=(0.25, 0.0, 0.0), b=-1.5, n=4, f=f)
    direct = p.outputs()
    assert p.python_calls() == {}, "every get went directly"
    slave, vr = p.slave, p.vr
    real, integer, boolean = sys.modules[MODULE].NUMPY_SCALARS[mode]
    assert [type(v) for v in (*slave.listed, slave.values["K"], slave.values["G"])] == [real, real, integer, boolean]
    python = (slave.get_real(p.x), slave.get_real([vr["L1"], vr["L2"]]), slave.get_integer([vr["K"]]),
              slave.get_boolean([vr["G"]]))
    assert direct == python
    assert direct[1:] == ([-1.25, -1.5], [5 if integer is not np.bool_ else 1], [not f])
    p.fmu.freeInstance()


def test_a_numpy_integer_too_large_for_a_long_is_read_through_python(direct_probe):
    p = Probe(direct_probe).started()
    p.step(mode=8)
    p.slave.values["K"] = np.uint64(2**63 + 5)     # PyLong_AsLong overflows: not read directly
    try:
        p.fmu.getInteger([p.vr["K"]])
    except FMICallException:
        pass    # whatever the Python path makes of it, the direct read served nothing
    assert p.python_calls() == {"get_integer": 1}
    p.fmu.freeInstance()


def test_before_the_stepping_phase_reads_and_sets_go_through_python(direct_probe):
    p = Probe(direct_probe)
    p.fmu.setupExperiment(startTime=0.0)
    p.fmu.enterInitializationMode()
    p.fmu.setReal(p.a, [1.0, 2.0, 3.0])
    assert p.fmu.getReal(p.x) == [2.0, 4.0, 6.0]                          # refreshed by fmu_initial_outputs
    assert p.python_calls() == {"set_real": 1, "get_real": 1}
    p.fmu.exitInitializationMode()
    assert p.fmu.getReal(p.x) == [2.0, 4.0, 6.0]
    assert p.python_calls() == {}
    p.fmu.terminate()                                                     # a new phase: no plan
    assert p.fmu.getReal(p.x) == [2.0, 4.0, 6.0]
    assert p.python_calls() == {"get_real": 1}
    p.fmu.freeInstance()


@pytest.mark.parametrize("mode, python", [
    (1, {}),                    # a new float64 array: read directly where it is now
    (2, {"get_real": 1}),       # a float32 one: through Python, its float32 values as doubles
])
def test_a_replaced_array_is_read_as_it_is_now(direct_probe, mode, python):
    p = Probe(direct_probe).started()
    p.step(mode=mode, a=(0.1, 0.2, 0.3))
    p.python_calls()
    doubled = 2.0 * np.array([0.1, 0.2, 0.3])
    assert p.fmu.getReal(p.x) == (doubled if mode == 1 else doubled.astype(np.float32)).tolist()
    assert p.python_calls() == python
    p.fmu.freeInstance()


def test_a_shrunk_array_fails_the_read_as_the_python_path_does_and_a_reset_goes_on(direct_probe):
    p = Probe(direct_probe).started()
    p.step(mode=3)
    with pytest.raises(FMICallException) as failure:
        p.fmu.getReal(p.x)
    assert failure.value.status == ERROR
    assert any("IndexError" in m or "index" in m for m in p.errors()), p.messages
    assert p.fmu.getReal(p.x[:1]) == [2.0]        # in Error (FMI 2.0): the getters still answer
    with pytest.raises(FMICallException):
        p.step(mode=1)                            # ... and nothing else until a reset
    p.fmu.reset()
    p.slave = sys.modules[MODULE].INSTANCES[-1]
    p.started()
    p.step(mode=1)
    assert p.fmu.getReal(p.x) == [2.0, 4.0, 6.0]
    p.fmu.freeInstance()


def test_list_items_that_are_not_floats_are_read_through_python(direct_probe):
    p = Probe(direct_probe).started()
    p.step(mode=4, a=(3.0, 0.0, 0.0), b=2.0)
    p.python_calls()
    assert p.fmu.getReal([p.vr["L1"], p.vr["L2"]]) == [5.0, 2.0]
    assert p.python_calls() == {"get_real": 1}
    p.fmu.freeInstance()


def test_a_parameter_and_a_refused_set_go_through_python_with_their_rules(direct_probe):
    p = Probe(direct_probe).started()
    p.slave.parameters_changed = False
    p.fmu.setReal([p.vr["P"]], [2.5])                                       # tunable: allowed, flagged
    assert (p.slave.P, p.slave.parameters_changed) == (2.5, True)
    with pytest.raises(FMICallException) as failure:                         # an output: fmi2Error, logged
        p.fmu.setReal(p.x[:1], [9.0])
    assert failure.value.status == ERROR
    assert p.fmu.getReal(p.x[:1]) == [0.0]                                   # a read: allowed in Error
    assert any("cannot set X[1]" in m for m in p.errors()), p.messages
    assert p.python_calls() == {"set_real": 2, "get_real": 1}   # no direct read in Error
    p.fmu.freeInstance()


def test_after_a_reset_the_new_slave_is_served_and_the_old_one_left_alone(direct_probe):
    p = Probe(direct_probe).started()
    p.step()
    old = p.slave
    p.fmu.reset()
    p.slave = sys.modules[MODULE].INSTANCES[-1]
    assert p.slave is not old
    p.started()
    p.step(a=(5.0, 6.0, 7.0))
    assert p.outputs()[0] == [10.0, 12.0, 14.0]
    assert list(old.outputs) == [2.0, 4.0, 6.0] and p.python_calls() == {}
    p.fmu.freeInstance()


def test_a_ranged_input_is_set_directly_within_its_range_and_through_the_slave_beyond_it(direct_probe):
    p = Probe(direct_probe).started()
    r, a1 = p.vr["R"], p.a[0]
    set_real = p.fmu.fmi2SetReal

    def status(refs, values):
        n = len(refs)
        return set_real(p.fmu.component, (c_uint * n)(*refs), n, (c_double * n)(*values))

    assert status([a1, r], [0.5, 1.0]) == OK and status([r], [float("nan")]) == OK
    assert p.python_calls() == {}, "within the range (NaN included): set directly"
    assert status([a1, r], [0.25, 3.0]) == WARNING                     # beyond: the slave warns
    assert (p.slave.inputs[0], p.slave.values["R"]) == (0.25, 3.0)     # ... and sets it, as always
    assert p.python_calls() == {"set_real": 1}
    assert any("R = 3.0 is outside its range [-1.0, 1.0]" in m for _, _, m in p.messages), p.messages
    assert status([a1, r], [0.25, 3.0]) == OK                          # said once per variable
    assert p.python_calls() == {"set_real": 1}
    p.slave.set_range(r, -5.0, 5.0)                                     # a new range, a new plan
    assert status([a1, r], [0.0, 4.0]) == OK and p.python_calls() == {}
    assert p.slave.values["R"] == 4.0
    p.fmu.freeInstance()


def test_alternating_references_keep_their_plans(direct_probe):
    """A host that makes several calls of one kind per step, with different references, is
    served directly by each, the plans asked once per set of references; more sets than the
    wrapper keeps still give the right values."""
    p = Probe(direct_probe).started()
    p.step()
    asked = []
    plan = p.slave._native_plan

    def counted(type_name, vrs, setting):
        asked.append((type_name, tuple(vrs), setting))
        return plan(type_name, vrs, setting)

    p.slave._native_plan = counted
    sets = [p.x, [p.vr["L1"], p.vr["L2"]], [p.x[2], p.x[0]]]
    for _ in range(5):
        assert [p.fmu.getReal(refs) for refs in sets] == [[2.0, 4.0, 6.0], [1.5, 0.5], [6.0, 2.0]]
        p.fmu.setReal([p.vr["B"]], [0.5])
        p.fmu.setReal(p.a, [1.0, 2.0, 3.0])
    assert p.python_calls() == {}
    assert sorted(asked) == sorted({*asked}) and len(asked) == 5, asked   # once each
    many = [[p.x[i]] for i in range(3)] + sets                            # six sets: some evicted
    for _ in range(3):
        assert [p.fmu.getReal(refs) for refs in many] == [[2.0], [4.0], [6.0], [2.0, 4.0, 6.0],
                                                          [1.5, 0.5], [6.0, 2.0]]
    assert p.python_calls() == {}
    p.fmu.freeInstance()
