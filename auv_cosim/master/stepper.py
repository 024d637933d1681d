"""One FMU instance prepared for the stepping loop, and its stepper.

The loop works on one flat float64 vector, ``row`` (the time, every output of every instance
and every signal value; laid out by ``layout``). Each instance reads its Real outputs straight
into its slice of ``row`` (one ``fmi2GetReal`` call into a ctypes view of the numpy buffer),
gathers its inputs from ``row`` with one ``numpy.take`` over a precomputed index array, and
hands them over with one ``fmi2SetReal`` call. Value references, buffers and index arrays are
prepared once (``prepare``); the stepper's closures do no dictionary lookups and allocate
nothing.
"""

from __future__ import annotations

import math
from ctypes import addressof, c_double, c_int, c_size_t, c_uint, c_void_p, cast
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave

from .fmi_log import RunFailure, fmt_time
from .native_loop import CALL_DO_STEP, CALL_GET_DISCRETE, CALL_GET_REAL, CALL_SET_DISCRETE, CALL_SET_REAL
from .plan import Plan


def _vr_array(vrs):
    return (c_uint * len(vrs))(*vrs)


@dataclass
class InputPort:
    """Inputs of one type: where they come from in ``row`` and where they go in the FMU."""

    names: list[str]
    vr: Any
    buf: Any
    view: np.ndarray
    src: np.ndarray
    n_conn: int  # the first n_conn come from connections, the rest from signals
    tmp: np.ndarray | None = None  # float staging for Integer/Boolean inputs

    @property
    def n(self):
        return len(self.names)


@dataclass
class Instance:
    """An FMU instance of the run and what the loop needs of it."""

    name: str
    fmu: FMU2Slave
    md: Any
    state: str = "instantiated"  # -> initialised, error, fatal, terminated
    real_out: tuple | None = None  # (vr, n, ctypes view into row)
    int_out: tuple | None = None  # (vr, n, buf, view, a, b)
    bool_out: tuple | None = None
    real_in: InputPort | None = None
    int_in: InputPort | None = None
    bool_in: InputPort | None = None
    conn_names: list[str] = field(default_factory=list)  # connection text per connected Real input
    #: the wakes it takes (connections into its WakeSources): set at the communication point
    #: before any instance steps from it (``Stepper.early``)
    early_in: InputPort | None = None
    early_names: list[str] = field(default_factory=list)


def prepare(instance: Instance, ip, plan: Plan, colmap: dict, groups: dict, row: np.ndarray):
    """Value-reference arrays, ctypes buffers and index arrays for one instance."""
    real_vs, a, b = groups["Real"]
    if real_vs:
        view = (c_double * len(real_vs)).from_address(row.ctypes.data + 8 * a)
        instance.real_out = (_vr_array([v.vr for v in real_vs]), len(real_vs), view)
    for typ, attr in (("Integer", "int_out"), ("Boolean", "bool_out")):
        vs, a, b = groups[typ]
        if vs:
            buf = (c_int * len(vs))()
            setattr(instance, attr, (_vr_array([v.vr for v in vs]), len(vs), buf, np.ctypeslib.as_array(buf), a, b))

    conns = [c for c in plan.connections if c.dst == ip.name and not c.early]
    early = [c for c in plan.connections if c.dst == ip.name and c.early]
    if early:
        buf = (c_double * len(early))()
        instance.early_in = InputPort([c.dst_var.name for c in early], _vr_array([c.dst_var.vr for c in early]), buf,
                                      np.ctypeslib.as_array(buf),
                                      np.array([colmap[f"{c.src}.{c.src_var.name}"] for c in early], dtype=np.intp),
                                      len(early))
        instance.early_names = [c.text for c in early]
    sigs = [s for s in plan.signals if s.inst == ip.name]
    for typ, attr in (("Real", "real_in"), ("Integer", "int_in"), ("Boolean", "bool_in")):
        match = (lambda v: v.type == typ or (typ == "Integer" and v.type == "Enumeration"))
        cs = [c for c in conns if match(c.dst_var)]
        ss = [s for s in sigs if match(s.var)]
        if not cs and not ss:
            continue
        names = [c.dst_var.name for c in cs] + [s.var.name for s in ss]
        vrs = [c.dst_var.vr for c in cs] + [s.var.vr for s in ss]
        src = np.array([colmap[f"{c.src}.{c.src_var.name}"] for c in cs] + [colmap[s.target] for s in ss], dtype=np.intp)
        if typ == "Real":
            buf = (c_double * len(vrs))()
            port = InputPort(names, _vr_array(vrs), buf, np.ctypeslib.as_array(buf), src, len(cs))
            instance.conn_names = [c.text for c in cs]
        else:
            buf = (c_int * len(vrs))()
            port = InputPort(names, _vr_array(vrs), buf, np.ctypeslib.as_array(buf), src, len(cs), np.zeros(len(vrs)))
        setattr(instance, attr, port)


def _raw_function(fmu: FMU2Slave, name: str):
    """The FMU library's function ``name`` as a ctypes function object *without* argtypes.

    fmpy declares argtypes on its own function objects, and ctypes then converts every
    argument on every call (about 0.3 us per call, and the loop makes a dozen calls per
    step). Called without argtypes, ctypes passes ctypes instances as they are, so every
    argument handed to these objects must already be a ctypes instance of the C type of the
    parameter (c_void_p for the component, arrays for the value references and values,
    c_size_t for a count, c_double for a time, c_int for a boolean): a bare Python int would
    go as a C int, which is wrong for a pointer or a size_t. ``dll[name]`` makes a new
    function object each time; fmpy's, cached as an attribute of the library, is untouched.
    The return value is the fmi2Status (an int), checked as fmpy does."""
    function = fmu.dll[name]
    function.restype = c_int
    return function


class Stepper(NamedTuple):
    """The calls the loop makes on one instance: ``set_inputs()`` (gather from ``row``, check
    the connected values, hand them over), ``advance(t)`` (fmi2DoStep), ``read_outputs()``
    (into ``row``), what the Jacobi loop calls one phase at a time; and ``calls``, the same
    three steps as one flat tuple of calls without arguments (each transfer, then fmi2DoStep
    from the time in the loop's shared ``now``, then each read), which the Gauss-Seidel loop
    makes in one loop over every instance: no frame per instance or per phase in between, no
    ctypes double made per step."""

    set_inputs: Callable[[], None]
    advance: Callable[[float], None]
    read_outputs: Callable[[], None]
    calls: tuple
    #: the same calls described for the C loop (auv_cosim/master/native_loop.py), as three tuples: the
    #: transfers, fmi2DoStep, the reads (the Jacobi loop makes each phase for every instance
    #: before the next). Per call, the fields of its ``Call`` and the function that raises what
    #: the Python call would raise, given the status the C loop reports (-1: a connected value
    #: was not finite).
    native: tuple = ((), (), ())
    #: the transfers made at the communication point before any instance steps from it (the
    #: wakes the instance takes: every vehicle reads the others' WakeSource of the same
    #: instant, whatever the order), as calls and as the C loop's descriptions; not made at
    #: initialisation (the rows start at zero: no source)
    early: tuple = ()
    early_native: tuple = ()


def make_stepper(instance: Instance, row: np.ndarray, h: float, now: c_double) -> Stepper:
    """The stepper of one instance, with everything its closures touch bound once, here
    (``now``: the communication point the loop is at, for ``calls``' fmi2DoStep).

    The FMU library's functions are called directly through ctypes (see ``_raw_function``),
    without fmpy's per-call wrapper; the status is checked exactly as fmpy does: anything above
    fmi2Warning raises fmpy's ``FMICallException``. Each transfer that the instance does not
    have (no Integer inputs, no Boolean outputs, ...) is left out of its closures when they are
    made, not tested at every call. Made in three parts: the inputs' transfers
    (`_input_transfers`), the outputs' reads (`_output_reads`), fmi2DoStep (`_advances`)."""
    comp = c_void_p(instance.fmu.component)
    setReal, setInteger, setBoolean, getReal, getInteger, getBoolean, doStep = (
        _raw_function(instance.fmu, f"fmi2{name}") for name in
        ("SetReal", "SetInteger", "SetBoolean", "GetReal", "GetInteger", "GetBoolean", "DoStep"))
    transfers, native, early, early_native = _input_transfers(instance, row, comp, setReal, setInteger, setBoolean)
    reads, reads_native = _output_reads(instance, row, comp, getReal, getInteger, getBoolean)
    advance, advance_from_now, step_native = _advances(comp, doStep, h, now)
    return Stepper(_sequence(transfers), advance, _sequence(reads), (*transfers, advance_from_now, *reads),
                   (tuple(native), (step_native,), tuple(reads_native)), early, early_native)


def _address(function) -> int:
    """Where a ctypes function object's C function is (what the C loop calls)."""
    return cast(function, c_void_p).value


def _raiser(function_name: str):
    """What the C loop's caller calls with the status of a failed call of ``function_name``:
    it raises fmpy's ``FMICallException``, as the Python call would."""
    def fail(status: int):
        raise FMICallException(function_name, status)
    return fail


def _input_transfers(instance: Instance, row: np.ndarray, comp: c_void_p, setReal, setInteger, setBoolean):
    """The calls that hand the instance its inputs (Real, Integer, Boolean, in that order) and
    the same calls described for the C loop; then those of the wakes it takes (``Stepper.early``:
    none, or one Real transfer)."""
    transfers = []  # the closures set_inputs calls, in order
    native = []     # the same calls described for the C loop, in the order of `calls`
    rp = instance.real_in
    if rp is not None:
        set_real, described = _real_setter(instance, rp, instance.conn_names, row, comp, setReal)
        transfers.append(set_real)
        native.append(described)
    early, early_native = (), ()
    if instance.early_in is not None:
        set_early, described = _real_setter(instance, instance.early_in, instance.early_names, row, comp, setReal)
        early, early_native = (set_early,), (described,)

    for port, function, function_name in ((instance.int_in, setInteger, "fmi2SetInteger"),
                                          (instance.bool_in, setBoolean, "fmi2SetBoolean")):
        if port is not None:
            transfers.append(_discrete_setter(port, row, comp, function, function_name))
            native.append(((CALL_SET_DISCRETE, _address(function), comp.value, addressof(port.vr), port.n,
                            port.src.ctypes.data, 0, addressof(port.buf), 0), _raiser(function_name)))
    return transfers, native, early, early_native


def _real_setter(instance: Instance, rp: InputPort, names: list[str], row: np.ndarray, comp: c_void_p, setReal):
    """The closure that hands over one port of Real inputs (gathered from ``row``, the
    connected ones checked finite) and its description for the C loop."""
    take = row.take
    isfinite = math.isfinite
    E = FMICallException
    r_src, r_view, r_vr, r_buf, r_nc = rp.src, rp.view, rp.vr, rp.buf, rp.n_conn
    r_n = c_size_t(rp.n)
    # The connected values (the first r_nc) are checked before they are handed over: their
    # sum is finite only when every one is. A sum over a memoryview of the buffer costs a
    # fifth of numpy's reduce on a handful of values.
    r_conn = memoryview(r_buf).cast("B").cast("d")[:r_nc]

    def bad_value():
        """The failure for the first non-finite connected value (None if there is none: the
        sum of finite values overflowed)."""
        bad = [i for i in range(r_nc) if not isfinite(r_view[i])]
        if not bad:
            return None
        i = bad[0]
        return RunFailure(
            f"non-finite value {r_view[i]} exchanged on connection {names[i]} at t={fmt_time(row[0])} s",
            instance=instance.name, variable=rp.names[i], connection=names[i], value=str(r_view[i]),
            time=float(row[0]), source=names[i].split(" -> ")[0])

    def set_real():
        take(r_src, out=r_view, mode="clip")
        if r_nc and not isfinite(sum(r_conn)):
            failure = bad_value()
            if failure is not None:
                raise failure
        status = setReal(comp, r_vr, r_n, r_buf)
        if status > 1:
            raise E("fmi2SetReal", status)

    def fail_set_real(status: int):
        if status == -1:
            raise bad_value()
        raise E("fmi2SetReal", status)

    return set_real, ((CALL_SET_REAL, _address(setReal), comp.value, addressof(r_vr), rp.n, r_src.ctypes.data,
                       r_nc, addressof(r_buf), 0), fail_set_real)


def _discrete_setter(port: InputPort, row: np.ndarray, comp: c_void_p, function, function_name: str):
    """The closure that hands over one port of Integer or Boolean inputs (gathered from ``row``
    as floats, handed over as C ints)."""
    take = row.take
    E = FMICallException
    src, tmp, view, vr, n, buf = port.src, port.tmp, port.view, port.vr, c_size_t(port.n), port.buf

    def set_discrete():
        take(src, out=tmp, mode="clip")
        view[:] = tmp
        status = function(comp, vr, n, buf)
        if status > 1:
            raise E(function_name, status)

    return set_discrete


def _output_reads(instance: Instance, row: np.ndarray, comp: c_void_p, getReal, getInteger, getBoolean):
    """The calls that read the instance's outputs into ``row`` (Real straight into its slice,
    then Integer and Boolean through C ints) and the same calls described for the C loop."""
    E = FMICallException
    reads = []
    reads_native = []
    if instance.real_out is not None:
        o_vr, o_n, o_view = instance.real_out
        o_n = c_size_t(o_n)

        def get_real():
            status = getReal(comp, o_vr, o_n, o_view)
            if status > 1:
                raise E("fmi2GetReal", status)

        reads.append(get_real)
        reads_native.append(((CALL_GET_REAL, _address(getReal), comp.value, addressof(o_vr), o_n.value, None, 0, None,
                              (addressof(o_view) - row.ctypes.data) // 8), _raiser("fmi2GetReal")))

    for output, function, function_name in ((instance.int_out, getInteger, "fmi2GetInteger"),
                                            (instance.bool_out, getBoolean, "fmi2GetBoolean")):
        if output is not None:
            reads.append(_discrete_getter(output, row, comp, function, function_name))
            vr, n, buf, _view, a, _b = output
            reads_native.append(((CALL_GET_DISCRETE, _address(function), comp.value, addressof(vr), n, None, 0,
                                  addressof(buf), a), _raiser(function_name)))
    return reads, reads_native


def _discrete_getter(output: tuple, row: np.ndarray, comp: c_void_p, function, function_name: str):
    """The closure that reads one type of Integer or Boolean outputs into their slice of ``row``."""
    E = FMICallException
    vr, n, buf, view, a, b = output
    n = c_size_t(n)

    def get_discrete():
        status = function(comp, vr, n, buf)
        if status > 1:
            raise E(function_name, status)
        row[a:b] = view

    return get_discrete


def _advances(comp: c_void_p, doStep, h: float, now: c_double):
    """fmi2DoStep of one step h: from a time given (``advance(t)``, the Jacobi loop's), from the
    loop's shared ``now`` (in ``calls``), and described for the C loop."""
    E = FMICallException
    step_size = c_double(h)
    no_set_fmu_state_prior = c_int(1)  # fmi2True: the master never rolls back

    def advance(t):
        status = doStep(comp, c_double(t), step_size, no_set_fmu_state_prior)
        if status > 1:
            raise E("fmi2DoStep", status)

    def advance_from_now():
        status = doStep(comp, now, step_size, no_set_fmu_state_prior)
        if status > 1:
            raise E("fmi2DoStep", status)

    step_native = ((CALL_DO_STEP, _address(doStep), comp.value, None, 0, None, 0, None, 0), _raiser("fmi2DoStep"))
    return advance, advance_from_now, step_native


def _sequence(calls: list[Callable[[], None]]) -> Callable[[], None]:
    """One call that makes ``calls`` in order (the single call itself when there is one)."""
    if not calls:
        return lambda: None
    if len(calls) == 1:
        return calls[0]
    if len(calls) == 2:
        first, second = calls

        def both():
            first()
            second()

        return both

    def each():
        for call in calls:
            call()

    return each
