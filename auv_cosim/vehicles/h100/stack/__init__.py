"""Instruments, navigation, guidance, control and thrust allocation of the H100 ROV (docs/physics/h100.md) as
plain Python; the thin slaves ``instruments_slave.H100Sensors`` and
``control_slave.H100Control`` wrap :class:`~auv_cosim.vehicles.h100.stack.instruments.H100Instruments` and
:class:`~auv_cosim.vehicles.h100.stack.stack.H100ControlStack`.

Modules import what they need: ``instruments``, ``guidance``, ``navigation`` and ``frames`` need
only numpy and the project's angle / filter / rotation helpers; ``belief``, ``control`` and
``stack`` use the vehicle library ``auv_cosim.vehicles.h100`` (the controllers' model of the vehicle).
"""
