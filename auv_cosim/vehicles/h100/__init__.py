"""The H100 ROV of docs/physics/h100.md (seed 004, with seed 002's matrices) as a plain Python library.

    from auv_cosim.vehicles.h100 import H100Model, load_vehicle, linearize
    vehicle = load_vehicle()                       # vehicle_files/H100.yaml, 8 thrusters
    model = H100Model(vehicle.params)
    x = model.initial_state(Pos0=(0, 0, 5))
    u = model.inputs(commands=[1, 1, -1, -1, 0, 0, 0, 0])
    A, B = linearize(vehicle.params, x, u)

Modules: `forces` (one pure function per wrench), `parameters` (validated parameters),
`vehicle_file` (the YAML vehicle files), `configuration` (what a thruster layout can push),
`dynamics` (the compiled derivative, Jacobians and outputs), `model` (the object around them),
`slave` (the FMU slave, H100.fmu and H100_6.fmu); `stack/` its instruments and control stack
(H100Sensors.fmu, H100Control.fmu), `host/` what the host adds to a run, `unit.py` the unit's
declaration (`auv_cosim.units`).

The names below are imported on first use (PEP 562): the instruments' FMU, which imports the
stack alone, carries none of the physics; reading a YAML vehicle file (`load_vehicle`) needs
pyyaml and pydantic, which an FMU (it reads the file resolved at build, `vehicle_for`) does
not import.
"""
from .. import lazy_door

#: public name -> the module that defines it
_WHERE = {
    **dict.fromkeys(("LayoutReport", "analyse_layout", "describe_direction"), ".configuration"),
    **dict.fromkeys(("BODY_STATES", "input_table", "output_table", "state_table"), ".dynamics"),
    **dict.fromkeys(("H100Model", "initial_state", "linearize"), ".model"),
    **dict.fromkeys(("DOF_NAMES", "H100Parameters"), ".parameters"),
    **dict.fromkeys(("DEFAULT_VEHICLE_FILE", "VEHICLES_DIR", "LoadedVehicle", "VehicleFileError", "vehicle_for"),
                    ".resolved"),
    "load_vehicle": ".vehicle_file",
}

__all__ = list(_WHERE)
__getattr__, __dir__ = lazy_door(__name__, _WHERE)
