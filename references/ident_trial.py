"""Trial logs for identification made through fmpy, not the master: a vehicle's FMU with perturbed
true parameters flown open loop on a schedule of its own (not the project's ident_* scenarios),
white noise added to what it outputs, written in results.csv's columns (`vehicle.Depth`,
`vehicle.LocalVel[1]`, `vehicle.ThrusterCommand[1]`...), the truth beside it in truth.json.
A log nobody on the project tuned the fit to: what a user brings. The command:
tools/ident_trial.py.

The H100: per-axis body-wrench steps (surge, sway, heave at two levels and both signs, yaw both
signs) turned into thruster commands with the nominal layout's pseudo-inverse (the truth's
efficiency is not known to whoever wrote the schedule), thrusters off in between, then a surge
chirp; damping +30 %, added mass -20 %, thruster efficiency 0.85; noise 2 cm (position, depth),
2 mrad (attitude), 5 mm/s (body velocity), 2 mrad/s (rates). The AUV: thrust-power steps, rudder
steps and a rudder chirp of other levels and frequencies than ident_auv, dive-plane steps;
AxialDragCoeff +20 %, CrossFlowDragCoeff -20 %, RudderClMax +15 %; its instruments' (AuvSensors')
default noise levels. Each row holds the outputs at its time and the commands held over the
step that ended there, as the master records.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
STEP = 0.1

#: the H100's true vehicle (FMU parameter -> value; nominal: the H100 unit's vehicle_files/H100.yaml)
H100_TRUTH = {"LinearDamping[1,1]": 13.7 * 1.3, "LinearDamping[3,3]": 33.0 * 1.3,
              "QuadraticDamping[1,1]": 141.0 * 1.3, "QuadraticDamping[2,2]": 217.0 * 1.3,
              "QuadraticDamping[3,3]": 190.0 * 1.3, "QuadraticDamping[6,6]": 1.5 * 1.3,
              "AddedMass[1,1]": 6.36 * 0.8, "AddedMass[3,3]": 18.68 * 0.8, "ThrusterEfficiency": 0.85}
#: white-noise standard deviations added to the H100's outputs (column -> std)
H100_NOISE = {"Pos[1]": 0.02, "Pos[2]": 0.02, "Depth": 0.02, "Euler[1]": 0.002, "Euler[2]": 0.002,
              "Euler[3]": 0.002, "LocalVel[1]": 0.005, "LocalVel[2]": 0.005, "LocalVel[3]": 0.005,
              "Omega[1]": 0.002, "Omega[2]": 0.002, "Omega[3]": 0.002}
#: (start s, stop s, body wrench X, Y, Z, K, M, N in N and N m): one axis at a time, two levels
#: and both signs, thrusters off in between (free decay); then a surge chirp (h100_wrench)
H100_STEPS = [(2, 14, (15, 0, 0, 0, 0, 0)), (17, 29, (40, 0, 0, 0, 0, 0)), (32, 42, (-30, 0, 0, 0, 0, 0)),
              (46, 54, (0, 25, 0, 0, 0, 0)), (57, 65, (0, -25, 0, 0, 0, 0)),
              (69, 79, (0, 0, 15, 0, 0, 0)), (82, 92, (0, 0, 35, 0, 0, 0)), (95, 103, (0, 0, -30, 0, 0, 0)),
              (107, 113, (0, 0, 0, 0, 0, 3)), (116, 122, (0, 0, 0, 0, 0, -3))]
H100_CHIRP = {"start": 126.0, "stop": 176.0, "amplitude": 30.0, "f0": 0.03, "f1": 0.3}   # surge, N

AUV_TRUTH = {"AxialDragCoeff": 0.25 * 1.2, "CrossFlowDragCoeff": 1.1 * 0.8, "RudderClMax": 0.8 * 1.15}
#: AuvSensors' default white-noise levels (auv_cosim.vehicles.auv.stack.instruments), on the vehicle's outputs
AUV_NOISE = {"Pos[1]": 0.1, "Pos[2]": 0.1, "Depth": 0.01, "Euler[1]": 0.002, "Euler[2]": 0.002,
             "Heading": 0.005, "Speed": 0.01}


def chirp(t: float, start: float, stop: float, amplitude: float, f0: float, f1: float) -> float:
    """A linear frequency sweep f0 -> f1 over [start, stop]: amplitude sin(2 pi (f0 s + (f1 - f0)
    s^2 / (2 T))), s = t - start, T = stop - start; 0 outside."""
    if not start <= t < stop:
        return 0.0
    s, span = t - start, stop - start
    return amplitude * math.sin(2 * math.pi * (f0 * s + (f1 - f0) * s * s / (2 * span)))


def h100_wrench(t: float) -> np.ndarray:
    """The body wrench the schedule asks for over the step starting at t."""
    w = np.zeros(6)
    for t0, t1, wrench in H100_STEPS:
        if t0 <= t + 1e-9 < t1:
            w[:] = wrench
    w[0] += chirp(t, **H100_CHIRP)
    return w


def h100_commands(duration: float) -> np.ndarray:
    """(steps, 8) thruster commands, row k held over [k STEP, (k + 1) STEP]: the schedule's wrench
    at the step's middle through the nominal layout (H100Adapter.commands_for)."""
    from auv_cosim.vehicles.h100.host.identification import H100Adapter

    adapter = H100Adapter()
    steps = int(round(duration / STEP))
    return np.array([adapter.commands_for(h100_wrench((k + 0.5) * STEP)) for k in range(steps)])


def auv_commands(duration: float) -> np.ndarray:
    """(steps, 3) ThrustPower (W), RudderYaw, RudderDive (rad): thrust 45 W, 80 W from 40 s, 25 W
    from 75 s; rudder steps +-0.1 (10-30 s) then a chirp 0.04 -> 0.25 Hz of 0.12 (45-110 s); dive
    plane steps +0.08 / -0.1 (20-35 s, 60-70 s) and +0.05 from 90 s."""
    rows = []
    for k in range(int(round(duration / STEP))):
        t = (k + 0.5) * STEP
        power = 45.0 if t < 40 else (80.0 if t < 75 else 25.0)
        rudder = (0.1 if 10 <= t < 20 else (-0.1 if 20 <= t < 30 else 0.0)) + chirp(t, 45.0, 110.0, 0.12, 0.04, 0.25)
        dive = 0.08 if 20 <= t < 35 else (-0.1 if 60 <= t < 70 else (0.05 if t >= 90 else 0.0))
        rows.append((power, rudder, dive))
    return np.array(rows)


def fly(fmu: Path, parameters: dict[str, float], inputs: list[str], commands: np.ndarray,
        outputs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Fly `fmu` (co-simulation, fmpy) from 0 with `parameters` set, `commands[k]` held over
    step k: (times (steps + 1,), outputs (steps + 1, len(outputs))) at every communication point."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    refs = {v.name: v.valueReference for v in md.modelVariables}
    unknown = [n for n in list(parameters) + inputs + outputs if n not in refs]
    if unknown:
        raise SystemExit(f"{fmu}: no variable {', '.join(unknown)}")
    folder = extract(str(fmu))
    slave = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier=md.coSimulation.modelIdentifier,
                      instanceName="vehicle")
    slave.instantiate()
    try:
        slave.setupExperiment(startTime=0.0)
        slave.setReal([refs[n] for n in parameters], [float(v) for v in parameters.values()])
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        out_refs, in_refs = [refs[n] for n in outputs], [refs[n] for n in inputs]
        times = np.arange(len(commands) + 1) * STEP
        values = np.empty((len(times), len(outputs)))
        values[0] = slave.getReal(out_refs)
        for k, u in enumerate(commands):
            slave.setReal(in_refs, [float(x) for x in u])
            slave.doStep(currentCommunicationPoint=times[k], communicationStepSize=STEP)
            values[k + 1] = slave.getReal(out_refs)
        slave.terminate()
    finally:
        slave.freeInstance()
    return times, values


def write_log(path: Path, times, inputs: list[str], commands, outputs: list[str], values) -> Path:
    """results.csv's layout: time, the vehicle's commands (row k + 1: those of step k; row 0: 0),
    its outputs, every column as `vehicle.NAME`."""
    held = np.vstack([np.zeros(commands.shape[1]), commands])
    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(["time"] + [f"vehicle.{n}" for n in inputs + outputs]) + "\n")
        for k, t in enumerate(times):
            f.write(f"{t:.10g}," + ",".join(f"{x:.10g}" for x in (*held[k], *values[k])) + "\n")
    return path


def make_trial(vehicle: str, out: Path, duration: float = 180.0, seed: int = 1, noise_scale: float = 1.0,
               truth: dict[str, float] | None = None) -> Path:
    """Fly the trial, add the noise (numpy PCG64 of `seed`, columns in the order of the noise
    table), write out/results.csv and out/truth.json; returns the log's path."""
    if vehicle == "h100":
        truth = dict(H100_TRUTH if truth is None else truth)
        noise = H100_NOISE
        n = 8
        inputs = [f"ThrusterCommand[{i}]" for i in range(1, n + 1)]
        commands = h100_commands(duration)
        parameters = {"Pos0[3]": 10.0, "SeaFloorDepth": 40.0, **truth}
        fmu = REPO / "fmus" / "H100.fmu"
    elif vehicle == "auv":
        truth = dict(AUV_TRUTH if truth is None else truth)
        noise = AUV_NOISE
        inputs = ["ThrustPower", "RudderYaw", "RudderDive"]
        commands = auv_commands(duration)
        parameters = {"Pos0[3]": 20.0, **truth}
        fmu = REPO / "fmus" / "Auv.fmu"
    else:
        raise SystemExit(f"unknown vehicle {vehicle!r}: h100 or auv")
    outputs = list(noise)
    times, values = fly(fmu, parameters, inputs, commands, outputs)
    rng = np.random.default_rng(seed)
    for j, name in enumerate(outputs):
        values[:, j] += noise_scale * noise[name] * rng.standard_normal(len(times))
    out.mkdir(parents=True, exist_ok=True)
    log = write_log(out / "results.csv", times, inputs, commands, outputs, values)
    (out / "truth.json").write_text(json.dumps({"vehicle": vehicle, "truth": truth, "duration_s": duration,
                                                "seed": seed, "noise": {k: v * noise_scale for k, v in noise.items()}},
                                               indent=2) + "\n", encoding="utf-8")
    return log
