"""pythonfmu slave ``Tether``: a lumped-mass cable on MoorDyn as an FMI 2.0 co-simulation FMU
(thin wrapper of auv_cosim.components.tether.Tether).

Parameters: the fields of `TetherConfig` (Length, Diameter, MassPerLength, AxialStiffness,
NormalDragCoeff, TangentialDragCoeff, SegmentCount, TimeStep, Rho, CurrentVelocity[1..3],
AnchorPos[1..3], WaterDepth, EndOffset[1..3], ...). Inputs: EndPos[1..3], EndVel[1..3] (NED:
the point holding the end, or the reference point of the body the end is fastened to at
EndOffset, whose attitude EndQuater[1..4] and body rates EndOmega[1..3] then say where the
fastening is), PayOutSpeed (the winch, m/s), AnchorVel[1..3] (a moving anchor: a vessel).
Outputs: EndForce[1..3] (the cable's force on the end, NED, N), EndMoment[1..3] (its moment
about EndPos, NED axes), AnchorForce[1..3], EndTension, AnchorTension, UnstretchedLength,
EndPoint[1..3] (the fastening point), Node1Pos[1..3] ... Node11Pos[1..3] (points along the
cable from the anchor to the end, for a view).

Timing: `do_step(t, h)` moves the end from the inputs' position at t at their velocity over
[t, t + h] (MoorDyn's coupled point) and publishes the loads at t + h: stepped before the body
that holds the end, it gives that body the force for the step it takes.

Failures: a bad parameter fails initialisation naming it (MoorDyn's own complaint quoted); a
non-finite input or a reel-in below the shortest length fails the step naming it; MoorDyn
never prints to the host's stdout. The FMU state (MoorDyn's serialised nodes, the length, the
anchor) restores bit for bit.
"""
from __future__ import annotations

from ...fmu import FmuError, FmuSlave
from ...fmu.declare import Var, config_of, parameters_of, register_with_real_arrays

from .cable import VIEW_POINTS, Tether as Cable
from .config import TetherConfig
from .frames import attachment_point, cross

_NED = ("north", "east", "down")


def _vector(name, causality, unit, description, start=(0.0, 0.0, 0.0), labels=_NED):
    return [Var(f"{name}[{i + 1}]", "Real", causality, start[i], unit, f"{description}, {labels[i]}")
            for i in range(len(start))]


PARAMETERS = parameters_of(TetherConfig)

INPUTS = [
    *_vector("EndPos", "input", "m", "Position of the point holding the end (or of the body's reference point), NED",
             start=(20.0, 0.0, 10.0)),
    *_vector("EndVel", "input", "m/s", "Velocity of EndPos over ground, NED"),
    *_vector("EndQuater", "input", "1", "Attitude of the body holding the end, body to NED, scalar first",
             start=(1.0, 0.0, 0.0, 0.0), labels=("q0", "q1", "q2", "q3")),
    *_vector("EndOmega", "input", "rad/s", "Angular velocity of the body holding the end, body frame",
             labels=("x", "y", "z")),
    Var("PayOutSpeed", "Real", "input", 0.0, "m/s", "Winch: rate of growth of the unstretched length (negative: reeling in)"),
    *_vector("AnchorVel", "input", "m/s", "Velocity of the anchor (a vessel), NED"),
]

OUTPUTS = [
    *_vector("EndForce", "output", "N", "Force of the cable on the end, NED (end node's weight share included)"),
    *_vector("EndMoment", "output", "N.m", "Moment of EndForce about EndPos, NED axes"),
    *_vector("AnchorForce", "output", "N", "Force of the cable on the anchor, NED"),
    Var("EndTension", "Real", "output", 0.0, "N", "Tension at the end (magnitude of EndForce)"),
    Var("AnchorTension", "Real", "output", 0.0, "N", "Tension at the anchor (magnitude of AnchorForce)"),
    Var("UnstretchedLength", "Real", "output", 0.0, "m", "Unstretched length now (Length plus what the winch paid out)"),
    *_vector("EndPoint", "output", "m", "Position of the end (the fastening point), NED"),
    # one 3-vector per point (a matrix `Name[k,i]` would put a comma in a CSV column's name)
    *[row for k in range(VIEW_POINTS) for row in
      _vector(f"Node{k + 1}Pos", "output", "m", f"Point {k + 1} of {VIEW_POINTS} along the cable from the anchor, NED")],
]

TABLE = PARAMETERS + INPUTS + OUTPUTS


class Tether(FmuSlave):
    """A tether on MoorDyn (auv_cosim.components.tether.Tether)."""

    author = "auv-cosim"
    version = "0.1.0"
    description = ("Lumped-mass tether on MoorDyn: axial stiffness and damping, weight and buoyancy, "
                   "Morison drag and added mass in a uniform current, seabed contact, a winch and a "
                   "moving anchor; the end fastened to a point or to a point of a rigid body")
    fmu_capabilities = {"canGetAndSetFMUstate": True, "canSerializeFMUstate": True}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.values = {}
        self.at = register_with_real_arrays(self, TABLE)   # self.real_inputs, self.real_outputs
        # _publish writes the outputs in one go, in the order OUTPUTS declares them
        assert [self.at[v.name] for v in OUTPUTS] == list(range(len(OUTPUTS))) == list(range(len(self.real_outputs)))
        self.cable = None

    # ---------------------------------------------------------------- helpers
    def _config(self) -> TetherConfig:
        try:
            return config_of(TetherConfig, self.values)
        except (ValueError, TypeError) as error:
            raise FmuError(f"parameter {error}") from None

    def _inputs(self, name: str, size: int = 3, values=None) -> tuple:
        """The input vector ``name[1..size]`` (from ``values``, the inputs as a list, if given)."""
        first = self.at[f"{name}[1]"]
        values = self.real_inputs.tolist() if values is None else values
        return tuple(values[first:first + size])

    def _end(self, config: TetherConfig, values=None):
        """The end's position, velocity and lever about EndPos (NED) from the inputs."""
        values = self.real_inputs.tolist() if values is None else values
        return attachment_point(self._inputs("EndPos", 3, values), self._inputs("EndVel", 3, values),
                                self._inputs("EndQuater", 4, values), self._inputs("EndOmega", 3, values),
                                config.EndOffset)

    def _publish(self, loads, point, lever) -> None:
        """Every output at once: OUTPUTS are the Real outputs, in their order (see __init__)."""
        self.real_outputs[:] = [*loads.end_force, *cross(lever, loads.end_force), *loads.anchor_force,
                                loads.end_tension, loads.anchor_tension, loads.unstretched_length, *point,
                                *(c for p in loads.points for c in p)]

    def _build(self) -> Cable:
        config = self._config()
        point, velocity, lever = self._end(config)
        try:
            cable = Cable(config, point, velocity)
        except (ValueError, RuntimeError) as error:
            raise FmuError(f"MoorDyn refused the tether: {error}") from None
        self._publish(cable.loads, point, lever)
        return cable

    # ---------------------------------------------------------------- FMI hooks
    def fmu_initial_outputs(self) -> None:
        self._build().close()       # a throw-away cable: the outputs of the values set so far

    def fmu_exit_initialization(self) -> None:
        if self.cable is not None:
            self.cable.close()
        self.cable = self._build()
        self.parameters_changed = False

    def fmu_do_step(self, current_time: float, step_size: float) -> None:
        if not step_size >= 0.0:
            raise FmuError(f"communication step size {step_size} must not be negative")
        if step_size == 0.0:
            return
        config = self.cable.config
        values = self.real_inputs.tolist()
        point, velocity, lever = self._end(config, values)
        try:
            loads = self.cable.step(point, velocity, step_size, values[self.at["PayOutSpeed"]],
                                    self._inputs("AnchorVel", 3, values))
        except ValueError as error:
            raise FmuError(str(error)) from None
        # the lever at the step's end: the body turned by omega over the step
        end = tuple(p + v * step_size for p, v in zip(point, velocity))
        ref = tuple(p + v * step_size for p, v in zip(self._inputs("EndPos", 3, values),
                                                      self._inputs("EndVel", 3, values)))
        self._publish(loads, end, tuple(e - r for e, r in zip(end, ref)))

    def fmu_terminate(self) -> None:
        if self.cable is not None:
            self.cable.close()
            self.cable = None

    def fmu_get_state(self):
        return {"cable": None if self.cable is None else self.cable.get_state()}

    def fmu_set_state(self, internal) -> None:
        if internal["cable"] is None:
            if self.cable is not None:
                self.cable.close()
            self.cable = None
            return
        if self.cable is None or self.parameters_changed:
            if self.cable is not None:
                self.cable.close()
            self.cable = Cable(self._config(), *self._end(self._config())[:2])
        self.cable.set_state(internal["cable"])
        self.parameters_changed = False
