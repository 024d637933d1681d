"""Every function of the vehicle library that the H100's control stack calls (its belief: the
linearisation and motion wrench of auv_cosim/vehicles/h100/stack/belief.py), called once with the
argument types of a run: what tools/build_fmus.py runs while it fills the numba cache of the
H100's FMUs (one cache group, compiled once: H100, H100Control and their six-thruster twins).

Why each of them ships it: the FMUs of one build share their bundled package in a host, so the
vehicle library the control's belief runs on comes from whichever of them loads first, with that
FMU's cache; a cache holding only what the vehicle's own step compiles would leave the first run
of a fresh clone compiling the Jacobians the LQR is designed on (half a minute to minutes).
"""
from __future__ import annotations

from typing import Optional

from .belief import VehicleBelief
from .control import CONTROLLERS, ControllerConfig
from .guidance import Commands, GuidanceConfig
from .navigation import Measurements
from .stack import ALLOCATORS, H100ControlStack


def exercise_vehicle_library(vehicle_file: Optional[str] = None) -> None:
    """Initialise and step the control stack of each controller on the vehicle of
    `vehicle_file` (None: the default H100), holding then stepping in depth with the vehicle
    moving (so that the LQR is designed at rest and again at a moving operating point), and with
    each allocator. This also compiles every control kernel (control_kernel.py: the FMUs that carry
    auv_cosim.vehicles.auv.stack ship their cache; tools/build_fmus.py), each with the argument types of a
    run, and the allocation's whatever the layout's rank (a rank-5 layout's QP never takes the
    least-norm shortcut: the pseudo-inverse allocator does)."""
    from ..vehicle_file import load_vehicle

    params = (load_vehicle(vehicle_file) if vehicle_file else load_vehicle()).params
    measurements = Measurements(euler=[0.01, 0.02, 0.1], omega=[0.01, 0.0, 0.0], velocity=[0.2, 0.02, 0.05],
                                depth=5.0, usbl=[0.0, 0.0, 5.0], usbl_fix_time=0.0, usbl_fix_count=1)
    for controller in CONTROLLERS:
        for mode, commands in (("hold", Commands(depth=5.0)), ("velocity", Commands(depth=6.0, surge=0.3))):
            for allocator in ALLOCATORS:
                stack = H100ControlStack(VehicleBelief(params), GuidanceConfig(Mode=mode),
                                         ControllerConfig(Controller=controller), allocator=allocator)
                stack.initialize(measurements, commands)
                for _ in range(3):
                    stack.step(measurements, commands, 0.1)
    # the speed limit's second call (its norm from math.hypot): far from the held point
    far = Measurements(euler=[0.0, 0.0, 0.0], velocity=[0.0, 0.0, 0.0], depth=5.0, usbl=[30.0, 40.0, 5.0],
                       usbl_fix_time=0.0, usbl_fix_count=1)
    stack = H100ControlStack(VehicleBelief(params), GuidanceConfig(Mode="hold", HoldInitialPose=False,
                                                                   HoldPosition=(0.0, 0.0, 5.0)),
                             ControllerConfig(Controller="pid"))
    stack.initialize(far, Commands())
    stack.step(far, Commands(), 0.1)
