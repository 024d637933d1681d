"""The H100 ROV of SPEC 7 (seed 004, with seed 002's matrices) as a plain Python library.

    from auv_cosim.vehicles.h100 import H100Model, load_vehicle, linearize
    vehicle = load_vehicle()                       # vehicles/H100.yaml, 8 thrusters
    model = H100Model(vehicle.params)
    x = model.initial_state(Pos0=(0, 0, 5))
    u = model.inputs(commands=[1, 1, -1, -1, 0, 0, 0, 0])
    A, B = linearize(vehicle.params, x, u)

Modules: `forces` (one pure function per wrench), `parameters` (validated parameters),
`vehicle_file` (the YAML vehicle files), `configuration` (what a thruster layout can push),
`dynamics` (the compiled derivative, Jacobians and outputs), `model` (the object around them).
"""
from typing import Optional, Tuple

import numpy as np

from .configuration import LayoutReport, analyse_layout, describe_direction
from .dynamics import BODY_STATES, input_table, output_table, state_table
from .model import H100Model, initial_state
from .parameters import DOF_NAMES, H100Parameters
from .resolved import DEFAULT_VEHICLE_FILE, VEHICLES_DIR, LoadedVehicle, VehicleFileError, vehicle_for


def __getattr__(name):
    """`load_vehicle` on first use: reading a YAML vehicle file needs pyyaml and pydantic, which
    an FMU (it reads the file resolved at build, `vehicle_for`) does not import."""
    if name == "load_vehicle":
        from .vehicle_file import load_vehicle
        return load_vehicle
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def linearize(params: H100Parameters, state, inputs, environment=None, waves=None,
              t: float = 0.0, reduced: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """(A, B) = (dx'/dx, dx'/du) of the H100 at the state and inputs given (a trim point).

    Full state (13 + n: Pos, Quater, LocalVel, Omega, propeller speeds) by default; with
    `reduced=True` the attitude is the 3-vector of small body rotations (12 + n states, see
    `H100Model.linearize_reduced`), the form an LQR design wants.
    """
    model = H100Model(params, environment, waves)
    if reduced:
        return model.linearize_reduced(state, inputs, t)
    return model.linearize(state, inputs, t)


__all__ = [
    "H100Model", "H100Parameters", "LoadedVehicle", "VehicleFileError", "LayoutReport", "BODY_STATES",
    "DOF_NAMES", "DEFAULT_VEHICLE_FILE", "VEHICLES_DIR", "analyse_layout", "describe_direction",
    "initial_state", "linearize", "load_vehicle", "vehicle_for",
]
