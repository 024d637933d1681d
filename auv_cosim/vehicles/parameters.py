"""How a vehicle declares its parameters: one dataclass field each, its unit and description
beside it, validated on construction.

    @dataclass(frozen=True)
    class MyParameters(ParameterSet):
        Length: float = parameter(2.0, "m", "Hull length")
        COG: Vector3 = parameter((0.0, 0.0, 0.02), "m", "Centre of gravity", labels=XYZ)

`parameter` is `dataclasses.field` with the declaration in `metadata` (keys `unit`,
`description`, `size`, `labels`, `variability`, `zero_means`): the FMU slave
(`auv_cosim.fmu.VehicleSlave`) registers one FMI parameter per field from it, nothing written
twice. `ParameterSet.__post_init__` turns every field into a float or a tuple of floats of
the declared size and raises a `ValueError` that names the parameter and the value; a
subclass adds its own checks in `_validate`.

The metadata keys are plain strings and this module imports nothing of FMI: the physics stays
plain Python.
"""
from __future__ import annotations

import dataclasses
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from ..compiled.numbers import check_number

Vector3 = Tuple[float, float, float]

#: Element labels the FMU uses in per-element descriptions.
XYZ = ("body x", "body y", "body z")
NED = ("north", "east", "down")


def parameter(default, unit: Union[str, Sequence[str]], description: str, *,
              size: Optional[int] = None, labels: Optional[Sequence[str]] = None,
              variability: str = "fixed", zero_means: Optional[str] = None,
              shape: Optional[Tuple[Optional[int], int]] = None, kind: str = "real"):
    """A parameter field: `default`, SI `unit` (a name of auv_cosim/fmu/units.py, or one per
    element), `description`; `size` when the default does not show it (None); `labels` of the
    elements; `variability` "tunable" when it may change during a run; `zero_means`: for a
    vector that may be None (derived), what an all-zero value stands for in the FMU.
    `shape` (rows, columns) makes it a matrix, stored flat row by row and named `Name[i,j]` in
    the FMU; rows None: any number of rows (the size then comes from the value, a multiple of
    the columns; e.g. one row per thruster of a vehicle file). `kind` "integer": a whole
    number (an FMI Integer)."""
    if shape is not None:
        size = None if shape[0] is None else shape[0] * shape[1]
    elif size is None:
        size = len(default) if isinstance(default, (tuple, list)) else 1
    metadata = {"unit": tuple(unit) if isinstance(unit, (tuple, list)) else unit,
                "description": description, "size": size,
                "labels": tuple(labels) if labels is not None else None,
                "variability": variability, "zero_means": zero_means,
                "shape": tuple(shape) if shape is not None else None, "kind": kind}
    return dataclasses.field(default=default, metadata=metadata)


def declared_fields(cls):
    """The fields of a parameter dataclass that carry a declaration, in order."""
    return [f for f in dataclasses.fields(cls) if "unit" in f.metadata]


class ParameterSet:
    """Base of frozen parameter dataclasses declared with `parameter` (see the module doc)."""

    def __post_init__(self):
        for f in declared_fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            size = f.metadata["size"]
            kind = f.metadata.get("kind")
            if kind in _CONVERTERS:
                object.__setattr__(self, f.name, _CONVERTERS[kind](f.name, value))
                continue
            shape = f.metadata.get("shape")
            if size is None:    # a matrix with any number of rows
                columns = shape[1]
                try:
                    count = len(value)
                except TypeError:
                    count = None
                require(f.name, value, count is not None and count % columns == 0,
                        f"must hold rows of {columns} numbers (has {count})")
                value = as_vector(f.name, value, count, columns)
            else:
                value = as_float(f.name, value) if size == 1 else \
                    as_vector(f.name, value, size, shape[1] if shape else None)
            object.__setattr__(self, f.name, value)
        self._validate()

    def _validate(self) -> None:
        """Checks between fields; raise ValueError through `require`."""

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)


def require(name, value, condition, message):
    """Raise `ValueError("parameter NAME = VALUE MESSAGE")` unless `condition`."""
    if not condition:
        raise ValueError(f"parameter {name} = {value!r} {message}")


def as_float(name, value) -> float:
    """A parameter's number by the project's one rule (compiled/numbers.py: a number, not
    true/false nor text; finite; within +-LARGEST), or ValueError("parameter NAME = VALUE ...")."""
    return check_number(f"parameter {name}", value)


def as_integer(name, value) -> int:
    number = as_float(name, value)
    if number != int(number):
        raise ValueError(f"parameter {name} = {value!r} must be a whole number")
    return int(number)


def as_boolean(name, value) -> bool:
    """True or False (a Python or NumPy bool, or the whole numbers 1 and 0 an FMI host may hand)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise ValueError(f"parameter {name} = {value!r} must be true or false")


def as_text(name, value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"parameter {name} = {value!r} must be a text")
    return value


#: the parameters that are not Reals, by `kind`: how each is read
_CONVERTERS = {"integer": as_integer, "boolean": as_boolean, "string": as_text}


def as_vector(name, value, size, columns: Optional[int] = None):
    """`size` numbers (as_float each), named `name[i]`, or `name[i,j]` for a matrix of `columns`
    stored row by row (as the FMU names its elements)."""
    try:
        items = tuple(value)
    except TypeError:
        raise ValueError(f"parameter {name} = {value!r} must have {size} elements") from None
    if len(items) != size:
        raise ValueError(f"parameter {name} = {value!r} must have {size} elements, has {len(items)}")
    if columns:
        return tuple(as_float(f"{name}[{i // columns + 1},{i % columns + 1}]", v) for i, v in enumerate(items))
    return tuple(as_float(f"{name}[{i + 1}]", v) for i, v in enumerate(items))


def state_part(name, value, size) -> Tuple[float, ...]:
    """An initial-state parameter (`Pos0`, `Battery0` ...: a part of the state vector) as `size`
    floats, each by the one number rule, named as the FMU names it (`Pos0[2]`, `Battery0`)."""
    if size == 1:
        try:
            (value,) = tuple(value)
        except TypeError:
            pass
        except ValueError:
            raise ValueError(f"parameter {name} = {value!r} must be one number") from None
        return (as_float(name, value),)
    return as_vector(name, value, size)
