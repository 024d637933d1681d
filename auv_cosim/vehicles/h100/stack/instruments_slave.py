"""pythonfmu slave ``H100Sensors``: the H100's IMU, DVL, pressure depth sensor and USBL (thin
wrapper of auv_cosim.vehicles.h100.stack.instruments).

Inputs are the H100 outputs of the same names (``Pos``, ``Euler``, ``Omega``, ``SpecificForce``,
``LocalVel``, ``Depth``, ``Altitude``); outputs the readings. Timing: the readings after
``do_step(t, h)`` are those of the truth set before the call, the lags and the USBL clock
advanced by ``h``: stepped after the vehicle, they measure the vehicle at ``t + h``.

Over a bathymetry grid (the parameters BathymetryFile, OriginLatitude, OriginLongitude,
DvlBeamAngle: auv_cosim/stacks/acoustic.py, the survey AUV's instruments' too) the DVL's altitude
and bottom lock come from its four Janus beams, and the Integer output DvlBeamsInRange counts
the beams with an echo (4 without a file); those variables come after every other, so that no
value reference moved. Without a file the instruments are what they were.

Failures and FMU state as the AUV's instruments (auv_sensors_fmu.py): a bad parameter fails
initialisation naming it, a non-finite input fails the step (fmi2Discard) naming it, nothing
advanced; the state (generator, lags, pending USBL fixes) restores bit for bit.
"""
from __future__ import annotations

import copy
import os
import sys
from operator import itemgetter
from pathlib import Path

from ....fmu import FmuError, FmuSlave
from ....fmu.declare import Var, config_of, parameters_of, register_with_real_outputs

from ....stacks.acoustic import AcousticConfig
from .instruments import H100Instruments, InstrumentConfig, Truth

_AXES = ("x (forward)", "y (starboard)", "z (down)")
_NED = ("north", "east", "down")


def _vector(name, start, unit, description, axes=_AXES, causality="parameter"):
    return [Var(f"{name}[{i + 1}]", "Real", causality, start[i] if start is not None else 0.0, unit,
                f"{description}, {axes[i]}") for i in range(3)]


#: The parameters: the configuration's fields, declared beside them (auv_cosim/vehicles/h100/stack/instruments.py).
PARAMETERS = parameters_of(InstrumentConfig)

INPUTS = [
    *_vector("Pos", None, "m", "True position of the body origin", axes=_NED, causality="input"),
    *[Var(f"Euler[{i + 1}]", "Real", "input", 0.0, "rad", d) for i, d in
      enumerate(("True roll", "True pitch, positive nose up", "True yaw (heading), 0 = north"))],
    *_vector("Omega", None, "rad/s", "True angular rate, body", causality="input"),
    *[Var(f"SpecificForce[{i + 1}]", "Real", "input", (0.0, 0.0, -9.82)[i], "m/s2",
          f"True specific force at the body origin, body {_AXES[i]}") for i in range(3)],
    *_vector("LocalVel", None, "m/s", "True velocity over ground, body", causality="input"),
    Var("Depth", "Real", "input", 0.0, "m", "True depth, positive down"),
    Var("Altitude", "Real", "input", 1.0e6, "m", "True height above the sea floor (NaN/inf: none)"),
]

OUTPUTS = [
    *[Var(f"MeasuredEuler[{i + 1}]", "Real", "output", 0.0, "rad", d) for i, d in
      enumerate(("IMU roll, wrapped to (-pi, pi]", "IMU pitch, positive nose up",
                 "IMU heading, wrapped to (-pi, pi], 0 = north, pi/2 = east"))],
    *_vector("MeasuredOmega", None, "rad/s", "Gyro angular rate, body", causality="output"),
    *_vector("MeasuredSpecificForce", None, "m/s2", "Accelerometer specific force, body", causality="output"),
    *_vector("MeasuredVelocity", None, "m/s", "DVL velocity over ground, body (last good value without bottom lock)",
             causality="output"),
    Var("MeasuredAltitude", "Real", "output", 0.0, "m", "DVL altitude (last good value without bottom lock)"),
    Var("DvlValid", "Boolean", "output", False, None, "DVL bottom lock: true while the altitude is within DvlRange"),
    Var("MeasuredDepth", "Real", "output", 0.0, "m", "Pressure depth sensor reading"),
    *_vector("UsblPosition", None, "m", "USBL fix: position at UsblFixTime", axes=_NED, causality="output"),
    Var("UsblFixTime", "Real", "output", 0.0, "s", "The instant the last USBL fix describes (its ping)"),
    Var("UsblFixCount", "Integer", "output", 0, None, "Number of USBL fixes delivered (a new fix increments it)"),
]

#: the seabed's and the DVL beams' (auv_cosim/stacks/acoustic.py), after every other variable
ACOUSTIC_PARAMETERS = parameters_of(AcousticConfig)
ACOUSTIC_OUTPUTS = [
    Var("DvlBeamsInRange", "Integer", "output", 4, None, "DVL beams with an echo within DvlRange / "
        "cos(DvlBeamAngle) over a BathymetryFile (bottom lock: at least 3); 4 without one",
        variability="discrete"),
]

TABLE = PARAMETERS + INPUTS + OUTPUTS + ACOUSTIC_PARAMETERS + ACOUSTIC_OUTPUTS

#: the Real outputs (the list self.real_outputs) in the order _publish writes them
_REAL_OUTPUTS = [f"{name}[{i + 1}]" for name in ("MeasuredEuler", "MeasuredOmega", "MeasuredSpecificForce",
                                                 "MeasuredVelocity") for i in range(3)] + [
    "MeasuredAltitude", "MeasuredDepth", "UsblPosition[1]", "UsblPosition[2]", "UsblPosition[3]", "UsblFixTime"]

#: the inputs the slave reads each step, as tuples of the values (one itemgetter call each)
_POS, _EULER, _OMEGA, _FORCE, _LOCAL_VEL = (itemgetter(*[f"{name}[{i + 1}]" for i in range(3)]) for name in
                                           ("Pos", "Euler", "Omega", "SpecificForce", "LocalVel"))


class H100Sensors(FmuSlave):
    """The instruments of the H100 ROV (auv_cosim.vehicles.h100.stack.instruments.H100Instruments)."""

    author = "auv-cosim"
    version = "0.1.0"
    description = ("Instruments of the H100 ROV: IMU (attitude, rates, specific force), DVL "
                   "(velocity over ground, altitude, bottom lock), pressure depth, USBL position "
                   "fixes at a lower rate with latency; seeded noise, bias, first-order lag, range")
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.values = {}
        at = register_with_real_outputs(self, TABLE)     # the Real outputs: self.real_outputs
        if list(at) != _REAL_OUTPUTS:   # _publish writes them in this order
            raise RuntimeError(f"H100Sensors: Real outputs {list(at)} are not in the order {_REAL_OUTPUTS}")
        self.instruments = None

    def _config(self) -> InstrumentConfig:
        try:
            config = config_of(InstrumentConfig, self.values)
            config.validate()
        except ValueError as error:
            raise FmuError(f"parameter {error}") from None
        return config

    def _instruments(self) -> H100Instruments:
        """The instruments of the parameters now (the grid read, when there is one)."""
        config = self._config()
        try:
            return H100Instruments(config, config_of(AcousticConfig, self.values))
        except ValueError as error:
            raise FmuError(f"parameter {error}") from None

    def _truth(self) -> Truth:
        v = self.values
        return Truth(_POS(v), _EULER(v), _OMEGA(v), _FORCE(v), _LOCAL_VEL(v), v["Depth"], v["Altitude"])

    def _publish(self, r) -> None:
        # every Real output in one assignment, in the order of _REAL_OUTPUTS
        self.real_outputs[:] = (*r.euler, *r.omega, *r.specific_force, *r.velocity, r.altitude, r.depth,
                                *r.usbl, r.usbl_fix_time)
        v = self.values
        v["DvlValid"], v["UsblFixCount"] = bool(r.dvl_valid), int(r.usbl_fix_count)
        v["DvlBeamsInRange"] = int(r.dvl_beams)

    def _first_reading(self) -> H100Instruments:
        instruments = self._instruments()
        try:
            self._publish(instruments.initialize(self._truth()))
        except ValueError as error:
            raise FmuError(str(error)) from None
        return instruments

    # ---------------------------------------------------------------- FMI hooks
    def fmu_initial_outputs(self) -> None:
        # a throw-away instance: reading outputs during initialisation must not consume noise
        self._first_reading()

    def fmu_exit_initialization(self) -> None:
        self.instruments = self._first_reading()
        self.parameters_changed = False

    def fmu_do_step(self, current_time: float, step_size: float) -> None:
        if not step_size >= 0.0:
            raise FmuError(f"communication step size {step_size} must not be negative")
        try:
            self._publish(self.instruments.sample(self._truth(), float(step_size)))
        except ValueError as error:   # a non-finite input: nothing has advanced yet
            raise FmuError(str(error)) from None

    def fmu_get_state(self):
        return {"instruments": None if self.instruments is None else copy.deepcopy(self.instruments.get_state())}

    def fmu_set_state(self, internal) -> None:
        if internal["instruments"] is None:
            self.instruments = None
            return
        self.instruments = self._instruments()
        self.instruments.set_state(copy.deepcopy(internal["instruments"]))
        self.parameters_changed = False
