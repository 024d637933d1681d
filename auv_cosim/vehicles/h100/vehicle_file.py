"""Vehicle files: YAML descriptions of an H100 (seed 004's `vehicle.yaml` / `thrusters.yaml`).

A vehicle file names the body and the thrusters, each a file beside it or written inline:

    name: H100
    body: h100/body.yaml            # mass properties, hydrodynamics (H100Parameters' fields)
    thrusters: h100/thrusters_8.yaml

A body file holds `H100Parameters` fields (Mass, Volume, ..., a matrix as rows or as the list of
its diagonal); a thrusters file holds the thruster fields shared by all thrusters
(MaxThrustForward, MaxThrustReverse, ThrusterTimeConstant, ThrusterEfficiency) and the list
`thrusters`, one `{name, position, direction}` each. Every error names the file and the field.

Every number follows the project's one rule (compiled/numbers.py): `1e3` is a number (YAML
1.1 would read it as text), `true` and quoted text are not; finite, within +-1e12.
"""
from __future__ import annotations

import os
from typing import Annotated, Dict, List, Optional, Tuple, Union

import numpy as np
import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from ...compiled.numbers import number_loader, number_problem
from .parameters import H100Parameters
from .resolved import DEFAULT_VEHICLE_FILE, VEHICLES_DIR, LoadedVehicle, VehicleFileError  # noqa: F401


def _number(value):
    """A number of a vehicle file, by the one rule (the value named in the error)."""
    problem = number_problem(value)
    if problem is not None:
        raise ValueError(f"{value!r} {problem}")
    return float(value)


Number = Annotated[float, BeforeValidator(_number)]
Vector3 = Tuple[Number, Number, Number]
Matrix3 = Tuple[Vector3, Vector3, Vector3]
Row6 = Tuple[Number, Number, Number, Number, Number, Number]
Matrix6 = Tuple[Row6, Row6, Row6, Row6, Row6, Row6]
Tensor6 = Tuple[Matrix6, Matrix6, Matrix6, Matrix6, Matrix6, Matrix6]

#: The fields a thrusters file sets (the rest of H100Parameters comes from the body file).
THRUSTER_FIELDS = ("MaxThrustForward", "MaxThrustReverse", "ThrusterTimeConstant",
                   "ThrusterEfficiency", "ThrusterPos", "ThrusterDir")


def _diagonal_shorthand(value, size):
    """A list of `size` values that are not lists is the diagonal of a size x size matrix (each
    then checked as a number: `true` on the diagonal is refused there, by its place)."""
    if isinstance(value, (list, tuple)) and len(value) == size and not any(
            isinstance(v, (list, tuple, dict)) for v in value):
        return tuple(tuple(value[i] if i == j else 0.0 for j in range(size)) for i in range(size))
    return value


class BodyFile(BaseModel):
    """A body file: H100Parameters' body fields (a field left out keeps its default)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    Mass: Optional[Number] = None
    Volume: Optional[Number] = None
    Rho: Optional[Number] = None
    CenterOfGravity: Optional[Vector3] = None
    CenterOfBuoyancy: Optional[Vector3] = None
    Inertia: Optional[Matrix3] = None
    AddedMass: Optional[Matrix6] = None
    LinearDamping: Optional[Matrix6] = None
    QuadraticDamping: Optional[Matrix6] = None
    QuadraticDampingTensor: Optional[Tensor6] = None
    SignedQuadraticDampingTensor: Optional[Tensor6] = None
    Height: Optional[Number] = None
    QuaternionConvergenceTime: Optional[Number] = None

    @field_validator("Inertia", mode="before")
    @classmethod
    def _inertia_diagonal(cls, value):
        return _diagonal_shorthand(value, 3)

    @field_validator("AddedMass", "LinearDamping", "QuadraticDamping", mode="before")
    @classmethod
    def _matrix6_diagonal(cls, value):
        return _diagonal_shorthand(value, 6)

    def parameters(self) -> dict:
        """The fields given, flattened as H100Parameters takes them (matrices row by row)."""
        out = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is not None:
                out[name] = tuple(np.asarray(value, dtype=float).ravel()) if not isinstance(value, float) else value
        return out


class ThrusterEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    name: str = ""
    position: Vector3 = Field(description="Position from the body origin O, body frame (m)")
    direction: Vector3 = Field(description="Thrust direction, body frame (normalised)")


class ThrustersFile(BaseModel):
    """A thrusters file: the limits shared by every thruster (left out: the default), the list."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    MaxThrustForward: Optional[Number] = None
    MaxThrustReverse: Optional[Number] = None
    ThrusterTimeConstant: Optional[Number] = None
    ThrusterEfficiency: Optional[Number] = None
    thrusters: List[ThrusterEntry] = Field(min_length=1)

    def parameters(self) -> dict:
        out = {name: getattr(self, name) for name in THRUSTER_FIELDS[:4] if getattr(self, name) is not None}
        out["ThrusterPos"] = tuple(v for t in self.thrusters for v in t.position)
        out["ThrusterDir"] = tuple(v for t in self.thrusters for v in t.direction)
        return out


class VehicleFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "H100"
    description: str = ""
    body: Union[str, Dict] = Field(description="The body file (relative to this file) or its fields")
    thrusters: Union[str, Dict] = Field(description="The thrusters file (relative to this file) or its fields")


def load_vehicle(path: str = DEFAULT_VEHICLE_FILE) -> LoadedVehicle:
    """Read and validate a vehicle file (and the body and thrusters files it names)."""
    data = _read_yaml(path)
    vehicle = _validated(VehicleFile, data, path)
    body_data, body_source = _part(vehicle.body, path, "body")
    thrusters_data, thrusters_source = _part(vehicle.thrusters, path, "thrusters")
    misplaced = sorted(set(body_data) & set(THRUSTER_FIELDS))
    if misplaced:
        raise VehicleFileError(f"{body_source}: field {misplaced[0]} belongs in the thrusters file "
                               f"({thrusters_source})")
    body = _validated(BodyFile, body_data, body_source)
    thrusters = _validated(ThrustersFile, thrusters_data, thrusters_source)
    try:
        params = H100Parameters(**body.parameters(), **thrusters.parameters())
    except ValueError as error:   # "parameter NAME[...] = VALUE ...": name the file that sets it
        message = str(error)
        field = message.removeprefix("parameter ").split()[0].split("[")[0]
        source = thrusters_source if field in THRUSTER_FIELDS else body_source
        raise VehicleFileError(f"{source}: field {field}: {message}") from None
    names = tuple(t.name or f"thruster {i + 1}" for i, t in enumerate(thrusters.thrusters))
    return LoadedVehicle(name=vehicle.name, params=params, thruster_names=names, source=os.path.abspath(path))


#: PyYAML's safe loader on libyaml's C parser where PyYAML has it: the same objects, a seventh
#: of the time (the H100 stack reads its three vehicle files twice as it starts), with the one
#: number rule (`1e3` a number, a key twice an error)
SAFE_LOADER = number_loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _read_yaml(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.load(f, Loader=SAFE_LOADER)
    except OSError as error:
        raise VehicleFileError(f"{path}: cannot read ({error.strerror})") from None
    except yaml.YAMLError as error:
        raise VehicleFileError(f"{path}: not valid YAML ({error})") from None
    if not isinstance(data, dict):
        raise VehicleFileError(f"{path}: expected a mapping of fields, got {type(data).__name__}")
    return data


def _part(value, parent, field):
    """A body or thrusters part: its fields and the file to name in errors."""
    if isinstance(value, dict):
        return value, f"{parent} (field {field})"
    path = os.path.join(os.path.dirname(os.path.abspath(parent)), value)
    return _read_yaml(path), path


def _validated(model, data, source):
    try:
        return model(**data)
    except ValidationError as error:
        raise VehicleFileError(_describe(error, lambda field: source)) from None
    except TypeError as error:
        raise VehicleFileError(f"{source}: {error}") from None


def _describe(error: ValidationError, source_of) -> str:
    """One line per problem: 'FILE: field NAME[.index]: message (got VALUE)'."""
    lines = []
    for problem in error.errors():
        location = [str(part) for part in problem["loc"]]
        message = problem["msg"].removeprefix("Value error, ")
        # a whole-model check names its field first in its message ("ThrusterDir[3,1..3] = ...")
        field = location[0] if location else message.split()[0].split("[")[0].rstrip(":")
        name = field
        for part in location[1:]:  # indices from 1, a matrix's together: LinearDamping[1,2]
            if not part.isdigit():
                name += f".{part}"
            elif name.endswith("]"):
                name = f"{name[:-1]},{int(part) + 1}]"
            else:
                name += f"[{int(part) + 1}]"
        got = f" (got {problem['input']!r})" if "input" in problem and problem["type"] != "value_error" else ""
        where = f"field {name}: " if name else ""
        lines.append(f"{source_of(field)}: {where}{message}{got}")
    return "\n".join(lines)
