"""The one FMU test harness: drive the project's FMUs through fmpy as another tool would, and
run the master's CLI in a fresh process as users do.

    from tests.harness import Instance, build, unpack
    build("Auv")                                        # tools/build_fmus.py, a no-op when fresh
    auv = Instance(unpack("Auv", tmp_path), "Auv", "auv0").initialize(Pos0=(0, 0, 10))
    auv.step(10.0, h=0.1); auv.get("Depth"); auv.close()

    from tests.harness import master
    run = master("run", "zigzag", "--no-plots", out=tmp_path / "z")   # -> Run (rc, csv, summary)

`tests/` is importable as a package from the checkout (pyproject: `pythonpath = ["."]`).
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

import numpy as np
from fmpy import calloc, extract, free, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                       fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)

ROOT = Path(__file__).resolve().parent.parent
FMU_DIR = ROOT / "fmus"
FMU_NAMES = ("Auv", "AuvSensors", "AuvControl")
OK, WARNING, DISCARD, ERROR, FATAL = 0, 1, 2, 3, 4


# ------------------------------------------------------------------------------ FMUs via fmpy
def build(*names: str) -> None:
    """Bring fmus/<name>.fmu up to date with tools/build_fmus.py (a no-op when it is)."""
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "build_fmus.py"), "-q", *names],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


#: put before the script `numba_cache_report` runs: its imports, and `instantiate_all()`, the FMUs
#: of sys.argv[1:] unzipped and instantiated in that order, {model identifier: (description, FMU2Slave)}
_LOADING = r"""
import json, os, sys
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

def instantiate_all():
    fmus = {}
    for path in sys.argv[1:]:
        md = read_model_description(path)
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(path), modelIdentifier=md.coSimulation.modelIdentifier,
                        instanceName=md.coSimulation.modelIdentifier)
        fmu.instantiate()
        fmus[md.coSimulation.modelIdentifier] = (md, fmu)
    return fmus
"""

#: appended to the script `numba_cache_report` runs: which compiled functions the FMUs loaded from
#: a cache, which they compiled (KERNEL is the module whose cache hits count)
_CACHE_REPORT = r"""
from numba.core.dispatcher import Dispatcher as _Dispatcher
# the FMUs carry the project under their build's package name (_auv_cosim_<hash>): KERNEL names the
# module within auv_cosim, found here under whichever build's name it was imported
_carried = {name: m for name, m in list(sys.modules.items()) if name.startswith("_auv_cosim_") and "." in name}
_kernel = next(m for name, m in _carried.items() if name.partition(".")[2] == KERNEL.partition(".")[2])
_dispatchers = [v for name, m in _carried.items() if name.partition(".")[2].startswith(("vehicles", "stacks"))
                for v in vars(m).values() if isinstance(v, _Dispatcher)]
print(json.dumps({"kernel": _kernel.__file__,
                  "hits": sum(sum(d._cache_hits.values()) for d in vars(_kernel).values() if isinstance(d, _Dispatcher)),
                  "misses": {d.py_func.__module__.partition(".")[2] + "." + d.__name__: sum(d._cache_misses.values())
                             for d in _dispatchers if sum(d._cache_misses.values())}}))
sys.stdout.flush()
os._exit(0)
"""


def numba_cache_report(script: str, kernel: str, fmus: List[Path]) -> dict:
    """Run ``script`` in a fresh interpreter outside the checkout (no PYTHONPATH, numba on): it
    loads and steps the freshly unzipped FMUs ``fmus`` (its sys.argv[1:]; json, os, sys, fmpy's
    ``extract``, ``read_model_description``, ``FMU2Slave`` and ``instantiate_all()`` are there for it). Then report what numba did: ``kernel``, the file the module ``kernel`` was
    imported from (an FMU's copy, under its build's package name); ``hits``, the cache hits of
    that module's compiled functions; ``misses``, the compilations of every compiled function of
    the FMUs' vehicles and stacks, by name within the package (empty when nothing was compiled)."""
    env = dict(os.environ, PYTHONPATH="")
    env.pop("AUV_NO_JIT", None)
    code = f"KERNEL = {kernel!r}\n{_LOADING}\n{script}\n{_CACHE_REPORT}"
    proc = subprocess.run([sys.executable, "-c", code, *map(str, fmus)], cwd="/", env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def unpack(name: str, folder: Path):
    """(model description, extracted folder) of fmus/<name>.fmu, validated by fmpy."""
    fmu = FMU_DIR / f"{name}.fmu"
    md = read_model_description(str(fmu), validate=True)
    return md, extract(str(fmu), unzipdir=str(folder))


class Instances:
    """The instances one test makes of extracted FMUs, all closed by `close` (what the FMU
    tests' `make` fixtures hand out). `unpacked` maps a model name to `unpack`'s result."""

    def __init__(self, unpacked: dict):
        self.unpacked, self.made = unpacked, []

    def __call__(self, name: str) -> "Instance":
        inst = Instance(self.unpacked[name], name, f"{name.lower()}{len(self.made)}")
        self.made.append(inst)
        return inst

    def close(self) -> None:
        for inst in self.made:
            inst.close()


class Instance:
    """One instance of an extracted FMU, its log messages captured in `messages`
    ((status, category, text) tuples). `parameters` are set by `initialize`."""

    def __init__(self, unpacked, model_identifier: str, name: str, **parameters):
        md, unzipdir = unpacked
        self.md = md
        self.var = {v.name: v for v in md.modelVariables}
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.messages: List = []
        self.parameters = parameters
        self.time = 0.0

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
        """Set variables by name whatever their type; a tuple or list sets `name[1]`, ..."""
        by_type: Dict[str, tuple] = {"Real": ([], []), "Integer": ([], []), "Boolean": ([], []),
                                     "String": ([], [])}
        for name, value in values.items():
            if isinstance(value, (tuple, list, np.ndarray)):
                items = [(f"{name}[{i + 1}]", v) for i, v in enumerate(value)]
            else:
                items = [(name, value)]
            for n, v in items:
                var = self.var[n]
                vrs, vals = by_type[var.type]
                vrs.append(var.valueReference)
                vals.append(float(v) if var.type == "Real" else v)
        for kind, (vrs, vals) in by_type.items():
            if vrs:
                getattr(self.fmu, f"set{kind}")(vrs, vals)

    def get(self, *names):
        """The values of `names` (one value for one name), strings decoded."""
        out = []
        for n in names:
            var = self.var[n]
            value = getattr(self.fmu, f"get{var.type}")([var.valueReference])[0]
            out.append(value.decode() if isinstance(value, bytes) else value)
        return out[0] if len(out) == 1 else out

    def vector(self, name: str, size: int = 3) -> np.ndarray:
        return np.array(self.get(*[f"{name}[{i + 1}]" for i in range(size)]))

    def initialize(self, **parameters) -> "Instance":
        """setupExperiment(0), enterInitializationMode, set the constructor's and these
        parameters, exitInitializationMode."""
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        self.set(**{**self.parameters, **parameters})
        self.fmu.exitInitializationMode()
        return self

    def step(self, duration: float, h: float = 0.5) -> None:
        """doStep from the instance's time by h until `duration` has passed."""
        for _ in range(int(round(duration / h))):
            self.fmu.doStep(self.time, h)
            self.time += h

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


# ------------------------------------------------------------------------------ the AUV stack
SENSOR_OUTPUTS = ("MeasuredDepth", "MeasuredPitch", "MeasuredHeading", "MeasuredSpeed",
                  "MeasuredAltitude", "AltitudeValid", "NavNorth", "NavEast")
TRUTH = ("Pos[1]", "Pos[2]", "Pos[3]", "Euler[1]", "Euler[2]", "Euler[3]", "Depth", "Speed",
         "Altitude", "Vel[1]", "Vel[2]", "Vel[3]")
COMMANDS = ("ThrustPower", "RudderYaw", "RudderDive")


def cosimulate(vehicle: Instance, sensors: Instance, control: Instance, t_end: float, dt: float,
               commands: Optional[Callable[[float], dict]] = None,
               record=("Depth", "Euler[3]", "Pos[1]", "Pos[2]")) -> Dict[str, list]:
    """Gauss-Seidel: vehicle [t, t+dt] with the commands held -> sensors read the new truth ->
    control computes the next commands. All three must be initialised, sensors and control
    with inputs consistent with the vehicle's initial outputs (`initialize_stack`)."""
    rec: Dict[str, list] = {k: [] for k in ("t", *record, *COMMANDS, "WaypointIndex", "MissionFinished")}
    t = 0.0
    for k in range(int(round(t_end / dt))):
        cmd = dict(zip(COMMANDS, control.get(*COMMANDS)))
        vehicle.set(**cmd)
        vehicle.fmu.doStep(t, dt)
        truth = dict(zip(TRUTH, vehicle.get(*TRUTH)))
        sensors.set(**truth)
        sensors.fmu.doStep(t, dt)
        control.set(**dict(zip(SENSOR_OUTPUTS, sensors.get(*SENSOR_OUTPUTS))))
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


# ------------------------------------------------------------------------------ the master's CLI
def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Run:
    """A finished `auv-cosim` process: rc, stdout, stderr, the output folder, wall time."""

    def __init__(self, proc: subprocess.CompletedProcess, out: Optional[Path], wall: float):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out = out
        self.wall = wall

    @property
    def summary(self) -> dict:
        return json.loads((self.out / "summary.json").read_text())

    @property
    def csv_path(self) -> Path:
        return self.out / "results.csv"

    def table(self) -> tuple:
        with open(self.csv_path, newline="") as f:
            rows = list(csv.reader(f))
        return rows[0], rows[1:]

    def column(self, name: str) -> List[float]:
        header, rows = self.table()
        i = header.index(name)
        return [float(r[i]) for r in rows]

    def __repr__(self):
        return f"<Run rc={self.rc}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr[-3000:]}>"


def master(*args: str, out: Optional[Path] = None, cwd: Path = ROOT, timeout: float = 300) -> Run:
    """`auv-cosim ARGS [--out OUT]` in a fresh interpreter."""
    cmd = [sys.executable, "-m", "auv_cosim", *args]
    if out is not None:
        cmd += ["--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)
    return Run(proc, out, time.perf_counter() - t0)


def popen_master(*args: str, out: Path, cwd: Path = ROOT) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "auv_cosim", *args, "--out", str(out)]
    return subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
