"""The H100 ROV as a unit (``auv_cosim.units``): its FMUs (one vehicle and one control stack per
thruster layout, each built on its vehicle file), what it adds to a run, its ``compare``
command, its identification adapter, how a viewer draws it. Plain data: reading it imports
none of the H100's code."""
from auv_cosim.units import Drawing, Fmu, Unit

#: what the stack calls of the vehicle library, compiled into the cache the four FMUs share
#: (the H100 stack loads the vehicle first, so the two share the vehicle's modules)
_WARM_UP = ("auv_cosim.vehicles.h100.stack.warm_up:exercise_vehicle_library",)


def _layout(suffix: str, vehicle_file: str) -> tuple:
    """The vehicle and its control stack on one vehicle file (the file fixes the number of
    thrusters, docs/vehicles.md; the controllers' model and allocation are built on it too)."""
    return (Fmu(f"H100{suffix}", "slave.py", vehicle_file=vehicle_file, vehicle_base="H100",
                numba_warm_up=_WARM_UP, cache_group="h100"),
            Fmu(f"H100Control{suffix}", "stack/control_slave.py", vehicle_file=vehicle_file,
                vehicle_base="H100Control", numba_warm_up=_WARM_UP, cache_group="h100"))


_H100, _CONTROL = _layout("", "H100.yaml")
# seed 004's 6-thruster example (4 slanted + 2 longitudinal, rank 5): h100_six_thrusters
_H100_6, _CONTROL_6 = _layout("_6", "H100_6_slanted.yaml")

UNIT = Unit(
    name="h100",
    package="auv_cosim.vehicles.h100",
    description="the H100 ROV of seed 004: vehicle (8 or 6 thrusters), instruments, control",
    scenarios="scenarios",
    vehicle_files="vehicle_files",
    fmus=(Fmu("H100Sensors", "stack/instruments_slave.py"), _H100, _CONTROL, _H100_6, _CONTROL_6),
    figures="auv_cosim.vehicles.h100.host.figures:FIGURES",
    commands={"compare": "auv_cosim.vehicles.h100.host.compare:add_parser"},
    identification="auv_cosim.vehicles.h100.host.identification:H100Adapter",
    prepare_vehicle_file="auv_cosim.vehicles.h100.resolved:write_resolved",
    drawing=Drawing(shape="box", thruster_positions="ThrusterPos", height="Height"),
)
