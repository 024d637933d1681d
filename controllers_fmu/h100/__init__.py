"""Instruments, navigation, guidance, control and thrust allocation of the H100 ROV (SPEC 7) as
plain Python; the thin slaves ``h100_sensors_fmu.H100Sensors`` and ``h100_control_fmu.H100Control``
wrap :class:`~controllers_fmu.h100.instruments.H100Instruments` and
:class:`~controllers_fmu.h100.stack.H100ControlStack`.

Modules import what they need: ``instruments``, ``guidance``, ``navigation`` and ``frames`` need
only numpy and the project's angle / filter / rotation helpers; ``belief``, ``controllers`` and
``stack`` use the vehicle library ``vehicle_model.h100`` (the controllers' model of the vehicle).
"""
