"""The drifter as a unit (auv_cosim.units): its two FMUs and its scenarios. Plain data: reading
it imports none of the drifter's code."""
from auv_cosim.units import Drawing, Fmu, Unit

UNIT = Unit(
    name="drifter",
    package="auv_cosim_drifter",
    description="a profiling drifter: a buoyancy-driven float and its depth control",
    fmus=(Fmu("Drifter", "slave.py", ship_numba_cache=False),
          Fmu("DrifterControl", "stack/control_slave.py", ship_numba_cache=False)),
    scenarios="scenarios",
    drawing=Drawing(shape="cylinder", length="Length", diameter="Diameter"),
)
