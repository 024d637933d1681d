"""Small fmpy harness for the project's FMUs: build (if stale), extract, instantiate, set/get
by name whatever the type, and a Gauss-Seidel loop over Auv + AuvSensors + AuvControl."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Dict, List

from fmpy import calloc, extract, free, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                       fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)

ROOT = Path(__file__).resolve().parents[2]
FMUS = ROOT / "fmus"
OK, WARNING, DISCARD, ERROR, FATAL = 0, 1, 2, 3, 4


def build(*names: str) -> None:
    """Bring fmus/<name>.fmu up to date with tools/build_fmus.py (a no-op when it is)."""
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "build_fmus.py"), "-q", *names],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def unpack(name: str, folder: Path):
    fmu = FMUS / f"{name}.fmu"
    md = read_model_description(str(fmu), validate=True)
    return md, extract(str(fmu), unzipdir=str(folder))


class Instance:
    """One instance of an extracted FMU with its log messages captured."""

    def __init__(self, unpacked, model_identifier: str, name: str):
        md, unzipdir = unpacked
        self.md = md
        self.var = {v.name: v for v in md.modelVariables}
        self.messages: List = []

        def logger(env, instance, status, category, message):
            self.messages.append((status, (category or b"").decode(), (message or b"").decode()))

        self.callbacks = fmi2CallbackFunctions()
        self.callbacks.logger = fmi2CallbackLoggerTYPE(logger)
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipdir, modelIdentifier=model_identifier,
                             instanceName=name)
        self.fmu.instantiate(callbacks=self.callbacks, loggingOn=True)
        self.freed = False

    def set(self, **values) -> None:
        by_type: Dict[str, tuple] = {"Real": ([], []), "Integer": ([], []), "Boolean": ([], []), "String": ([], [])}
        for name, value in values.items():
            if isinstance(value, (tuple, list)):
                items = [(f"{name}[{i + 1}]", v) for i, v in enumerate(value)]
            else:
                items = [(name, value)]
            for n, v in items:
                var = self.var[n]
                vrs, vals = by_type[var.type]
                vrs.append(var.valueReference)
                vals.append(v)
        for kind, (vrs, vals) in by_type.items():
            if vrs:
                getattr(self.fmu, f"set{kind}")(vrs, vals)

    def get(self, *names):
        out = []
        for n in names:
            var = self.var[n]
            value = getattr(self.fmu, f"get{var.type}")([var.valueReference])[0]
            out.append(value.decode() if isinstance(value, bytes) else value)
        return out[0] if len(out) == 1 else out

    def initialize(self, **parameters) -> "Instance":
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        self.set(**parameters)
        self.fmu.exitInitializationMode()
        return self

    def errors(self) -> List[str]:
        return [m for s, _, m in self.messages if s >= ERROR]

    def close(self) -> None:
        if not self.freed:
            self.freed = True
            try:
                self.fmu.terminate()
            except FMICallException:
                pass
            self.fmu.freeInstance()


SENSOR_OUTPUTS = ("MeasuredDepth", "MeasuredPitch", "MeasuredHeading", "MeasuredSpeed",
                  "MeasuredAltitude", "AltitudeValid", "NavNorth", "NavEast")
TRUTH = ("Pos[1]", "Pos[2]", "Pos[3]", "Euler[1]", "Euler[2]", "Euler[3]", "Depth", "Speed",
         "Altitude", "Vel[1]", "Vel[2]", "Vel[3]")
COMMANDS = ("ThrustPower", "RudderYaw", "RudderDive")


def cosimulate(vehicle: Instance, sensors: Instance, control: Instance, t_end: float, dt: float,
               commands=None, record=("Depth", "Euler[3]", "Pos[1]", "Pos[2]")) -> Dict[str, list]:
    """Gauss-Seidel: vehicle [t, t+dt] with the commands held -> sensors read the new truth ->
    control computes the next commands. All three must be initialised, sensors and control
    with inputs consistent with the vehicle's initial outputs (done here at t = 0)."""
    rec: Dict[str, list] = {k: [] for k in ("t", *record, *COMMANDS, "WaypointIndex", "MissionFinished")}

    def exchange(t):
        truth = dict(zip(TRUTH, vehicle.get(*TRUTH)))
        sensors.set(**truth)
        return truth

    t = 0.0
    for k in range(int(round(t_end / dt))):
        cmd = dict(zip(COMMANDS, control.get(*COMMANDS)))
        vehicle.set(**cmd)
        vehicle.fmu.doStep(t, dt)
        truth = exchange(t + dt)
        sensors.fmu.doStep(t, dt)
        meas = dict(zip(SENSOR_OUTPUTS, sensors.get(*SENSOR_OUTPUTS)))
        control.set(**meas)
        if commands is not None:
            control.set(**commands(t + dt))
        control.fmu.doStep(t, dt)
        t = (k + 1) * dt
        rec["t"].append(t)
        for name in record:
            rec[name].append(truth[name] if name in truth else vehicle.get(name))
        for name, value in cmd.items():
            rec[name].append(value)
        wi, mf = control.get("WaypointIndex", "MissionFinished")
        rec["WaypointIndex"].append(wi)
        rec["MissionFinished"].append(mf)
    return rec


def initialize_stack(vehicle: Instance, sensors: Instance, control: Instance, *,
                     vehicle_parameters=None, sensor_parameters=None, control_parameters=None,
                     commands=None) -> None:
    """Initialise the three instances in dataflow order so that the first commands are
    computed from the first readings of the initial truth."""
    vehicle.initialize(**(vehicle_parameters or {}))
    sensors.fmu.setupExperiment(startTime=0.0)
    sensors.fmu.enterInitializationMode()
    sensors.set(**(sensor_parameters or {}))
    sensors.set(**dict(zip(TRUTH, vehicle.get(*TRUTH))))
    sensors.fmu.exitInitializationMode()
    control.fmu.setupExperiment(startTime=0.0)
    control.fmu.enterInitializationMode()
    control.set(**(control_parameters or {}))
    control.set(**dict(zip(SENSOR_OUTPUTS, sensors.get(*SENSOR_OUTPUTS))))
    if commands is not None:
        control.set(**commands(0.0))
    control.fmu.exitInitializationMode()
