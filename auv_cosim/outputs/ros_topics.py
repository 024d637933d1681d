"""What the ROS 2 bag holds of a run, read from its plan: the frames (REP 105) and, per instance,
the topics its recorded columns make. No message is written here (``rosbag`` writes them); no
vehicle is named: an instance is recognised by its variables' names.

Frames (REP 103 axes: the world ENU, a body FLU; REP 105 names):

- ``map``: the world, ENU at the scenario's NED origin;
- ``odom``: each vehicle's odometry frame; the simulation does not drift, so ``map`` -> ``odom``
  is the identity (on ``/tf_static``);
- ``base_link``: the vehicle's body (FLU at its body origin); ``odom`` -> ``base_link`` is its
  pose at every point (on ``/tf``);
- the sensors' frames ``imu_link``, ``dvl_link``, ``pressure_link`` (children of ``base_link``,
  on ``/tf_static``): the instruments' models measure at the body origin, so each is the
  identity.

With several vehicles each vehicle's frames but ``map`` carry its name as a prefix
(``leader/odom``, ``leader/base_link``, ``leader/imu_link``), as multi-robot tf trees do; with
one, the names are REP 105's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..master.summary import param

MAP = "map"


@dataclass
class VehicleFrames:
    odom: str
    base_link: str
    prefix: str = ""
    sensors: dict[str, str] = field(default_factory=dict)   # kind ("imu", "dvl", "pressure") -> frame

    def sensor(self, kind: str) -> str:
        """The frame of a sensor of ``kind`` on this vehicle (registered for /tf_static)."""
        return self.sensors.setdefault(kind, f"{self.prefix}{kind}_link")


def vehicle_frames(names: list[str]) -> dict[str, VehicleFrames]:
    """REP 105 frames of each vehicle (prefixed by its name when there are several)."""
    out = {}
    for name in names:
        prefix = f"{name}/" if len(names) > 1 else ""
        out[name] = VehicleFrames(f"{prefix}odom", f"{prefix}base_link", prefix)
    return out


def cols(colmap: dict[str, int], inst: str, names: list[str]) -> list[int] | None:
    """The columns of ``inst.<name>`` for each name, or None unless all are recorded."""
    keys = [f"{inst}.{n}" for n in names]
    return [colmap[k] for k in keys] if all(k in colmap for k in keys) else None


def output_cols(plan, colmap, inst: str, names: list[str]) -> list[int] | None:
    """As ``cols``, for outputs of the instance only (a controller's recorded inputs, such as
    the H100's ``MeasuredEuler``, are what it was told, not a measurement)."""
    ip = plan.instances.get(inst)
    if ip is None or not all(n in ip.vars and ip.vars[n].causality == "output" for n in names):
        return None
    return cols(colmap, inst, names)


def variance(plan, inst: str, name: str) -> float:
    """The variance of white noise whose standard deviation is the instance's parameter
    ``name``; 0 ("unknown", as the ROS messages' definitions read it) when it has none."""
    std = param(plan, inst, name)
    try:
        return float(std) ** 2
    except (TypeError, ValueError):
        return 0.0


def measured_vehicle(plan, vehicles: list[str]) -> dict[str, str]:
    """instrument -> the vehicle whose outputs feed it (by the plan's connections)."""
    known = set(vehicles)
    out = {}
    for c in plan.connections:
        if c.src in known and c.dst not in known:
            out.setdefault(c.dst, c.src)
    for v in vehicles:
        out[v] = v
    return out


def commands_into(plan, colmap, vehicle: str, vehicles: list[str]) -> list[str]:
    """The recorded values connected into ``vehicle`` from instances that are not vehicles: its
    thruster and fin commands (another vehicle's outputs wired in, such as a wake, are not)."""
    names = []
    for c in plan.connections:
        name = f"{c.src}.{c.src_var.name}"
        if c.dst == vehicle and c.src not in vehicles and name in colmap and name not in names:
            names.append(name)
    return names
