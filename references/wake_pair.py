"""Two Auv.fmu instances driven by fmpy alone (no project master), each wired to the other's
wake, and the same pair flown by the vehicle library alone: what shows that the FMUs' wake
ports do what docs/physics/environment.md#wakes says.

A leader cruises north, 30 m deep, and a follower starts `gap` m behind it on the same line at
the same speed (the cruise speed of 30 W, 1.438 m/s), both with CastWake = true; at every
communication point each one's WakeSource[1..15] is read, then set into the other's
WakeSources[1,1..15], then both step (a Jacobi exchange: what either sees does not depend on
which steps first). `fmu_pair` flies the FMUs, `library_pair` the library's AuvModel and
VehicleSimulator with the rows handed over by `wake.with_sources`, and `oracle_errors` compares
the follower's WakeVelocity with the field of the wake law transcribed without the library
(references/wake_oracle.py). The figures: tools/wake_pair.py.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from auv_cosim.vehicles import VehicleSimulator
from auv_cosim.vehicles.auv import AuvModel, AuvWakeParameters, inputs
from auv_cosim.vehicles.wake import SOURCE_SIZE, with_sources

from .wake_oracle import oracle_field

DEPTH = 30.0
#: the steady cruise speed at 30 W in the default trim (tools/wake_momentum.py)
CRUISE_SPEED = 1.438


def starts(gap: float):
    """The two vehicles' start positions, NED: the leader at the origin, the follower `gap` m
    behind it (south), both `DEPTH` deep."""
    return np.array([0.0, 0.0, DEPTH]), np.array([-gap, 0.0, DEPTH])


# ------------------------------------------------------------------------------ the library alone
def library_pair(seconds: float, gap: float, power: float, step: float, update: str = "Step",
                 wired: bool = True) -> dict:
    """The same two vehicles flown by the library alone: at each communication point each one's
    row (`AuvModel.wake_source` of its state and what it held over the step just ended), then
    each advanced with the other's row. `wired` False: the rows are never handed over (each
    alone). Returns {"leader": positions, "follower": positions}, one row per communication
    point (n + 1, 3)."""
    model = AuvModel(wake=AuvWakeParameters(CastWake=True, ExternalWakeUpdate=update))
    sims = []
    for start in starts(gap):
        x = model.cruise_state(CRUISE_SPEED, depth=DEPTH)
        x[0:3] = start
        sims.append(VehicleSimulator(model, x))
    u = inputs(power)
    n = int(round(seconds / step))
    track = np.zeros((2, n + 1, 3))
    for i, sim in enumerate(sims):
        track[i, 0] = sim.state[0:3]
        # the inputs as a host sets them before the first step: the row at t = 0 has its thrust
        sim.inputs[:u.size] = u
    for k in range(n):
        t = k * step
        rows = [model.wake_source(sim.state, sim.inputs, t) for sim in sims]
        for i, sim in enumerate(sims):
            other = rows[1 - i] if wired else np.zeros(SOURCE_SIZE)
            sim.advance(t, t + step, with_sources(u, other))
            track[i, k + 1] = sim.state[0:3]
    return {"leader": track[0], "follower": track[1]}


# ------------------------------------------------------------------------------ the FMUs via fmpy
class FmpyAuv:
    """One instance of Auv.fmu through fmpy's FMU2Slave, nothing of the project's master."""

    def __init__(self, fmu: Path, unzipped: str, name: str):
        from fmpy import read_model_description
        from fmpy.fmi2 import FMU2Slave

        md = read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipped,
                             modelIdentifier=md.coSimulation.modelIdentifier, instanceName=name)
        self.fmu.instantiate()
        self.source_vrs = [self.vr[f"WakeSource[{j}]"] for j in range(1, SOURCE_SIZE + 1)]
        self.row_vrs = [[self.vr[f"WakeSources[{k},{j}]"] for j in range(1, SOURCE_SIZE + 1)]
                        for k in (1, 2, 3)]
        self.pos_vrs = [self.vr[f"Pos[{i}]"] for i in (1, 2, 3)]
        self.wake_vrs = [self.vr[f"WakeVelocity[{i}]"] for i in (1, 2, 3)]

    def initialize(self, start, power: float, cast: bool, update: str) -> None:
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        self.fmu.setReal([self.vr[f"Pos0[{i}]"] for i in (1, 2, 3)] + [self.vr["LocalVel0[1]"]],
                         [float(v) for v in start] + [CRUISE_SPEED])
        self.fmu.setReal([self.vr["ThrustPower"]], [power])
        self.fmu.setBoolean([self.vr["CastWake"]], [cast])
        self.fmu.setString([self.vr["ExternalWakeUpdate"]], [update])
        self.fmu.exitInitializationMode()

    def source(self) -> list:
        return self.fmu.getReal(self.source_vrs)

    def meet(self, row, k: int = 1) -> None:
        self.fmu.setReal(self.row_vrs[k - 1], [float(v) for v in row])

    def pos(self) -> np.ndarray:
        return np.array(self.fmu.getReal(self.pos_vrs))

    def wake_velocity(self) -> np.ndarray:
        return np.array(self.fmu.getReal(self.wake_vrs))

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()


def fmu_pair(fmu: Path, seconds: float, gap: float, power: float, step: float, update: str = "Step",
             wired: bool = True) -> dict:
    """The two vehicles as two instances of `fmu`, each wired to the other's source (`wired`:
    else none). Returns the positions of both (n + 1, 3), and per step the follower's position
    at the step's start, the leader's row it was given and its WakeVelocity after the step."""
    from fmpy import extract

    unzipped = extract(str(fmu))
    leader, follower = FmpyAuv(fmu, unzipped, "leader"), FmpyAuv(fmu, unzipped, "follower")
    try:
        for vehicle, start in zip((leader, follower), starts(gap)):
            vehicle.initialize(start, power, cast=True, update=update)
        n = int(round(seconds / step))
        track = np.zeros((2, n + 1, 3))
        track[0, 0], track[1, 0] = leader.pos(), follower.pos()
        seen = {"pos": np.zeros((n, 3)), "rows": np.zeros((n, SOURCE_SIZE)), "wake": np.zeros((n, 3))}
        for k in range(n):
            t = k * step
            rows = (leader.source(), follower.source())     # every source read before any step
            if wired:
                leader.meet(rows[1])
                follower.meet(rows[0])
            seen["pos"][k], seen["rows"][k] = follower.pos(), rows[0]
            for vehicle in (leader, follower):
                vehicle.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=step)
            track[0, k + 1], track[1, k + 1] = leader.pos(), follower.pos()
            seen["wake"][k] = follower.wake_velocity()
        return {"leader": track[0], "follower": track[1], **seen}
    finally:
        leader.close()
        follower.close()


def oracle_errors(seen: dict) -> np.ndarray:
    """|WakeVelocity - the wake law's field| per step: the follower's WakeVelocity after each step
    against the transcription at its position at the step's start from the row it was given."""
    return np.array([np.linalg.norm(seen["wake"][k] - oracle_field(seen["pos"][k], seen["rows"][k]))
                     for k in range(len(seen["wake"]))])
