"""What a run's outputs show of it, read from its plan: the vehicles (their position, attitude,
rates and size), the waypoints, the sea surface and floor (the seabed's grid where a vehicle read
one: ``auv_cosim.master.seabed_drawing``), the recorded signals.

Nothing here knows a particular vehicle: an instance is drawn as its FMU declares
(``auv_cosim.master.drawing``: its position and attitude outputs, a cylinder of its length and
diameter parameters or a box spanning its thrusters and of its height, a cable through its
points); an FMU that declares nothing is drawn by the conventional names (``Pos[1..3]``,
``Quater[1..4]`` or ``Euler[1..3]``, ``Length`` and ``Diameter``); a body whose drawing gives no
size is a 1 m cube (and the scene says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..master import seabed_drawing
from ..master.drawing import Drawing, drawing_of
from ..master.plan import Plan
from ..master.summary import param
from ..master.view import scenario_waypoints

DEFAULT_SIZE = 1.0


@dataclass
class Vehicle:
    name: str
    pos: list[int]                  # columns of Pos[1..3] (NED)
    quat: list[int] | None = None   # columns of Quater[1..4] (body -> NED)
    euler: list[int] | None = None  # columns of Euler[1..3] (roll, pitch, yaw)
    omega: list[int] | None = None  # columns of Omega[1..3] (body rates, FRD)
    vel: list[int] | None = None    # columns of Vel[1..3] (NED velocity)
    shape: str = "box"              # "cylinder" (along x) or "box"
    size: tuple[float, float, float] = (DEFAULT_SIZE, DEFAULT_SIZE, DEFAULT_SIZE)   # x, y, z extent (m)
    size_from: str = "default"
    waypoints: list[tuple[float, float, float]] = field(default_factory=list)   # NED, of what drives it
    geo: list[int] | None = None    # columns of Latitude, Longitude (degrees, WGS 84), where it has them


@dataclass
class Cable:
    name: str
    points: list[list[int]]         # per point, its columns (NED), from one end to the other


@dataclass
class Scene:
    columns: list[str]                       # the names of the rows' columns, "time" first
    record: list[str]                        # the columns published as signals
    t0: float
    vehicles: list[Vehicle]
    waypoints: list[tuple[float, float, float]] = field(default_factory=list)
    floor_depth: float | None = None
    name: str = ""
    units: dict[str, str] = field(default_factory=dict)   # column -> its unit ("" where the FMU declares none)
    cables: list[Cable] = field(default_factory=list)
    seabed: object = None                    # the grid a vehicle read (auv_cosim.seabed.Seabed), or None
    warnings: list[str] = field(default_factory=list)   # what the scene could not draw as the run had it

    def index(self, name: str) -> int:
        return self.columns.index(name)


def _columns(colmap: dict[str, int], inst: str, var: str, n: int) -> list[int] | None:
    names = [f"{inst}.{var}[{i}]" for i in range(1, n + 1)]
    return [colmap[c] for c in names] if all(c in colmap for c in names) else None


def _number(value) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def vehicle_size(plan: Plan, inst: str, drawing: Drawing | None = None) -> tuple[str, tuple[float, float, float], str]:
    """(shape, (x, y, z) extent in m, where it came from) of an instance, from the parameters its
    drawing names (``auv_cosim.master.drawing``: a cylinder of its length and diameter, a box
    spanning its thrusters and of its height); a 1 m cube when they give no size."""
    drawing = drawing or drawing_of(plan.instances[inst]) or Drawing()
    if drawing.shape == "cylinder" and drawing.length and drawing.diameter:
        length, diameter = _number(param(plan, inst, drawing.length)), _number(param(plan, inst, drawing.diameter))
        if length and diameter and length > 0 and diameter > 0:
            return "cylinder", (length, diameter, diameter), f"{drawing.length}, {drawing.diameter}"
    height = _number(param(plan, inst, drawing.height)) if drawing.height else None
    ip = plan.instances[inst]
    xs, ys = [], []
    for k in range(1, 65) if drawing.thruster_positions else ():
        name = drawing.thruster_positions
        x, y = (_number(param(plan, inst, f"{name}[{k},{j}]")) for j in (1, 2))
        if x is None or y is None or f"{name}[{k},1]" not in ip.vars:
            break
        xs.append(abs(x))
        ys.append(abs(y))
    if xs and height and height > 0:
        return "box", (2 * max(xs), 2 * max(ys), height), f"{drawing.thruster_positions}, {drawing.height}"
    return "box", (DEFAULT_SIZE,) * 3, "default (its drawing names no size it has)"


def scene_of(plan: Plan, columns: list[str], record: list[str] | None = None, seabed: bool = False,
             seabeds: dict | None = None) -> Scene:
    """The scene of a run of ``plan`` whose rows have ``columns`` ("time" first); ``record``:
    the columns to publish as signals (default the plan's recorded ones, as results.csv).
    With ``seabed``, the grid a vehicle read is read too (`seabed_of`)."""
    colmap = {c: i for i, c in enumerate(columns)}
    record = [c for c in (plan.record if record is None else record) if c in colmap and c != "time"]
    vehicles, cables = [], []
    for inst, ip in plan.instances.items():
        drawing = drawing_of(ip)
        if drawing is not None and drawing.shape == "cable":
            names = {c.partition(".")[2] for c in colmap if c.startswith(f"{inst}.")}
            points = [_columns(colmap, inst, p, 3) for p in drawing.point_names(names)]
            if len(points) >= 2:
                cables.append(Cable(inst, points))
            continue
        if drawing is None:
            continue
        pos = _columns(colmap, inst, drawing.position, 3)
        if pos is None:
            continue
        shape, size, size_from = vehicle_size(plan, inst, drawing)
        vehicles.append(Vehicle(inst, pos, _columns(colmap, inst, drawing.attitude, 4),
                                _columns(colmap, inst, drawing.euler, 3),
                                _columns(colmap, inst, "Omega", 3), _columns(colmap, inst, "Vel", 3),
                                shape, size, size_from))
        geo = [colmap.get(f"{inst}.Latitude"), colmap.get(f"{inst}.Longitude")]
        vehicles[-1].geo = geo if None not in geo else None
    scenario = plan.model.model_dump(mode="json", by_alias=True, exclude_none=True)
    specs = scenario.get("instances") or {}
    for v in vehicles:   # the waypoints of the instances that drive it (its control), as the 3-D view reads them
        drivers = list(dict.fromkeys(c.src for c in plan.connections if c.dst == v.name))
        v.waypoints = _waypoints({"instances": {d: specs[d] for d in drivers if d in specs}})
    waypoints = _waypoints(scenario)
    floor = None
    for v in vehicles:
        for key in ("SeaFloorDepth", "SeaDepth"):
            floor = floor or _number(param(plan, v.name, key))
    scene = Scene(list(columns), record, plan.start_time, vehicles, waypoints, floor, plan.name,
                  column_units(plan, record), cables)
    if seabed:
        scene.seabed = seabed_of(plan, scene, seabeds)
    return scene


def seabed_of(plan: Plan, scene: Scene, seabeds: dict | None = None):
    """The seabed grid the scene's first vehicle with one read (else any instance's), or None;
    ``seabeds``: the grids a finished run read (summary.json's ``seabeds``), by default the
    plan's ``BathymetryFile`` taken from the current folder, as the run itself took it. A grid
    that cannot be read is a warning (printed, and kept in ``scene.warnings``) and None."""
    sources = seabed_drawing.sources_of_summary(seabeds) if seabeds else seabed_drawing.sources_of_plan(plan)

    def warn(text: str) -> None:
        scene.warnings.append(text)
        seabed_drawing.warn(text)

    return seabed_drawing.read_seabed(seabed_drawing.chosen(sources, [v.name for v in scene.vehicles]), "MCAP scene",
                                      warn=warn)


def column_units(plan: Plan, columns: list[str]) -> dict[str, str]:
    """The unit of each column ``inst.var`` as its FMU declares it ("" where it declares none;
    "s" for the time)."""
    out = {"time": "s"}
    for c in columns:
        inst, _, var = c.partition(".")
        ip = plan.instances.get(inst)
        v = ip.vars.get(var) if ip is not None else None
        out[c] = (v.unit or "") if v is not None else ""
    return out


def _waypoints(scenario: dict) -> list[tuple[float, float, float]]:
    """The waypoints the registered figures read from a scenario mapping; none when they
    cannot be read (the run itself has refused a malformed list already)."""
    try:
        return scenario_waypoints(scenario)
    except Exception:
        return []


def attitudes(v: Vehicle, block: np.ndarray) -> np.ndarray:
    """The attitudes (n x 4, body FRD -> NED, scalar first, unit) of a vehicle over a block of
    rows; level and north where it has no attitude columns or the values are not usable."""
    from .frames import euler_to_quaternion

    if v.quat is not None:
        q = block[:, v.quat].astype(float)
    elif v.euler is not None:
        q = euler_to_quaternion(block[:, v.euler[0]], block[:, v.euler[1]], block[:, v.euler[2]])
    else:
        q = np.tile([1.0, 0.0, 0.0, 0.0], (len(block), 1))
    norm = np.linalg.norm(q, axis=1, keepdims=True)
    bad = ~np.isfinite(norm[:, 0]) | (norm[:, 0] < 1e-9)
    q = np.where(bad[:, None], [1.0, 0.0, 0.0, 0.0], q / np.where(bad[:, None], 1.0, norm))
    return q
