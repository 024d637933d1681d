"""`Tether`: one MoorDyn line between two coupled points, driven step by step.

MoorDyn (the lumped-mass mooring library of the offshore field, used by OpenFAST) divides the
line into SegmentCount segments with a node at each end of each; every node carries half of the
mass, weight, buoyancy, added mass and Morison drag of its two segments, the segments are axial
springs EA with internal damping, the seabed pushes nodes below the floor back up. The anchor
and the end are *coupled* points: the caller gives their positions and velocities, MoorDyn
integrates the free nodes over the step (RK2 at dtM = TimeStep, the coupled points moving at
constant velocity from the given positions) and returns the force the cable applies to each
coupled point, the end node's share of the weight and drag included. docs/tether.md has the
equations.

Calls into MoorDyn's Python wrapper (`moordyn`):
* `Create(file)` / `Init(system, x, v)`: MoorDyn's static equilibrium for the first positions;
* `Step(system, x, v, t, dt)`: the coupled points' forces at t + dt;
* `SetLineUnstretchedLengthVel(line, v)`: the winch (PayOutSpeed). MoorDyn grows the unstretched
  length at that rate within the step (every segment's length l = L / N, so mass, weight and drag
  grow with it); the node count stays;
* `Serialize` / `Deserialize`: the state (nodes' positions and velocities); the unstretched
  length is a property MoorDyn does not serialise, so the state carries it beside.
The wrapper's functions that return None (the two setters, `Deserialize`) are called through
`moordyn_calls`, which gives None back the reference moordyn 2.7.2 takes from it at each call
(without which a long run aborts the host's interpreter).
MoorDyn prints a banner and its progress on the process's stdout (file descriptor 1), where a
host that talks to its parent over stdout would read them: every call that may print runs with
descriptor 1 sent to a log file in the tether's folder (`_stdout_to`), and the verbosity is set
to none once the system exists.
"""
from __future__ import annotations

import base64
import contextlib
import ctypes
import math
import os
import shutil
import sys
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from .config import TetherConfig
from .frames import moordyn_to_ned, ned_to_moordyn
from .moordyn_calls import returning_none
from .moordyn_file import write_inputs

Vector3 = Tuple[float, float, float]
#: how many points along the cable the view gets (the nodes when SegmentCount is 10)
VIEW_POINTS = 11
#: the unstretched length may not be reeled in below this fraction of the initial one
SHORTEST_FRACTION = 0.05
_LIBC = ctypes.CDLL(None)


@contextlib.contextmanager
def _stdout_to(path: Path):
    """Send file descriptor 1 (C's and C++'s stdout, which MoorDyn writes to) to `path` for the
    duration. C's buffer is flushed before descriptor 1 is switched back, so that nothing
    written inside reaches the host's stdout later."""
    sys.stdout.flush()
    _LIBC.fflush(None)
    saved = os.dup(1)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(target, 1)
        yield
    finally:
        _LIBC.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(target)


def view_weights(node_count: int):
    """(i, f) for each of the `VIEW_POINTS` points: it lies the fraction f of the way from node i
    to node i + 1, the points evenly spaced in node index; None when the nodes are the points.
    Computed once per cable: the view's points are published every step."""
    if node_count == VIEW_POINTS:
        return None
    last = node_count - 1
    out = []
    for k in range(VIEW_POINTS):
        s = k * last / (VIEW_POINTS - 1)
        i = min(int(s), last - 1)
        out.append((i, s - i))
    return tuple(out)


@dataclass(frozen=True)
class TetherLoads:
    """What the cable does after a step, NED: the force on the end (on what holds it) and on the
    anchor, N; the tensions at both ends (the forces' magnitudes), N; the unstretched length, m;
    `VIEW_POINTS` points along the cable from the anchor to the end, m."""
    end_force: Vector3
    anchor_force: Vector3
    end_tension: float
    anchor_tension: float
    unstretched_length: float
    points: Tuple[Vector3, ...]


class Tether:
    """One cable from the anchor (`config.AnchorPos`) to an end held at `end_pos` (NED)."""

    def __init__(self, config: TetherConfig, end_pos: Sequence[float],
                 end_vel: Sequence[float] = (0.0, 0.0, 0.0)):
        import moordyn   # imported here: the package's other modules and the tests' oracles need none of it

        self._md = moordyn
        # the wrapper's functions that return None, called through moordyn_calls (None's count)
        self._set_length = returning_none(moordyn, "SetLineUnstretchedLength")
        self._set_length_rate = returning_none(moordyn, "SetLineUnstretchedLengthVel")
        self._deserialize = returning_none(moordyn, "Deserialize")
        self.config = config
        self.time = 0.0
        self.anchor: Vector3 = tuple(float(v) for v in config.AnchorPos)
        self.folder = Path(tempfile.mkdtemp(prefix="auv_cosim_tether_"))
        self._log = self.folder / "moordyn.out"
        self._finalizer = weakref.finalize(self, shutil.rmtree, str(self.folder), True)
        if math.dist(self.anchor, end_pos) < 1e-6 * config.Length:
            raise ValueError(f"the end {tuple(end_pos)} is at the anchor (AnchorPos {self.anchor}): MoorDyn "
                             f"lays the cable out along the line between them")
        x, v = self._coupled(end_pos, end_vel, (0.0, 0.0, 0.0))
        path = write_inputs(config, self.folder, x[:3], x[3:])
        with _stdout_to(self._log):
            self.system = moordyn.Create(str(path))
            moordyn.SetVerbosity(self.system, moordyn.LEVEL_NONE)
            status = moordyn.Init(self.system, x, v)
        if status != 0:
            raise ValueError(f"MoorDyn could not find the cable's initial equilibrium (error {status}): "
                             f"{self.console_tail()}")
        self.line = moordyn.GetLine(self.system, 1)
        self.node_count = moordyn.GetLineNumberNodes(self.line)
        self._view = view_weights(self.node_count)
        self.loads = self._loads(self._md.GetPointForce(moordyn.GetPoint(self.system, 1)),
                                 self._md.GetPointForce(moordyn.GetPoint(self.system, 2)))

    # ---------------------------------------------------------------- stepping
    def _coupled(self, end_pos, end_vel, anchor_vel) -> Tuple[List[float], List[float]]:
        """MoorDyn's coupled degrees of freedom: anchor then end, positions and velocities."""
        return ([*ned_to_moordyn(self.anchor), *ned_to_moordyn(end_pos)],
                [*ned_to_moordyn(anchor_vel), *ned_to_moordyn(end_vel)])

    def step(self, end_pos: Sequence[float], end_vel: Sequence[float], dt: float,
             pay_out_speed: float = 0.0, anchor_vel: Sequence[float] = (0.0, 0.0, 0.0)) -> TetherLoads:
        """Advance by `dt` with the end moving from `end_pos` at `end_vel`, the anchor at
        `anchor_vel`, the winch paying out at `pay_out_speed` (m/s, negative: reeling in);
        returns (and keeps in `loads`) the loads at the end of the step. A ValueError names
        the input at fault before anything advances."""
        if not math.isfinite(sum(end_pos) + sum(end_vel) + sum(anchor_vel) + pay_out_speed):   # one test a step
            for name, value in (("EndPos", tuple(end_pos)), ("EndVel", tuple(end_vel)),
                                ("AnchorVel", tuple(anchor_vel)), ("PayOutSpeed", (pay_out_speed,))):
                if not all(math.isfinite(v) for v in value):
                    raise ValueError(f"{name} = {value if len(value) > 1 else value[0]!r}: not finite")
        length = self._md.GetLineUnstretchedLength(self.line)
        if length + pay_out_speed * dt < SHORTEST_FRACTION * self.config.Length:
            raise ValueError(f"PayOutSpeed = {pay_out_speed!r} m/s would reel the tether in to "
                             f"{length + pay_out_speed * dt:.4g} m, under {SHORTEST_FRACTION:g} of Length")
        x, v = self._coupled(end_pos, end_vel, anchor_vel)
        self._set_length_rate(self.line, float(pay_out_speed))
        try:
            forces = self._md.Step(self.system, x, v, self.time, dt)
        except RuntimeError as error:
            raise ValueError(f"MoorDyn failed to integrate the step ({error}): is TimeStep "
                             f"{self.config.TimeStep!r} s too large for the segments' stiffness and "
                             f"mass? (docs/tether.md, the time step)") from None
        if pay_out_speed != 0.0:
            # MoorDyn grew the length from its value at the step's start; say it exactly so that
            # a restored state, which carries the length, continues the same way
            self._set_length(self.line, length + pay_out_speed * dt)
        self.time += dt
        self.anchor = tuple(a + u * dt for a, u in zip(self.anchor, anchor_vel))
        self.loads = self._loads(forces[:3], forces[3:])
        if not all(math.isfinite(f) for f in self.loads.end_force):
            raise ValueError("MoorDyn's step diverged (a non-finite force): TimeStep too large for "
                             "the segments' stiffness and mass?")
        return self.loads

    def _loads(self, anchor_md, end_md) -> TetherLoads:
        end, anchor = moordyn_to_ned(end_md), moordyn_to_ned(anchor_md)
        return TetherLoads(end, anchor, math.sqrt(sum(f * f for f in end)),
                           math.sqrt(sum(f * f for f in anchor)),
                           self._md.GetLineUnstretchedLength(self.line), self.view_points())

    def node_positions(self) -> List[Vector3]:
        """Every node's position, NED, from the anchor to the end."""
        position, line = self._md.GetLineNodePos, self.line
        return [moordyn_to_ned(position(line, i)) for i in range(self.node_count)]

    def view_points(self) -> Tuple[Vector3, ...]:
        """`VIEW_POINTS` points evenly spaced in node index from the anchor to the end, linearly
        interpolated between nodes: a fixed number of outputs whatever SegmentCount is."""
        nodes = self.node_positions()
        if self._view is None:
            return tuple(nodes)
        out = []
        for i, f in self._view:
            (a0, a1, a2), (b0, b1, b2) = nodes[i], nodes[i + 1]
            out.append((a0 + f * (b0 - a0), a1 + f * (b1 - a1), a2 + f * (b2 - a2)))
        return tuple(out)

    # ---------------------------------------------------------------- state
    def get_state(self) -> Dict[str, Any]:
        """Everything that determines the future, JSON-serialisable: MoorDyn's serialised state
        (base64), the unstretched length, the time, the anchor's position and the last loads."""
        return {"moordyn": base64.b64encode(self._md.Serialize(self.system)).decode("ascii"),
                "length": self._md.GetLineUnstretchedLength(self.line), "time": self.time,
                "anchor": list(self.anchor),
                "loads": [list(self.loads.end_force), list(self.loads.anchor_force)]}

    def set_state(self, state: Dict[str, Any]) -> None:
        """Restore what `get_state` returned (of a tether of the same configuration)."""
        self._deserialize(self.system, base64.b64decode(state["moordyn"]))
        self._set_length(self.line, float(state["length"]))
        self.time = float(state["time"])
        self.anchor = tuple(float(v) for v in state["anchor"])
        end, anchor = state["loads"]
        self.loads = self._loads(ned_to_moordyn(anchor), ned_to_moordyn(end))

    # ---------------------------------------------------------------- the end
    def console_tail(self, characters: int = 600) -> str:
        """The last of what MoorDyn printed (its errors say what it disliked)."""
        try:
            return self._log.read_text(errors="replace")[-characters:].strip()
        except OSError:
            return ""

    def close(self) -> None:
        """Free MoorDyn's system and remove the tether's folder (also done when collected)."""
        if getattr(self, "system", None) is not None:
            with _stdout_to(self._log):
                self._md.Close(self.system)
            self.system = None
        self._finalizer()
