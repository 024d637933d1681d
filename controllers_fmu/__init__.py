"""Instruments, guidance and control of the survey AUV as plain Python (no FMI in the
libraries; their parameters are declared with unit and description, `declare.parameter`).

Beside them, the thin pythonfmu slaves ``auv_sensors_fmu.AuvSensors`` and ``auv_control_fmu.AuvControl``
wrap :class:`controllers_fmu.sensors.SensorSuite` and :class:`controllers_fmu.control.ControlStack`.

Conventions (NED, SI): heading 0 = north, pi/2 = east, wrapped to (-pi, pi]; pitch positive
nose up; depth positive down; a positive ``RudderYaw`` turns to starboard (positive yaw
rate); a positive ``RudderDive`` pitches the nose down and the vehicle dives.
"""
from .angles import wrap_pi, angle_diff
from .filters import FirstOrderLag, AngleLag
from .pid import PID
from .sensors import SensorConfig, SensorSuite, SensorOutputs, TruthInputs
from .guidance import (
    WaypointError, parse_waypoints, LineOfSight, LosResult, WaypointManager, YoyoGuidance,
)
from .control import ControlConfig, ControlStack, ControlInputs, ControlOutputs

__all__ = [
    "wrap_pi", "angle_diff", "FirstOrderLag", "AngleLag", "PID",
    "SensorConfig", "SensorSuite", "SensorOutputs", "TruthInputs",
    "WaypointError", "parse_waypoints", "LineOfSight", "LosResult", "WaypointManager",
    "YoyoGuidance", "ControlConfig", "ControlStack", "ControlInputs", "ControlOutputs",
]
