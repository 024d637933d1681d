"""pythonfmu slave ``AuvSensors``: the instruments (thin wrapper of auv_cosim.vehicles.auv.stack.instruments).

Timing: the readings returned after ``do_step(t, h)`` are the instruments' readings of the
truth inputs set before that call, the lags advanced by ``h``; the readings available right
after initialisation are those of the inputs set during initialisation (lags start there).
Stepping the vehicle first and feeding its new outputs to this FMU therefore gives
measurements of the truth at ``t + h`` (Gauss-Seidel order, no added delay).

Failures (see auv_cosim.fmu.slave): a bad parameter (negative noise std or lag, non-positive
range, negative Seed) fails fmi2ExitInitializationMode (fmi2Error; fmi2Fatal under pythonfmu's
stock binary) with an error that names it; a NaN input fails fmi2DoStep (fmi2Error; fmi2Discard
under pythonfmu's) with an error logged, nothing advanced.

FMU state: the variables plus the noise generator's ``bit_generator.state``, every lag state
and the held DVL altitude; a restored run continues bit for bit.
"""
from __future__ import annotations

import copy
import math

from ....fmu import FmuError, FmuSlave
from ....fmu.declare import Var, parameters_of, register_with_real_arrays

from .instruments import SensorConfig, SensorSuite
from .navigation import DeadReckoningConfig, WaterTrackDrift
from .terrain import TerrainConfig, TerrainInstruments

#: The parameters: the configuration's fields, declared beside them (auv_cosim/vehicles/auv/stack/instruments.py).
PARAMETERS = parameters_of(SensorConfig)
#: The seabed's and the beams' (auv_cosim/vehicles/auv/stack/terrain.py), after every other variable
TERRAIN_PARAMETERS = parameters_of(TerrainConfig)
#: the navigation's drift without bottom lock (auv_cosim/vehicles/auv/stack/navigation.py), after those
DRIFT_PARAMETERS = parameters_of(DeadReckoningConfig)

INPUTS = (
    [Var(f"Pos[{i}]", "Real", "input", 0.0, "m", f"True position, NED component {i}") for i in (1, 2, 3)]
    + [Var(f"Euler[{i}]", "Real", "input", 0.0, "rad", d) for i, d in
       ((1, "True roll"), (2, "True pitch, positive nose up"), (3, "True heading (yaw), 0 = north, pi/2 = east"))]
    + [Var("Depth", "Real", "input", 0.0, "m", "True depth, positive down"),
       Var("Speed", "Real", "input", 0.0, "m/s", "True forward speed through the water"),
       Var("Altitude", "Real", "input", 1.0e6, "m", "True height above the seafloor (NaN/inf: no seafloor)")]
    + [Var(f"Vel[{i}]", "Real", "input", 0.0, "m/s", f"True velocity, NED component {i} (not used yet)") for i in (1, 2, 3)]
)

OUTPUTS = [
    Var("MeasuredDepth", "Real", "output", 0.0, "m", "Pressure depth sensor reading"),
    Var("MeasuredRoll", "Real", "output", 0.0, "rad", "AHRS roll, wrapped to (-pi, pi]"),
    Var("MeasuredPitch", "Real", "output", 0.0, "rad", "AHRS pitch, positive nose up"),
    Var("MeasuredHeading", "Real", "output", 0.0, "rad", "AHRS heading, wrapped to (-pi, pi], 0 = north, pi/2 = east"),
    Var("MeasuredSpeed", "Real", "output", 0.0, "m/s", "DVL speed through the water"),
    Var("MeasuredAltitude", "Real", "output", 0.0, "m", "DVL altitude; last good value while AltitudeValid is false (0 before the first lock)"),
    Var("AltitudeValid", "Boolean", "output", False, None, "DVL bottom lock: true while the altitude is within DvlRange"),
    Var("NavNorth", "Real", "output", 0.0, "m", "Navigation position north, used by guidance"),
    Var("NavEast", "Real", "output", 0.0, "m", "Navigation position east, used by guidance"),
]

#: the acoustic beams' readings, after every other variable (added later: no value reference moved)
TERRAIN_OUTPUTS = [
    Var("MeasuredAltimeter", "Real", "output", 0.0, "m", "Altimeter slant range along the body's z axis "
        "(0 without an echo within AltimeterRange)"),
    Var("AltimeterValid", "Boolean", "output", False, None, "Altimeter echo within AltimeterRange"),
    Var("DvlBeamsInRange", "Integer", "output", 4, None, "DVL beams with an echo within range over a "
        "BathymetryFile (bottom lock: at least 3); 4 without one"),
]

TABLE = PARAMETERS + INPUTS + OUTPUTS + TERRAIN_PARAMETERS + TERRAIN_OUTPUTS + DRIFT_PARAMETERS
#: where the true values are among the Real inputs, and the readings among the Real outputs
_REAL_INPUTS = [v.name for v in INPUTS]
_REAL_OUTPUTS = [v.name for v in OUTPUTS + TERRAIN_OUTPUTS if v.type == "Real"]
ALTITUDE = _REAL_INPUTS.index("Altitude")
TRUE_DEPTH, TRUE_VEL = _REAL_INPUTS.index("Depth"), _REAL_INPUTS.index("Vel[1]")
ALTIMETER = _REAL_OUTPUTS.index("MeasuredAltimeter")
SPEED, PITCH, HEADING = (_REAL_OUTPUTS.index(n) for n in ("MeasuredSpeed", "MeasuredPitch", "MeasuredHeading"))
NAV_NORTH, NAV_EAST = _REAL_OUTPUTS.index("NavNorth"), _REAL_OUTPUTS.index("NavEast")


class AuvSensors(FmuSlave):
    """The instruments of the survey AUV (auv_cosim.vehicles.auv.stack.instruments.SensorSuite)."""

    author = "auv-cosim"
    version = "0.1.0"
    description = ("Instruments of the survey AUV: pressure depth sensor, AHRS, DVL (speed, "
                   "altitude with bottom lock) and navigation position; seeded noise, bias, "
                   "first-order lag and range per instrument")
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.values = {}
        # the Real inputs and outputs in the arrays self.real_inputs and self.real_outputs, in the
        # order of INPUTS and OUTPUTS: what the suite's compiled sample reads and writes
        register_with_real_arrays(self, TABLE)
        self.suite = None
        self.terrain = None
        self.drift = None

    # ---------------------------------------------------------------- mapping
    def _config(self) -> SensorConfig:
        try:
            config = SensorConfig(**{v.name: self.values[v.name] for v in PARAMETERS})
            config.validate()
        except ValueError as error:
            raise FmuError(f"parameter {error}") from None
        return config

    def _terrain(self, config: SensorConfig) -> TerrainInstruments:
        try:
            return TerrainInstruments(TerrainConfig(**{v.name: self.values[v.name] for v in TERRAIN_PARAMETERS}),
                                      int(config.Seed), float(config.DvlRange))
        except ValueError as error:
            raise FmuError(f"parameter {error}") from None

    def _drift(self) -> WaterTrackDrift:
        try:
            return WaterTrackDrift(DeadReckoningConfig(**{v.name: self.values[v.name] for v in DRIFT_PARAMETERS}))
        except ValueError as error:
            raise FmuError(f"parameter {error}") from None

    def _navigate(self, step_size: float, bottom_lock: bool) -> None:
        """Over a grid, the navigation's drift without bottom lock added to NavNorth and NavEast
        (auv_cosim/vehicles/auv/stack/navigation.py); without one, nothing."""
        if self.terrain.seabed is None:
            return
        truth, readings = self.real_inputs, self.real_outputs
        self.drift.advance(step_size, bottom_lock, float(truth[TRUE_DEPTH]), float(readings[SPEED]),
                           float(readings[PITCH]), float(readings[HEADING]), float(truth[TRUE_VEL]),
                           float(truth[TRUE_VEL + 1]))
        if self.drift.active:
            readings[NAV_NORTH] += self.drift.north
            readings[NAV_EAST] += self.drift.east

    def _truth(self, terrain: TerrainInstruments):
        """The truth the suite reads: over a grid, the DVL's altitude from its beams in place of
        the true Altitude (auv_cosim/vehicles/auv/stack/terrain.py)."""
        if terrain.seabed is None:
            return self.real_inputs
        truth = self.real_inputs.copy()
        pos, euler = truth[0:3].tolist(), truth[3:6].tolist()
        if any(math.isnan(v) for v in pos + euler):
            return self.real_inputs          # the suite names the bad input
        try:
            truth[ALTITUDE] = terrain.dvl_altitude(pos, euler)
        except ValueError as error:
            raise FmuError(str(error)) from None
        return truth

    def _read_terrain(self, terrain: TerrainInstruments) -> None:
        """The altimeter's reading and the DVL's beams in range (outputs after every other)."""
        inputs = self.real_inputs.tolist()
        reading, valid = terrain.altimeter(inputs[0:3], inputs[3:6], inputs[ALTITUDE])
        self.real_outputs[ALTIMETER] = reading
        self.values["AltimeterValid"] = valid
        self.values["DvlBeamsInRange"] = terrain.beams_in_range if terrain.seabed is not None else 4

    def _first_reading(self):
        config = self._config()
        suite, terrain = SensorSuite(config), self._terrain(config)
        try:
            self.values["AltitudeValid"] = suite.initialize_into(self._truth(terrain), self.real_outputs)
        except ValueError as error:
            raise FmuError(str(error)) from None
        self._read_terrain(terrain)
        return suite, terrain

    # ---------------------------------------------------------------- FMI hooks
    def fmu_initial_outputs(self) -> None:
        # a throw-away suite: reading outputs during initialisation must not consume noise
        self._drift()                   # a bad GpsFixDepth is named at initialisation
        self._first_reading()

    def fmu_exit_initialization(self) -> None:
        self.drift = self._drift()
        self.suite, self.terrain = self._first_reading()
        self.parameters_changed = False

    def fmu_do_step(self, current_time: float, step_size: float) -> None:
        if not step_size >= 0.0:
            raise FmuError(f"communication step size {step_size} must not be negative")
        try:   # INPUTS and OUTPUTS are in the order of the suite's arrays (sensor_kernel)
            self.values["AltitudeValid"] = self.suite.sample_into(self._truth(self.terrain), self.real_outputs,
                                                                  float(step_size))
        except ValueError as error:   # a NaN input: nothing has advanced yet
            raise FmuError(str(error)) from None
        self._navigate(float(step_size), bool(self.values["AltitudeValid"]))
        self._read_terrain(self.terrain)

    def fmu_get_state(self):
        if self.suite is None:
            return {"suite": None}
        return {"suite": copy.deepcopy(self.suite.get_state()), "altimeter": self.terrain.noise.get_state(),
                "drift": self.drift.get_state()}

    def fmu_set_state(self, internal) -> None:
        if internal["suite"] is None:
            self.suite = None
            return
        config = self._config()
        self.suite, self.terrain = SensorSuite(config), self._terrain(config)
        self.suite.set_state(copy.deepcopy(internal["suite"]))
        self.terrain.noise.set_state(copy.deepcopy(internal["altimeter"]))
        self.drift = self._drift()
        self.drift.set_state(internal["drift"])
        self.parameters_changed = False
