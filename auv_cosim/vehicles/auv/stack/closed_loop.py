"""Plain-Python closed loop: auv_cosim.vehicles + SensorSuite + ControlStack, no FMI.

For tuning and tests. The order per communication step mirrors a Gauss-Seidel co-simulation
master: the vehicle advances ``[t, t + dt]`` with the commands held, the instruments read the
new truth, the control stack computes the commands for the next step.

    from auv_cosim.vehicles.auv.stack.closed_loop import run_closed_loop
    log = run_closed_loop(ControlConfig(GuidanceMode="hold"), SensorConfig.noiseless(),
                          t_end=60.0, commands=lambda t: dict(depth_cmd=11.0))
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

import numpy as np

from .control import ControlConfig, ControlInputs, ControlStack
from .instruments import SensorConfig, SensorSuite, TruthInputs


def truth_of(y: Dict) -> TruthInputs:
    return TruthInputs(pos=tuple(float(v) for v in y["Pos"]), euler=tuple(float(v) for v in y["Euler"]),
                       depth=float(y["Depth"]), speed=float(y["Speed"]),
                       altitude=float(y["Altitude"]), vel=tuple(float(v) for v in y["Vel"]))


def control_inputs_of(m, cmd: Dict) -> ControlInputs:
    return ControlInputs(depth=m.depth, pitch=m.pitch, heading=m.heading, speed=m.speed,
                         altitude=m.altitude, altitude_valid=m.altitude_valid,
                         north=m.nav_north, east=m.nav_east, **cmd)


def run_closed_loop(control: ControlConfig, sensors: Optional[SensorConfig] = None, *,
                    t_end: float, dt: float = 0.1, x0=None, model=None,
                    commands: Optional[Callable[[float], Dict]] = None,
                    stop: Optional[Callable[[float, Dict, object], bool]] = None) -> Dict[str, np.ndarray]:
    """Fly the default vehicle (or ``model``) from ``x0`` (default: straight and level at
    1.5 m/s, 10 m deep, heading north) and return the time histories as arrays.

    ``commands(t)`` returns keyword overrides of :class:`ControlInputs` (speed_cmd,
    heading_cmd, depth_cmd). ``stop(t, truth_outputs, control_outputs)`` ends the run early.
    """
    from ..model import AuvModel, inputs
    from ..parameters import AuvParameters
    from ...environment import Environment
    from ...simulator import VehicleSimulator

    model = model if model is not None else AuvModel(AuvParameters(), Environment())
    x0 = x0 if x0 is not None else model.cruise_state(1.5, depth=10.0)
    commands = commands or (lambda t: {})
    sim = VehicleSimulator(model, x0)
    suite = SensorSuite(sensors if sensors is not None else SensorConfig())
    stack = ControlStack(control)

    u = inputs()
    y = model.outputs(sim.state, u)
    meas = suite.initialize(truth_of(y))
    out = stack.initialize(control_inputs_of(meas, commands(0.0)))
    rec: Dict[str, List] = {k: [] for k in (
        "t", "north", "east", "depth", "heading", "pitch", "roll", "speed", "altitude",
        "thrust_power", "rudder_yaw", "rudder_dive", "speed_ref", "heading_ref", "depth_ref",
        "pitch_ref", "cross_track", "waypoint_index", "finished", "meas_depth", "meas_heading")}

    def record(t):
        rec["t"].append(t)
        rec["north"].append(y["Pos"][0]); rec["east"].append(y["Pos"][1])
        rec["depth"].append(y["Depth"]); rec["heading"].append(y["Euler"][2])
        rec["pitch"].append(y["Euler"][1]); rec["roll"].append(y["Euler"][0])
        rec["speed"].append(y["Speed"]); rec["altitude"].append(y["Altitude"])
        rec["thrust_power"].append(out.thrust_power); rec["rudder_yaw"].append(out.rudder_yaw)
        rec["rudder_dive"].append(out.rudder_dive); rec["speed_ref"].append(out.speed_ref)
        rec["heading_ref"].append(out.heading_ref); rec["depth_ref"].append(out.depth_ref)
        rec["pitch_ref"].append(out.pitch_ref); rec["cross_track"].append(out.cross_track_error)
        rec["waypoint_index"].append(out.waypoint_index); rec["finished"].append(out.mission_finished)
        rec["meas_depth"].append(meas.depth); rec["meas_heading"].append(meas.heading)

    record(0.0)
    n = int(round(t_end / dt))
    for k in range(n):
        t0, t1 = k * dt, (k + 1) * dt
        u = inputs(out.thrust_power, out.rudder_yaw, out.rudder_dive)
        x = sim.advance(t0, t1, u)
        y = model.outputs(x, u)
        meas = suite.sample(truth_of(y), dt)
        out = stack.step(control_inputs_of(meas, commands(t1)), dt)
        record(t1)
        if stop is not None and stop(t1, y, out):
            break
    return {k: np.asarray(v) for k, v in rec.items()}
