"""Vehicle physics as a plain Python library (no FMI in the physics; each vehicle's FMU slave,
`slave.py`, sits in its subpackage and is bundled with it).

Shared by every vehicle: `protocol` (what a vehicle provides: `Vehicle`, `SignalTable`,
`ConstantTable`), `parameters` (how parameters are declared), `rotation` (rotations and the
quaternion kinematics of seed 003), `environment` (current, sea floor), `waves`, `wake` (the
wakes between vehicles, docs/physics/environment.md#wakes), `simulator` (`VehicleSimulator`, dopri5), `linearization`. One vehicle per subpackage: `auv/` (the survey
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
import sys
from importlib import import_module


def lazy_door(package: str, where: dict):
    """The ``__getattr__`` and ``__dir__`` of a package whose public names (``where``: name ->
    the module, relative to the package, that defines it) are imported on first use (PEP 562),
    so that importing one module of the package (a vehicle's stack, its FMU slave) imports
    none of the others. A submodule is an attribute too, as after an eager import."""

    def __getattr__(name: str):
        module = sys.modules[package]
        if name in where:
            value = getattr(import_module(where[name], package), name)
            setattr(module, name, value)
            return value
        if not name.startswith("__"):
            try:
                return import_module(f".{name}", package)
            except ModuleNotFoundError as e:
                if e.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__


#: public name -> the module that defines it
_WHERE = {
    "Environment": ".environment",
    **dict.fromkeys(("VehicleSimulator", "IntegrationError"), ".simulator"),
    **dict.fromkeys(("linearize", "finite_difference_jacobians"), ".linearization"),
    **dict.fromkeys(("Vehicle", "Signal", "SignalTable", "ConstantTable"), ".protocol"),
    "quaternion_from_euler": ".rotation",
}

__all__ = list(_WHERE)
__getattr__, __dir__ = lazy_door(__name__, _WHERE)
