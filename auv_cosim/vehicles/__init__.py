"""Vehicle physics as a plain Python library (no FMI in the physics; each vehicle's FMU slave,
`slave.py`, sits in its subpackage and is bundled with it).

Shared by every vehicle: `protocol` (what a vehicle provides: `Vehicle`, `SignalTable`,
`ConstantTable`), `parameters` (how parameters are declared), `rotation` (rotations and the
quaternion kinematics of seed 003), `environment` (current, sea floor), `waves`, `wake` (the
wakes between vehicles, SPEC 9), `simulator` (`VehicleSimulator`, dopri5), `linearization`. One vehicle per subpackage: `auv/` (the survey
AUV of seeds 000 and 001) and `h100/` (the H100 ROV of seed 004).

    from auv_cosim.vehicles import Environment, VehicleSimulator
    from auv_cosim.vehicles.auv import AuvModel, AuvParameters, inputs
    model = AuvModel(AuvParameters(), Environment())
    sim = VehicleSimulator(model, model.cruise_state(1.5))
    sim.advance(0.0, 0.1, inputs(thrust_power=30.0))

The shared names below are imported on first use (PEP 562): importing a module of this package
(`auv_cosim.vehicles.rotation`, say, as the H100's instruments do) does not import the
integrator and the rest with it. Code inside the package imports from the modules themselves.
"""
from importlib import import_module

#: public name -> the module that defines it
_WHERE = {
    "Environment": ".environment",
    **dict.fromkeys(("VehicleSimulator", "IntegrationError"), ".simulator"),
    **dict.fromkeys(("linearize", "finite_difference_jacobians"), ".linearization"),
    **dict.fromkeys(("Vehicle", "Signal", "SignalTable", "ConstantTable"), ".protocol"),
    "quaternion_from_euler": ".rotation",
}

__all__ = list(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
