"""The survey AUV as a unit (``auv_cosim.units``): its FMUs, what it adds to a run, its
identification adapter, how a viewer draws it. Plain data: reading it imports none of the
AUV's code."""
from auv_cosim.units import Drawing, Fmu, Unit

#: the AUV's figures and analyses (host/figures.py)
_HOST = "auv_cosim.vehicles.auv.host.figures"
#: the warm-up both stack FMUs run: in the survey stack, the first of the two to load brings the
#: modules they share, so each ships the cache of both kernels
_STACK_WARM_UP = ("auv_cosim.vehicles.auv.stack.warm_up:exercise_kernels",)

UNIT = Unit(
    name="auv",
    package="auv_cosim.vehicles.auv",
    description="the survey AUV of seeds 000 and 001: vehicle, instruments, control",
    scenarios="scenarios",
    fmus=(
        Fmu("Auv", "slave.py"),
        Fmu("AuvSensors", "stack/instruments_slave.py", numba_warm_up=_STACK_WARM_UP, cache_group="auv_stack"),
        Fmu("AuvControl", "stack/control_slave.py", numba_warm_up=_STACK_WARM_UP, cache_group="auv_stack"),
    ),
    figures=f"{_HOST}:FIGURES",
    analyses={name: f"{_HOST}:{name.upper()}"
              for name in ("turning_circle", "depth_step", "zigzag", "surfacing", "battery")},
    identification="auv_cosim.vehicles.auv.host.identification:AuvAdapter",
    drawing=Drawing(shape="cylinder", length="Length", diameter="Diameter"),
)
