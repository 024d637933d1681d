"""The vehicle protocol: what the simulator, the linearisation and the FMU slave need of a vehicle.

A vehicle is a Python object built from its parameters and an `Environment`, fixed from then
on (change a parameter: build a new one). `VehicleSimulator`, `linearize` and
`auv_cosim.fmu.VehicleSlave` know nothing else about it than the members listed in `Vehicle`
below, so a new vehicle plugs into all three by providing them. `auv_cosim/vehicles/auv/` is the
worked example; a second vehicle follows these steps:

1. Tables (plain data, in its `model.py` or a module beside it):
   * `STATE = SignalTable(Signal("Pos", 3, "m", ...), ...)`: the state vector, in order. Each
     part's name + "0" is its initial-value parameter in the FMU (`Pos0`, `Quater0`, ...).
   * `INPUTS = SignalTable(...)`: the inputs, in the order of the input vector u. These are the
     FMU's input variables (a part of size n gives `Name[1]` ... `Name[n]`).
   * `OUTPUTS = SignalTable(...)`: the outputs of `output_vector`, in order, with units and
     descriptions (one per element for vectors).
   Units are names of `auv_cosim/fmu/units.py`. Nothing else writes these orders down: the FMU
   registers its variables from the tables, and the compiled code takes its indices from them
   (`OUTPUTS.start("Depth")`, see the constant-table note below).
2. Parameters: a frozen dataclass whose fields carry their unit and description in
   `field(metadata=...)` (see `auv_cosim.vehicles.parameters.parameter`), validated in
   `__post_init__` with a `ValueError` that names the parameter. The environment is the shared
   `auv_cosim.vehicles.environment.Environment`.
3. Physics: pure functions, one per force, compiled with `auv_cosim.compiled.jit.jit`, taking the
   state x, the inputs u and one flat float vector c of constants. The slots of c come from a
   `ConstantTable` declared in the SAME file as the compiled functions that read them (numba
   freezes a global integer into the machine code it caches, and checks only that file, and
   the files of the compiled functions it calls, to decide whether the cache is stale:
   auv_cosim/compiled/numba_cache.py `callees_stamp`). Shared pieces: `rotation` (rotations, quaternion
   kinematics of seed 003), `environment` (current, sea floor; waves later).
4. The model class implementing `Vehicle` (below): it packs c once, and hands out the compiled
   derivative with the time first (`derivative_at(t, x, u, c)`, the signature SciPy calls),
   the analytic Jacobians, the outputs and the projection after a step.
5. The FMU: a slave module deriving from `auv_cosim.fmu.VehicleSlave` naming the model, its
   parameter classes and its tables (see `auv_cosim/vehicles/auv/slave.py`), and one line in
   `tools/build_fmus.py`.
6. Tests in `tests/vehicles/auv/`: the Jacobians against central differences
   (`auv_cosim.vehicles.linearization.finite_difference_jacobians`), the seed's figures.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterator, Optional, Protocol, Sequence, Tuple, Union, runtime_checkable

import numpy as np


# ------------------------------------------------------------------------------ signal tables
@dataclass(frozen=True)
class Signal:
    """One named part of a state, input or output vector.

    `description` is one text for the whole part or one per element; `unit` likewise (a vector
    whose elements differ, e.g. added masses in kg and kg m2, gives one unit per element).
    `labels` name the elements for the FMU's per-element descriptions ("north", "east", ...).
    `columns` makes the part a matrix stored row by row, named `Name[i,j]`: its `unit` (a
    tuple) and `labels` then give one entry per column, the same for every row.
    """
    name: str
    size: int
    unit: Union[str, Tuple[str, ...]]
    description: Union[str, Tuple[str, ...]]
    labels: Optional[Tuple[str, ...]] = None
    columns: Optional[int] = None
    #: (low, high): the range an input is limited to, each bound a number or the name of a
    #: parameter field, "-Name" its negative (e.g. ("-MaxRudderAngle", "MaxRudderAngle")); the
    #: same for every element. The FMU declares it as min / max (auv_cosim.fmu.VehicleSlave).
    limits: Optional[Tuple[Union[float, str], Union[float, str]]] = None

    def bounds(self, parameter_sets: Sequence[object]) -> Optional[Tuple[float, float]]:
        """`limits` as numbers, a named bound read from the first of `parameter_sets` that
        has that field; None without limits."""
        if self.limits is None:
            return None

        def value(bound):
            if not isinstance(bound, str):
                return float(bound)
            sign, name = (-1.0, bound[1:]) if bound.startswith("-") else (1.0, bound)
            for parameters in parameter_sets:
                if hasattr(parameters, name):
                    return sign * float(getattr(parameters, name))
            raise ValueError(f"signal {self.name}: no parameter {name} for its limits")
        return value(self.limits[0]), value(self.limits[1])

    def element_names(self) -> Tuple[str, ...]:
        """FMI structured names: `Name` for a scalar, `Name[1]` ... `Name[n]` for a vector,
        `Name[i,j]` for a matrix."""
        if self.columns is not None:
            return tuple(f"{self.name}[{i // self.columns + 1},{i % self.columns + 1}]"
                         for i in range(self.size))
        if self.size == 1:
            return (self.name,)
        return tuple(f"{self.name}[{i + 1}]" for i in range(self.size))

    def element_units(self) -> Tuple[str, ...]:
        if self.columns is not None and isinstance(self.unit, tuple):
            return self.unit * (self.size // self.columns)
        return self.unit if isinstance(self.unit, tuple) else (self.unit,) * self.size

    def element_descriptions(self) -> Tuple[str, ...]:
        if isinstance(self.description, tuple):
            return self.description
        if self.columns is not None:
            labels = self.labels or tuple(f"column {j + 1}" for j in range(self.columns))
            return tuple(f"{self.description}, row {i // self.columns + 1}: {labels[i % self.columns]}"
                         for i in range(self.size))
        if self.size == 1:
            return (self.description,)
        labels = self.labels or tuple(f"element {i + 1}" for i in range(self.size))
        return tuple(f"{self.description}: {label}" for label in labels)


class SignalTable:
    """An ordered table of `Signal`s: the layout of one flat vector, computed, never typed."""

    def __init__(self, *signals: Signal):
        self.signals: Tuple[Signal, ...] = tuple(signals)
        self.layout: Dict[str, Tuple[int, int]] = {}
        start = 0
        for signal in self.signals:
            if signal.name in self.layout:
                raise ValueError(f"signal {signal.name} declared twice")
            self.layout[signal.name] = (start, signal.size)
            start += signal.size
        self.size = start

    def __iter__(self) -> Iterator[Signal]:
        return iter(self.signals)

    def __getitem__(self, name: str) -> Signal:
        for signal in self.signals:
            if signal.name == name:
                return signal
        raise KeyError(f"no signal {name!r} (known: {', '.join(self.layout)})")

    def start(self, name: str) -> int:
        """The index of the first element of `name` in the flat vector."""
        try:
            return self.layout[name][0]
        except KeyError:
            raise KeyError(f"no signal {name!r} (known: {', '.join(self.layout)})") from None

    def element_names(self) -> Tuple[str, ...]:
        """Every element's FMI name, in vector order."""
        return tuple(n for signal in self.signals for n in signal.element_names())

    def split(self, vector) -> Dict[str, object]:
        """A flat vector by name: floats for scalars, array copies for vectors."""
        out = {}
        for name, (start, size) in self.layout.items():
            out[name] = float(vector[start]) if size == 1 else np.array(vector[start:start + size])
        return out


# ------------------------------------------------------------------------------ constant table
class ConstantTable:
    """The slots of a vehicle's flat constant vector, allocated in declaration order.

        CONSTANTS = ConstantTable()
        C_MASS = CONSTANTS.add("mass", 1, lambda p, env: hull_of(p).mass)
        C_COG = CONSTANTS.add("COG", 3, lambda p, env: p.COG)
        c = CONSTANTS.pack(params, env)

    `add` returns the first index of the slot (a plain int, which the compiled functions use as
    a constant) and records how its value is computed; `pack` fills every slot. A slot's size
    and the source of its value are written once, in one line; the indices follow.
    """

    def __init__(self):
        self._slots: list = []
        self.size = 0

    def add(self, name: str, size: int, value: Callable[..., object]) -> int:
        start = self.size
        self._slots.append((name, start, size, value))
        self.size += size
        return start

    def pack(self, *sources) -> np.ndarray:
        """The constant vector: each slot's value function called with `sources`."""
        c = np.zeros(self.size)
        for name, start, size, value in self._slots:
            number = np.asarray(value(*sources), dtype=float).reshape(-1)
            if number.size != size:
                raise ValueError(f"constant {name} has {number.size} values, its slot {size}")
            c[start:start + size] = number
        return c

    def names(self) -> Tuple[str, ...]:
        return tuple(name for name, _, _, _ in self._slots)


# ------------------------------------------------------------------------------ the protocol
@runtime_checkable
class Vehicle(Protocol):
    """What every vehicle model provides (the AUV's is `auv_cosim.vehicles.auv.model.AuvModel`).

    Tables (class attributes):
        STATE, INPUTS, OUTPUTS: `SignalTable`s (state layout, input vector u, output vector).
    Per instance:
        params, env: the parameter dataclass and the `Environment` it was built from.
        constants: the flat float vector of its constant table, passed as c to `derivative_at`.
    Methods (x, u: 1-D float arrays of sizes STATE.size and INPUTS.size):
        derivative_at: the compiled x' = f(x, u, c) with the time first, f(t, x, u, c).
        derivative_into (optional): the same written into an array, f(t, x, u, c, xdot),
            returning nothing. The simulator integrates with it when the vehicle has it (one
            buffer, no array handed back from compiled code per call), else with derivative_at.
        derivative(x, u), state_jacobian(x, u) (n x n), input_jacobian(x, u) (n x m).
        output_vector(x, u, t): the outputs at time t (waves make them depend on it), flat, in
            the order of OUTPUTS.
        write_outputs(x, u, t, outputs, local_values) (optional, with LOCALS): output_vector
            and local_vector written into the two arrays; the FMU refreshes with it when the
            vehicle has it.
        project_state(x): called by the simulator on the state after every step, in place:
            keep the state on its manifold or in its domain (a battery at zero, a quaternion
            at unit norm). Do nothing if the equations do it themselves.
        initial_state(**parts): the state from its parts by name (`Pos0=...`, one per STATE
            signal + "0", each optional), validated, ValueError naming the part.
        startup_warnings(name): texts the FMU logs as warnings after initialisation (a
            vehicle that cannot dive...), empty when all is well.
    Among other vehicles (optional; docs/physics/environment.md#wakes, auv_cosim.vehicles.wake; both
    vehicles have them):
        EXTRA_INPUTS, EXTRA_OUTPUTS: `SignalTable`s of inputs after the table's (the others'
            wake rows: no column in the input Jacobian) and of outputs after the table's (in
            the FMU's output array, written by `write_outputs` when it is that long).
        GIVEN_INPUTS, INPUT_ARRAY_SIZE: how many inputs a caller gives (the table's and the
            extra ones) and the size of the array they are held in over a step.
        hold_inputs(x, u, c): compiled, fills the rest of that array at a step's start;
            returns 0 or a code, which input_problem(code, u) puts in words.
    """

    STATE: SignalTable
    INPUTS: SignalTable
    OUTPUTS: SignalTable
    constants: np.ndarray

    def derivative_at(self, t: float, x: np.ndarray, u: np.ndarray, c: np.ndarray) -> np.ndarray: ...

    def derivative(self, x, u) -> np.ndarray: ...

    def state_jacobian(self, x, u) -> np.ndarray: ...

    def input_jacobian(self, x, u) -> np.ndarray: ...

    def output_vector(self, x, u, t: float = 0.0) -> np.ndarray: ...

    def project_state(self, x: np.ndarray) -> None: ...

    def initial_state(self, **parts) -> np.ndarray: ...

    def startup_warnings(self, name: str) -> Sequence[str]: ...
