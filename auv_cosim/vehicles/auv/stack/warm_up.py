"""The survey AUV's compiled instrument and control code, called once with the argument types of a
run: what tools/build_fmus.py runs while it fills the numba cache of AuvSensors.fmu and
AuvControl.fmu. The two FMUs are one cache group, compiled once for both; each ships the cache
files of the kernels it carries (the instruments', the control's), so a fresh clone's first run
compiles nothing in either, whichever loads first.
"""
from __future__ import annotations

from typing import Optional

from .control import ControlConfig, ControlInputs, ControlStack
from .instruments import SensorConfig, SensorSuite, TruthInputs


def exercise_kernels(vehicle_file: Optional[str] = None) -> None:
    """Initialise and sample the instruments (a bad input too: the kernel's second call), and
    initialise and step the control stack in each guidance mode. `vehicle_file` is the
    builder's argument for vehicles built from a file: unused."""
    suite = SensorSuite(SensorConfig())
    truth = TruthInputs(pos=(1.0, 2.0, 3.0), euler=(0.1, 0.2, 0.3), depth=3.0, speed=1.4, altitude=10.0)
    suite.initialize(truth)
    suite.sample(truth, 0.1)
    suite.sample(TruthInputs(pos=(float("inf"), 2.0, 3.0), depth=3.0, speed=1.4), 0.1)
    for mode in ("mission", "hold", "zigzag"):
        stack = ControlStack(ControlConfig(GuidanceMode=mode, Waypoints="10,0,5; 10,10,5"))
        stack.initialize(ControlInputs(altitude_valid=True, altitude=10.0))
        stack.step(ControlInputs(north=1.0, speed=1.4), 0.1)
