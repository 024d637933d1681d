"""Vehicle files: YAML descriptions of an H100 (seed 004's `vehicle.yaml` / `thrusters.yaml`).

A vehicle file names the body and the thrusters, each a file beside it or written inline:

    name: H100
    body: h100/body.yaml            # mass properties, hydrodynamics (H100Parameters' fields)
    thrusters: h100/thrusters_8.yaml

A body file holds `H100Parameters` fields (Mass, Volume, ..., a matrix as rows or as the list of
its diagonal); a thrusters file holds the thruster fields shared by all thrusters
(MaxThrustForward, MaxThrustReverse, ThrusterTimeConstant, ThrusterEfficiency) and the list
`thrusters`, one `{name, position, direction}` each. Every error names the file and the field.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, List, Tuple, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .parameters import H100Parameters, Vector3

#: The repository's folder of vehicle files, and the default H100's file in it.
VEHICLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                            "vehicles")
DEFAULT_VEHICLE_FILE = os.path.join(VEHICLES_DIR, "H100.yaml")

#: The fields a thrusters file sets (the rest of H100Parameters comes from the body file).
THRUSTER_FIELDS = ("MaxThrustForward", "MaxThrustReverse", "ThrusterTimeConstant",
                   "ThrusterEfficiency", "ThrusterPos", "ThrusterDir")


class VehicleFileError(ValueError):
    """A vehicle, body or thrusters file that cannot be used; the message names file and field."""


class ThrusterEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    name: str = ""
    position: Vector3 = Field(description="Position from the body origin O, body frame (m)")
    direction: Vector3 = Field(description="Thrust direction, body frame (normalised)")


class ThrustersFile(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    MaxThrustForward: float = H100Parameters.model_fields["MaxThrustForward"].default
    MaxThrustReverse: float = H100Parameters.model_fields["MaxThrustReverse"].default
    ThrusterTimeConstant: float = H100Parameters.model_fields["ThrusterTimeConstant"].default
    ThrusterEfficiency: float = H100Parameters.model_fields["ThrusterEfficiency"].default
    thrusters: List[ThrusterEntry] = Field(min_length=1)


class VehicleFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "H100"
    description: str = ""
    body: Union[str, Dict] = Field(description="The body file (relative to this file) or its fields")
    thrusters: Union[str, Dict] = Field(description="The thrusters file (relative to this file) or its fields")


@dataclass(frozen=True)
class Vehicle:
    """A loaded vehicle file: its name, parameters and thruster names, and where it came from."""

    name: str
    params: H100Parameters
    thruster_names: Tuple[str, ...]
    source: str


def load_vehicle(path: str = DEFAULT_VEHICLE_FILE) -> Vehicle:
    """Read and validate a vehicle file (and the body and thrusters files it names)."""
    data = _read_yaml(path)
    vehicle = _validated(VehicleFile, data, path)
    body, body_source = _part(vehicle.body, path, "body")
    thrusters_data, thrusters_source = _part(vehicle.thrusters, path, "thrusters")
    thrusters = _validated(ThrustersFile, thrusters_data, thrusters_source)
    misplaced = sorted(set(body) & set(THRUSTER_FIELDS))
    if misplaced:
        raise VehicleFileError(f"{body_source}: field {misplaced[0]} belongs in the thrusters file "
                               f"({thrusters_source})")
    fields = dict(body)
    fields.update(thrusters.model_dump(exclude={"thrusters"}))
    fields["ThrusterPos"] = tuple(t.position for t in thrusters.thrusters)
    fields["ThrusterDir"] = tuple(t.direction for t in thrusters.thrusters)
    try:
        params = H100Parameters(**fields)
    except ValidationError as error:
        raise VehicleFileError(_describe(error, lambda field: thrusters_source
                                         if field in THRUSTER_FIELDS else body_source)) from None
    names = tuple(t.name or f"thruster {i + 1}" for i, t in enumerate(thrusters.thrusters))
    return Vehicle(name=vehicle.name, params=params, thruster_names=names, source=os.path.abspath(path))


def _read_yaml(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
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
        name = field + "".join(f"[{int(p) + 1}]" if p.isdigit() else f".{p}" for p in location[1:])
        got = f" (got {problem['input']!r})" if "input" in problem and problem["type"] != "value_error" else ""
        where = f"field {name}: " if name else ""
        lines.append(f"{source_of(field)}: {where}{message}{got}")
    return "\n".join(lines)
