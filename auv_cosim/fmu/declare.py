"""One declaration style for every slave's variables.

A parameter is declared once, beside the dataclass field it configures, in the field's
`metadata`:

    DepthLag: float = parameter(0.1, "s", "Depth sensor first-order lag time constant")

The keys (`DECLARATION_KEYS`): `unit` (a name of auv_cosim/fmu/units.py, one per element for a
vector whose elements differ, None for a String / Integer / Boolean), `description`,
`variability` ("fixed" or "tunable"), and for vectors `size`, `labels` (element names for the
descriptions) and `zero_means` (a vector that may be None: what all zeros stand for in the
FMU). The helpers that write them live with the plain-Python libraries, which import nothing
of FMI: `auv_cosim.vehicles.parameters.parameter` and `auv_cosim.stacks.declare.parameter`. This
module reads them: `declaration(field)` for one field, `parameters_of(ConfigClass)` for the
`Var` rows of a configuration (a vector field: one Real per element), `config_of(ConfigClass,
values)` for the configuration back from the registered values; `VehicleSlave` registers a
vehicle's (vector) parameters from the same keys.

Inputs and outputs configure no field: a slave lists them as `Var` rows (a vehicle gives them
as `SignalTable`s, see `VehicleSlave`). `register` registers rows on a slave whose values live
in one dict; `register_with_real_outputs` keeps the Real outputs in one list instead (one
slice for a host reading them all); `register_with_real_arrays` keeps the Real inputs and
outputs in two numpy arrays (for a slave whose step is compiled code).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional

DECLARATION_KEYS = ("unit", "description", "variability", "size", "labels", "zero_means", "shape",
                    "kind")
#: `shape` (rows, columns): a matrix stored flat row by row, named `Name[i,j]` (rows None: as
#: many as the value has); `kind` "integer": an FMI Integer (vehicle parameters).
_DEFAULTS = {"variability": "fixed", "size": 1, "labels": None, "zero_means": None, "shape": None,
             "kind": "real"}

_COERCE = {"Real": float, "Integer": int, "Boolean": bool, "String": str}
#: The FMI type of a field's annotation (a string under `from __future__ import annotations`).
_TYPES = {"float": "Real", "int": "Integer", "bool": "Boolean", "str": "String",
          float: "Real", int: "Integer", bool: "Boolean", str: "String"}


def declaration(field: dataclasses.Field) -> Optional[Dict[str, Any]]:
    """The declaration of a dataclass field, every key present; None if it has none."""
    if "description" not in field.metadata:
        return None
    return {key: field.metadata.get(key, _DEFAULTS.get(key)) for key in DECLARATION_KEYS}


@dataclass(frozen=True)
class Var:
    """One scalar FMI variable: name, type (Real | Integer | Boolean | String), causality
    (parameter | input | output), start value, unit (Real only), description, variability
    (None: fixed for a parameter, continuous for a Real, discrete otherwise)."""
    name: str
    type: str
    causality: str
    start: Any
    unit: Optional[str] = None
    description: str = ""
    variability: Optional[str] = None


def parameters_of(config_cls) -> List[Var]:
    """One parameter `Var` per field of a configuration dataclass, in field order, its default
    the start value; a vector field (declared `size` > 1, a tuple of floats) gives one Real per
    element, `Name[1]` ..., described "description: label". Raises ValueError for a field
    without a declaration."""
    rows = []
    for field in dataclasses.fields(config_cls):
        declared = declaration(field)
        where = f"{config_cls.__name__}.{field.name}"
        if declared is None:
            raise ValueError(f"{where}: declared without unit and description "
                             f"(use parameter(default, unit, description))")
        size = declared["size"]
        if size > 1:
            units = declared["unit"] if isinstance(declared["unit"], tuple) else (declared["unit"],) * size
            labels = declared["labels"] or tuple(f"element {i + 1}" for i in range(size))
            default = field.default if field.default is not dataclasses.MISSING else field.default_factory()
            rows += [Var(f"{field.name}[{i + 1}]", "Real", "parameter", default[i], units[i],
                         f"{declared['description']}: {labels[i]}", declared["variability"])
                     for i in range(size)]
            continue
        kind = _TYPES.get(field.type)
        if kind is None:
            raise ValueError(f"{where}: no FMI type for the annotation {field.type!r}")
        rows.append(Var(field.name, kind, "parameter", field.default, declared["unit"],
                        declared["description"], declared["variability"]))
    return rows


def config_of(config_cls, values: Dict[str, Any]):
    """An instance of the configuration dataclass `config_cls` from the registered values of its
    parameters (`parameters_of`): a scalar field from `values[name]`, a vector one from
    `values["Name[1]"] ...` as a tuple. The dataclass's own checks are the caller's."""
    kwargs = {}
    for field in dataclasses.fields(config_cls):
        declared = declaration(field)
        size = declared["size"] if declared else 1
        kwargs[field.name] = (tuple(values[f"{field.name}[{i + 1}]"] for i in range(size)) if size > 1
                              else values[field.name])
    return config_cls(**kwargs)


def register(slave, table: Iterable[Var], values: Optional[Dict[str, Any]] = None) -> Dict[str, Var]:
    """Register every row on `slave` (an `FmuSlave`), its value in `values[name]` (default:
    the dict `slave.values`; set to the start value here); returns the rows by name. Outputs
    are declared without direct feedthrough (`depends_on=[]`): they change only at
    initialisation and in do_step."""
    values = slave.values if values is None else values
    rows: Dict[str, Var] = {}
    for row in table:
        if row.type != "Real" and row.unit is not None:
            raise ValueError(f"variable {row.name}: a {row.type} has no unit")
        values[row.name] = _COERCE[row.type](row.start)
        kw: Dict[str, Any] = dict(causality=row.causality, description=row.description,
                                  variability=row.variability, entry=(values, row.name))
        if row.causality == "output":
            kw["depends_on"] = []
        if row.type == "Real":
            slave.add_real(row.name, unit=row.unit, **kw)
        else:
            getattr(slave, f"add_{row.type.lower()}")(row.name, **kw)
        rows[row.name] = row
    return rows


def register_with_real_outputs(slave, table: Iterable[Var], attr: str = "real_outputs") -> Dict[str, int]:
    """Register the rows of `table` as `register` does, except the Real outputs: their values
    are the elements of the list `slave.<attr>` (made here from their start values, in the
    table's order) instead of entries of `slave.values`. A host that reads all of them in one
    fmi2GetReal call, as the master does every step, then gets one slice of the list
    (`FmuSlave`'s array elements) instead of one getter call per value. Returns each Real
    output's index in the list, by name."""
    table = list(table)
    outputs = [row for row in table if row.causality == "output" and row.type == "Real"]
    setattr(slave, attr, [float(row.start) for row in outputs])
    index = {row.name: i for i, row in enumerate(outputs)}
    for row in table:
        if row.name in index:
            slave.add_real(row.name, causality="output", description=row.description, unit=row.unit,
                           variability=row.variability, depends_on=[], element=(attr, index[row.name]))
        else:
            register(slave, [row])
    return index


def register_with_real_arrays(slave, table: Iterable[Var], inputs: str = "real_inputs",
                              outputs: str = "real_outputs") -> Dict[str, int]:
    """Register the rows of `table` as `register_with_real_outputs` does, except that the Real
    inputs and the Real outputs are the elements of two float64 numpy arrays, `slave.<inputs>`
    and `slave.<outputs>` (made here from their start values, in the table's order): what
    compiled code reads and writes in place, and what the project's native wrapper transfers
    without running Python. Returns each Real input's and output's index in its array, by name."""
    import numpy as np

    table = list(table)
    places: Dict[str, tuple] = {}
    index: Dict[str, int] = {}
    for causality, attr in (("input", inputs), ("output", outputs)):
        rows = [row for row in table if row.causality == causality and row.type == "Real"]
        setattr(slave, attr, np.array([float(row.start) for row in rows], dtype=float))
        for i, row in enumerate(rows):
            places[row.name], index[row.name] = (attr, i), i
    for row in table:
        if row.name in places:
            slave.add_real(row.name, causality=row.causality, description=row.description, unit=row.unit,
                           variability=row.variability, element=places[row.name],
                           depends_on=[] if row.causality == "output" else None)
        else:
            register(slave, [row])
    return index
