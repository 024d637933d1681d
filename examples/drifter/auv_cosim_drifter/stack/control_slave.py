"""pythonfmu slave ``DrifterControl``: the drifter's depth controller (auv_cosim_drifter.stack.control)
as an FMI 2.0 co-simulation FMU. Inputs Depth and VerticalVelocity (the drifter's Depth and
Vel[3]); parameters DepthSetpoint and the gains; output BladderCommand, computed at each step
from the inputs at its start."""
from __future__ import annotations

import math

from pythonfmu.default_experiment import DefaultExperiment

from auv_cosim.fmu import FmuError, FmuSlave
from auv_cosim_drifter.stack.control import DepthController


class DrifterControl(FmuSlave):
    """Holds the drifter at DepthSetpoint with its bladder."""

    description = "Depth control of the profiling drifter (auv_cosim_drifter), FMI 2.0 co-simulation"
    author = "auv-cosim-drifter"
    version = "0.1.0"
    default_experiment = DefaultExperiment(start_time=0.0, stop_time=600.0, step_size=1.0)
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        defaults = DepthController()
        self.Depth, self.VerticalVelocity, self.BladderCommand = 0.0, 0.0, 0.0
        self.DepthSetpoint = 20.0
        self.Kp, self.Ki, self.Kd, self.MaxBladder = defaults.kp, defaults.ki, defaults.kd, defaults.limit
        self.controller = defaults
        self.add_real("Depth", causality="input", description="Depth of the drifter, positive down", unit="m")
        self.add_real("VerticalVelocity", causality="input", description="Vertical velocity, down positive",
                      unit="m/s")
        self.add_real("BladderCommand", causality="output", description="Bladder volume commanded", unit="m3",
                      depends_on=[])
        self.add_real("DepthSetpoint", causality="parameter", variability="tunable",
                      description="Depth to hold", unit="m")
        for name, unit, text in (("Kp", "m2", "Proportional gain: m3 of bladder per m of depth error"),
                                 ("Ki", "m2/s", "Integral gain: m3 per m s of depth error"),
                                 ("Kd", "m2.s", "Damping gain: m3 per m/s of vertical velocity"),
                                 ("MaxBladder", "m3", "Largest bladder volume commanded, either way")):
            self.add_real(name, causality="parameter", description=text, unit=unit)

    def fmu_exit_initialization(self) -> None:
        for name in ("DepthSetpoint", "Kp", "Ki", "Kd", "MaxBladder"):
            value = getattr(self, name)
            if not math.isfinite(value) or (name != "DepthSetpoint" and value < 0):
                raise FmuError(f"{name} = {value!r}: must be a finite number{'' if name == 'DepthSetpoint' else ' >= 0'}")
        self.controller = DepthController(self.Kp, self.Ki, self.Kd, self.MaxBladder)

    def fmu_do_step(self, current_time: float, step_size: float) -> None:
        if not (math.isfinite(self.Depth) and math.isfinite(self.VerticalVelocity)):
            raise FmuError(f"non-finite input: Depth = {self.Depth!r}, VerticalVelocity = {self.VerticalVelocity!r}")
        self.BladderCommand = self.controller.command(self.Depth, self.VerticalVelocity, self.DepthSetpoint,
                                                      step_size)

    def fmu_get_state(self):
        return {"integral": self.controller.integral}

    def fmu_set_state(self, internal):
        self.controller.integral = float(internal["integral"])
