"""The tether as a unit (``auv_cosim.units``): its FMU (Tether.fmu, MoorDyn's lumped-mass cable;
nothing of it is compiled by numba, so it ships no cache) and what the host adds to a run with
a tether (its tensions in summary.json, the report and tether.png), and how a viewer
draws it (a cable through the points along it). It names no vehicle: a
vehicle's stack couples it (the H100's h100_tether). Plain data: reading it imports none of the
tether's code."""
from auv_cosim.units import Drawing, Fmu, Unit

UNIT = Unit(
    name="tether",
    package="auv_cosim.components.tether",
    description="a lumped-mass tether on MoorDyn, coupled to a vehicle by its end's force and position",
    fmus=(Fmu("Tether", "slave.py", ship_numba_cache=False),),
    figures="auv_cosim.components.tether.host.figures:FIGURES",
    # a line through Node1Pos[1..3] ... Node11Pos[1..3], anchor to end: the 3-D view and the MCAP
    drawing=Drawing(shape="cable", points="Node{}Pos"),
)
