"""A vehicle file resolved at build time: what an FMU reads instead of YAML.

`load_vehicle` (auv_cosim.vehicles.h100.vehicle_file) reads a vehicle file, the body and
thrusters files it names, and validates them with pydantic: a build-time job. The FMU build
(tools/build_fmus.py) writes its outcome beside the vehicle file in the FMU's resources as
`<vehicle file>.resolved.json` (`resolved_text`), and an FMU reads that (`vehicle_for`): the
same `LoadedVehicle`, its numbers the same doubles (JSON writes a float with repr(), which
reads back exactly), with nothing but the standard library and this package. So an FMU needs
neither pyyaml nor pydantic to run. Outside an FMU (a checkout: no resolved file) `vehicle_for`
reads the YAML as before.
"""
from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from typing import Tuple

from .parameters import H100Parameters

#: The H100's folder of vehicle files (package data of its unit; an FMU carries it as
#: resources/vehicles/), and the default H100's file in it.
VEHICLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vehicle_files")
DEFAULT_VEHICLE_FILE = os.path.join(VEHICLES_DIR, "H100.yaml")

#: what the build appends to the vehicle file's name for its resolved copy
RESOLVED_SUFFIX = ".resolved.json"
#: the layout of a resolved file: raised when `LoadedVehicle` or the text changes
RESOLVED_FORMAT = 1


class VehicleFileError(ValueError):
    """A vehicle, body or thrusters file that cannot be used; the message names file and field."""


@dataclass(frozen=True)
class LoadedVehicle:
    """A loaded vehicle file: its name, parameters and thruster names, and where it came from."""

    name: str
    params: H100Parameters
    thruster_names: Tuple[str, ...]
    source: str


def resolved_text(vehicle: LoadedVehicle) -> str:
    """The resolved file of a loaded vehicle (JSON; every parameter field by name)."""
    params = {f.name: getattr(vehicle.params, f.name) for f in dataclasses.fields(vehicle.params) if f.init}
    return json.dumps({"format": RESOLVED_FORMAT, "name": vehicle.name, "params": params,
                       "thruster_names": list(vehicle.thruster_names),
                       "source": os.path.basename(vehicle.source)}, indent=1) + "\n"


def load_resolved(path: str) -> LoadedVehicle:
    """The vehicle of a resolved file; its `source` is the vehicle file beside it."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        raise VehicleFileError(f"{path}: cannot read the resolved vehicle ({error})") from None
    if not isinstance(data, dict) or data.get("format") != RESOLVED_FORMAT:
        raise VehicleFileError(f"{path}: not a resolved vehicle of format {RESOLVED_FORMAT} "
                               f"(rebuild the FMU)")
    params = {name: tuple(value) if isinstance(value, list) else value
              for name, value in data["params"].items()}
    return LoadedVehicle(name=data["name"], params=H100Parameters(**params),
                         thruster_names=tuple(data["thruster_names"]),
                         source=os.path.join(os.path.dirname(os.path.abspath(path)), data["source"]))


def vehicle_for(resources, vehicle_file: str) -> LoadedVehicle:
    """The vehicle an FMU (or a slave made outside one) is built for: the resolved file the
    build wrote beside `vehicle_file` in `resources` when there is one, else the vehicle file
    itself (read with yaml and pydantic, imported only then). `resources` None: a slave made
    outside an FMU, whose `vehicle_file` (``vehicles/NAME.yaml``, as in an FMU's resources)
    is the unit's own (VEHICLES_DIR)."""
    if resources is None:
        path = os.path.join(VEHICLES_DIR, os.path.relpath(vehicle_file, "vehicles"))
    else:
        path = os.path.join(resources, vehicle_file)
    if os.path.isfile(path + RESOLVED_SUFFIX):
        return load_resolved(path + RESOLVED_SUFFIX)
    from .vehicle_file import load_vehicle
    return load_vehicle(path)


def write_resolved(vehicle_file) -> str:
    """Write the resolved file beside a vehicle file (the FMU build does, into the FMU's
    resources: what the FMU reads at instantiation instead of the YAML, so that it needs neither
    pyyaml nor pydantic); returns its path."""
    from .vehicle_file import load_vehicle

    target = str(vehicle_file) + RESOLVED_SUFFIX
    with open(target, "w", encoding="utf-8") as f:
        f.write(resolved_text(load_vehicle(str(vehicle_file))))
    return target
