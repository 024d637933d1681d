"""Instruments, guidance and control of the survey AUV as plain Python (no FMI in the
libraries; their parameters are declared with unit and description, `declare.parameter`).

Beside them, the thin pythonfmu slaves ``instruments_slave.AuvSensors`` and
``control_slave.AuvControl`` wrap :class:`~auv_cosim.vehicles.auv.stack.instruments.SensorSuite` and
:class:`~auv_cosim.vehicles.auv.stack.control.ControlStack`.

Conventions (NED, SI): heading 0 = north, pi/2 = east, wrapped to (-pi, pi]; pitch positive
nose up; depth positive down; a positive ``RudderYaw`` turns to starboard (positive yaw
rate); a positive ``RudderDive`` pitches the nose down and the vehicle dives.
"""
