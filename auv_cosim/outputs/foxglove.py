"""The Foxglove channels of a run: into an MCAP file (``--format mcap``, ``export --format
mcap``) or a live WebSocket view (``--live``), the same channels either way.

Written with the Foxglove SDK (``foxglove-sdk``): its typed channels encode Foxglove's own
protobuf schemas (``foxglove.FrameTransform``, ``foxglove.PoseInFrame``,
``foxglove.SceneUpdate``); no schema is made by hand where the SDK has one. The channels, per
vehicle (named after its instance, as in the scenario):

- ``/tf`` (``foxglove.FrameTransform``): ``world`` -> ``<vehicle>``, every communication point;
- ``/<vehicle>/pose`` (``foxglove.PoseInFrame``, in ``world``): the same pose;
- ``/<vehicle>/location`` (``foxglove.LocationFix``, what the Map panel draws) for a vehicle
  with ``Latitude`` and ``Longitude`` outputs (degrees, WGS 84): its place on Earth, its
  altitude minus its depth (m, above the sea surface);
- ``/scene`` (``foxglove.SceneUpdate``): the static scene: each vehicle drawn to its size in
  its own frame (as its FMU declares its drawing: a cylinder or a box, see ``scene``), its waypoints
  (those of the instance that drives it: ``<vehicle>/waypoints``) as a line with a sphere at
  each, the sea surface (z = 0) and floor as planes over the mission's area (no floor plane where
  the seabed's grid is drawn); logged at the start and again every ``TRACK_PIECE_S`` of simulated
  time and at the end, because a viewer that seeks shows only the latest message of each topic;
- ``/scene/seabed`` (``foxglove.SceneUpdate``, only in a run whose vehicle read a seabed grid,
  ``BathymetryFile``): the entity ``seabed``, a triangle mesh through the grid's nodes over the
  mission's area (every k-th node, at most ``SEABED_MESH_NODES``; the depths the grid's own, in
  ENU as the rest), each vertex coloured by its depth, holes left open; logged with ``/scene``,
  each time (``auv_cosim.master.seabed_drawing``: a grid that cannot be read is a warning, and
  the floor a plane);
- ``/scene/track`` (``foxglove.SceneUpdate``): the track, a new line entity every
  ``TRACK_PIECE_S`` of simulated time (``<vehicle>/track/<k>``, each kept by a viewer that
  plays), and in the same message the whole track flown so far (``<vehicle>/track/flown``,
  replaced each time) for a viewer that seeks or joins late;
- ``/scene/cables`` (``foxglove.SceneUpdate``, only in a run with an instance drawn as a cable,
  such as a tether): each cable ``<instance>/cable`` as a line through its points, at every
  communication point (each message holds the whole cable, so a viewer that seeks shows it);
- ``/log`` (``foxglove.Log``): the master's warnings about the scenario (at the start), each
  warning and error an FMU logged (name: the instance; stamped with the communication point the
  loop had reached), the run's end ("run completed: reached stop time 120 s"), and its outcome
  as JSON (name ``summary``: status, reason, simulated time, the FMUs' warnings and errors; the
  figures are summary.json's);
- ``/<instance>/signals`` (JSON): every recorded column of the instance as a number, named as
  in results.csv with ``[i]`` written ``_i`` (``Pos[1]`` is ``Pos_1``, ``ThrusterDir[1,2]``
  is ``ThrusterDir_1_2``) so that the Plot panel reads it by name
  (``/vehicle/signals.Pos_1``); the channel's metadata maps each key to its column, and each
  property of its JSON schema has the column's ``unit`` (as its FMU declares it: ``rad`` for
  angles, ``m``, ``m/s``; ``""`` where it declares none).

The world and body frames are ENU and FLU (``frames``). Every message is stamped (its log time
and its schema's ``timestamp``) with the simulated time since the run's start.
"""

from __future__ import annotations

import re

import numpy as np

from ..master import seabed_drawing
from ..master.loop import Observer
from . import frames
from .scene import Scene, attitudes

try:   # the shortest text that reads back as the same double, several times faster than json's
    from ujson import dumps
except ImportError:   # pragma: no cover
    from json import dumps

#: simulated seconds of track in one line entity of /scene/track (the static scene is logged again
#: on /scene at each piece's time)
TRACK_PIECE_S = 10.0
#: the most points of the line of the whole track flown (``<vehicle>/track/flown``)
FLOWN_POINTS = 1000
#: the run's log: the master's warnings, the FMUs' messages, the run's end and outcome
LOG_TOPIC = "/log"
#: foxglove.LogLevel of each FMI status the master keeps
LOG_LEVELS = {"warning": "Warning", "discard": "Warning", "error": "Error", "fatal": "Fatal"}
#: margin around the waypoints and start points for the planes of surface and floor (m)
PLANE_MARGIN_M = 50.0
#: the most nodes of the seabed's mesh on /scene/seabed (each message holds it whole: 2500
#: nodes are about 0.2 MB a message)
SEABED_MESH_NODES = 2500
SEABED_TOPIC = "/scene/seabed"


def signal_key(variable: str) -> str:
    """The JSON key of a variable: ``Pos[1]`` -> ``Pos_1``, ``A[1,2]`` -> ``A_1_2``."""
    return re.sub(r"[\[\],]+", "_", variable).strip("_")


class FoxglovePublisher:
    """Logs the channels of a scene into a Foxglove context (whatever sinks it has: an MCAP
    writer, a WebSocket server)."""

    def __init__(self, scene: Scene, context):
        import foxglove
        from foxglove.channels import (FrameTransformChannel, LocationFixChannel, PoseInFrameChannel,
                                       SceneUpdateChannel)

        self.scene = scene
        self.ctx = context
        self.tf = FrameTransformChannel("/tf", context=context)
        self.poses = {v.name: PoseInFrameChannel(f"/{v.name}/pose", context=context) for v in scene.vehicles}
        self.fixes = {v.name: LocationFixChannel(f"/{v.name}/location", context=context)
                      for v in scene.vehicles if v.geo is not None}
        self.scene_channel = SceneUpdateChannel("/scene", context=context)
        self.track_channel = SceneUpdateChannel("/scene/track", context=context)
        self.cable_channel = SceneUpdateChannel("/scene/cables", context=context) if scene.cables else None
        self.seabed_channel = SceneUpdateChannel(SEABED_TOPIC, context=context) if scene.seabed is not None else None
        self._seabed_mesh = None   # made once, at the first static scene (its area is known then)
        self.signals = {}   # instance -> (channel, keys, column indices)
        by_inst: dict[str, list[str]] = {}
        for col in scene.record:
            inst, _, var = col.partition(".")
            by_inst.setdefault(inst, []).append(var)
        for inst, variables in by_inst.items():
            keys = [signal_key(v) for v in variables]
            schema = {"type": "object", "title": f"{inst} signals",
                      "properties": {"timestamp": {"type": "object", "properties": {
                          "sec": {"type": "integer"}, "nsec": {"type": "integer"}}},
                          **{k: {"type": "number", "description": f"{inst}.{v}", "unit": scene.units.get(f"{inst}.{v}", "")}
                             for k, v in zip(keys, variables)}}}
            channel = foxglove.Channel(f"/{inst}/signals", schema=schema, message_encoding="json", context=context,
                                       metadata={k: f"{inst}.{v}" for k, v in zip(keys, variables)})
            self.signals[inst] = (channel, keys, [scene.index(f"{inst}.{v}") for v in variables])
        self.track: dict[str, list] = {v.name: [] for v in scene.vehicles}   # the piece being drawn
        self.flown: dict[str, list] = {v.name: [] for v in scene.vehicles}   # the ends of the pieces
        self.piece = {v.name: 0 for v in scene.vehicles}
        self.piece_start: float | None = None

    # ------------------------------------------------------------------ the static scene
    def static_entities(self, ns: int):
        from foxglove.messages import (Color, CubePrimitive, CylinderPrimitive, LinePrimitive, LinePrimitiveLineType,
                                       Point3, Pose, Quaternion, SceneEntity, SpherePrimitive, Timestamp, Vector3)

        ts = Timestamp(ns // 1_000_000_000, ns % 1_000_000_000)
        s = self.scene
        entities = []
        body_colour = Color(r=1.0, g=0.75, b=0.0, a=1.0)
        for v in s.vehicles:
            lx, ly, lz = v.size
            if v.shape == "cylinder":   # the SDK's cylinder stands along z: laid along x (a quarter turn about y)
                prim = {"cylinders": [CylinderPrimitive(
                    pose=Pose(position=Vector3(x=0, y=0, z=0),
                              orientation=Quaternion(x=0.0, y=frames.SQRT_HALF, z=0.0, w=frames.SQRT_HALF)),
                    size=Vector3(x=lz, y=ly, z=lx), bottom_scale=1.0, top_scale=1.0, color=body_colour)]}
            else:
                prim = {"cubes": [CubePrimitive(pose=Pose(position=Vector3(x=0, y=0, z=0),
                                                          orientation=Quaternion(x=0, y=0, z=0, w=1)),
                                                size=Vector3(x=lx, y=ly, z=lz), color=body_colour)]}
            entities.append(SceneEntity(timestamp=ts, frame_id=v.name, id=f"{v.name}/body", frame_locked=True, **prim))
        routes = {f"{v.name}/waypoints": v.waypoints for v in s.vehicles if v.waypoints}
        if not routes and s.waypoints:
            routes = {"waypoints": s.waypoints}
        for entity_id, route in routes.items():
            pts = frames.ned_to_enu(np.array(route, dtype=float))
            entities.append(SceneEntity(
                timestamp=ts, frame_id=frames.WORLD_FRAME, id=entity_id,
                lines=[LinePrimitive(type=LinePrimitiveLineType.LineStrip, thickness=2.0, scale_invariant=True,
                                     points=[Point3(x=float(p[0]), y=float(p[1]), z=float(p[2])) for p in pts],
                                     color=Color(r=0.1, g=0.1, b=0.1, a=0.8))],
                spheres=[SpherePrimitive(pose=Pose(position=Vector3(x=float(p[0]), y=float(p[1]), z=float(p[2])),
                                                   orientation=Quaternion(x=0, y=0, z=0, w=1)),
                                         size=Vector3(x=2.0, y=2.0, z=2.0), color=Color(r=0, g=0, b=0, a=1))
                         for p in pts]))
        (e_lo, n_lo), (e_hi, n_hi) = self.area()
        centre = ((e_lo + e_hi) / 2, (n_lo + n_hi) / 2)

        def plane(name, depth, colour):
            return SceneEntity(timestamp=ts, frame_id=frames.WORLD_FRAME, id=name, cubes=[CubePrimitive(
                pose=Pose(position=Vector3(x=centre[0], y=centre[1], z=-depth), orientation=Quaternion(x=0, y=0, z=0, w=1)),
                size=Vector3(x=e_hi - e_lo, y=n_hi - n_lo, z=0.01), color=colour)])

        entities.append(plane("sea surface", 0.0, Color(r=0.5, g=0.72, b=0.9, a=0.3)))
        if s.floor_depth is not None and not self.seabed_mesh():
            entities.append(plane("sea floor", s.floor_depth, Color(r=0.71, g=0.61, b=0.43, a=0.6)))
        return entities

    def area(self):
        """(east, north) of the south-west and north-east corners of the planes: the waypoints
        and the vehicles' first positions, with PLANE_MARGIN_M around them."""
        routes = [w for v in self.scene.vehicles for w in v.waypoints] + list(self.scene.waypoints)
        pts = [(w[1], w[0]) for w in routes] + list(getattr(self, "_starts", []))
        if not pts:
            pts = [(0.0, 0.0)]
        a = np.array(pts, dtype=float)
        return tuple(a.min(axis=0) - PLANE_MARGIN_M), tuple(a.max(axis=0) + PLANE_MARGIN_M)

    def seabed_mesh(self) -> list:
        """The seabed's mesh over the planes' area (``area``), as the primitives of its entity:
        a triangle list through every k-th node of the grid (at most SEABED_MESH_NODES), indexed,
        each vertex coloured by its depth; empty without a grid or where it covers none of the
        area. Made once."""
        if self._seabed_mesh is None:
            self._seabed_mesh = []
            (e_lo, n_lo), (e_hi, n_hi) = self.area()
            nodes = (seabed_drawing.nodes_over(self.scene.seabed, (n_lo, n_hi), (e_lo, e_hi),
                                               max_nodes=SEABED_MESH_NODES) if self.scene.seabed is not None else None)
            if nodes is not None:
                from foxglove.messages import Color, Point3, Pose, Quaternion, TriangleListPrimitive, Vector3

                vertices, faces = seabed_drawing.triangles(nodes)
                rgb = seabed_drawing.colours(vertices[:, 2], *seabed_drawing.depth_range(nodes.depth))
                self._seabed_mesh = [TriangleListPrimitive(
                    pose=Pose(position=Vector3(x=0, y=0, z=0), orientation=Quaternion(x=0, y=0, z=0, w=1)),
                    points=[Point3(x=x, y=y, z=z) for x, y, z in frames.ned_to_enu(vertices).tolist()],
                    colors=[Color(r=r, g=g, b=b, a=1.0) for r, g, b in rgb.tolist()],
                    indices=faces.ravel().tolist())]
        return self._seabed_mesh

    def log_static(self, ns: int) -> None:
        """The static scene on /scene and, with a grid, the seabed on /scene/seabed, stamped ``ns``."""
        from foxglove.messages import SceneEntity, SceneUpdate, Timestamp

        self.scene_channel.log(SceneUpdate(entities=self.static_entities(ns)), log_time=ns)
        if self.seabed_channel is not None and self.seabed_mesh():
            ts = Timestamp(ns // 1_000_000_000, ns % 1_000_000_000)
            self.seabed_channel.log(SceneUpdate(entities=[SceneEntity(
                timestamp=ts, frame_id=frames.WORLD_FRAME, id="seabed", triangles=self.seabed_mesh())]), log_time=ns)

    # ------------------------------------------------------------------ every point
    def rows(self, block: np.ndarray) -> None:
        from foxglove.messages import FrameTransform, LocationFix, Pose, PoseInFrame, Quaternion, Timestamp, Vector3

        s = self.scene
        if not len(block):
            return
        t0 = s.t0
        times = block[:, 0]
        if self.piece_start is None:
            self._starts = [(float(block[0, v.pos[1]]), float(block[0, v.pos[0]])) for v in s.vehicles]
            self.piece_start = float(times[0])
            self.log_static(frames.stamp(float(times[0]), t0)[0])
        per_vehicle = []
        for v in s.vehicles:
            enu = frames.ned_to_enu(block[:, v.pos])
            q = frames.attitude_to_enu_flu(attitudes(v, block))
            per_vehicle.append((v, enu, q))
        signal_rows = []   # per channel: its values of every row, as Python numbers (None: not finite)
        for channel, keys, cols in self.signals.values():
            sub = block[:, cols]
            values = sub.tolist()
            bad = ~np.isfinite(sub)
            if bad.any():
                for i, j in zip(*np.nonzero(bad)):
                    values[i][j] = None
            signal_rows.append((channel, keys, values))
        for i in range(len(block)):
            ns, sec, nsec = frames.stamp(float(times[i]), t0)
            ts = Timestamp(sec, nsec)
            for v, enu, q in per_vehicle:
                p = Vector3(x=float(enu[i, 0]), y=float(enu[i, 1]), z=float(enu[i, 2]))
                x, y, z, w = frames.to_xyzw(q[i])
                r = Quaternion(x=x, y=y, z=z, w=w)
                self.tf.log(FrameTransform(timestamp=ts, parent_frame_id=frames.WORLD_FRAME, child_frame_id=v.name,
                                           translation=p, rotation=r), log_time=ns)
                self.poses[v.name].log(PoseInFrame(timestamp=ts, frame_id=frames.WORLD_FRAME,
                                                   pose=Pose(position=p, orientation=r)), log_time=ns)
                if v.geo is not None:
                    self.fixes[v.name].log(LocationFix(timestamp=ts, frame_id=v.name, latitude=float(block[i, v.geo[0]]),
                                                       longitude=float(block[i, v.geo[1]]),
                                                       altitude=float(enu[i, 2])), log_time=ns)
                point = (float(enu[i, 0]), float(enu[i, 1]), float(enu[i, 2]))
                if not self.flown[v.name]:
                    self.flown[v.name].append(point)
                self.track[v.name].append(point)
            for channel, keys, values in signal_rows:
                msg = {"timestamp": {"sec": sec, "nsec": nsec}}
                msg.update(zip(keys, values[i]))
                channel.log(dumps(msg).encode(), log_time=ns)
            if times[i] - self.piece_start >= TRACK_PIECE_S - 1e-9:
                self.log_track(ns)
                self.piece_start = float(times[i])
        if self.cable_channel is not None:
            self.log_cables(block)

    def log_cables(self, block: np.ndarray) -> None:
        """Every cable of the scene (``Scene.cables``) as a line through its points, at each row
        of the block: the points of the whole block turned to ENU at once, a message a row."""
        from foxglove.messages import (Color, LinePrimitive, LinePrimitiveLineType, Point3, SceneEntity, SceneUpdate,
                                       Timestamp)

        lines = [(cable.name, frames.ned_to_enu(block[:, np.array(cable.points)])) for cable in self.scene.cables]
        colour = Color(r=0.9, g=0.3, b=0.1, a=1.0)
        for i, t in enumerate(block[:, 0]):
            ns, sec, nsec = frames.stamp(float(t), self.scene.t0)
            ts = Timestamp(sec, nsec)
            entities = [SceneEntity(timestamp=ts, frame_id=frames.WORLD_FRAME, id=f"{name}/cable",
                                    lines=[LinePrimitive(type=LinePrimitiveLineType.LineStrip, thickness=2.0,
                                                         scale_invariant=True,
                                                         points=[Point3(x=a, y=b, z=c) for a, b, c in enu[i].tolist()],
                                                         color=colour)])
                        for name, enu in lines if np.all(np.isfinite(enu[i]))]
            if entities:
                self.cable_channel.log(SceneUpdate(entities=entities), log_time=ns)

    def log_track(self, ns: int) -> None:
        """The track since the last piece, as a line entity of its own (the pieces accumulate
        in a viewer that plays the file), with the whole track flown so far (``track_flown``) in
        the same message, and the static scene again: a viewer that seeks shows the latest
        message of each topic, so both topics hold everything drawn up to that time."""
        from foxglove.messages import Color, LinePrimitive, LinePrimitiveLineType, Point3, SceneEntity, SceneUpdate, Timestamp

        ts = Timestamp(ns // 1_000_000_000, ns % 1_000_000_000)
        entities = []
        for v in self.scene.vehicles:
            pts = self.track[v.name]
            if len(pts) < 2:
                continue
            entities.append(SceneEntity(timestamp=ts, frame_id=frames.WORLD_FRAME, id=f"{v.name}/track/{self.piece[v.name]}",
                                        lines=[LinePrimitive(type=LinePrimitiveLineType.LineStrip, thickness=3.0,
                                                             scale_invariant=True,
                                                             points=[Point3(x=a, y=b, z=c) for a, b, c in pts],
                                                             color=Color(r=0.12, g=0.47, b=0.71, a=1.0))]))
            self.piece[v.name] += 1
            self.flown[v.name].append(pts[-1])
            self.track[v.name] = pts[-1:]   # the next piece starts where this one ends
        entities += self.track_flown(ts)
        if entities:
            self.track_channel.log(SceneUpdate(entities=entities), log_time=ns)
        self.log_static(ns)

    def track_flown(self, ts) -> list:
        """Per vehicle, one line entity ``<vehicle>/track/flown``: its track from the start to
        its last point, through the ends of the pieces (at most ``FLOWN_POINTS``, evenly
        thinned); it replaces the one before (same id)."""
        from foxglove.messages import Color, LinePrimitive, LinePrimitiveLineType, Point3, SceneEntity

        entities = []
        for v in self.scene.vehicles:
            pts = self.flown[v.name]
            if not pts:
                continue
            stride = -(-len(pts) // FLOWN_POINTS) or 1
            pts = pts[::stride] + ([pts[-1]] if (len(pts) - 1) % stride else [])
            if self.track[v.name] and self.track[v.name][-1] != pts[-1]:
                pts = pts + [self.track[v.name][-1]]
            if len(pts) < 2:
                continue
            entities.append(SceneEntity(timestamp=ts, frame_id=frames.WORLD_FRAME, id=f"{v.name}/track/flown",
                                        lines=[LinePrimitive(type=LinePrimitiveLineType.LineStrip, thickness=2.0,
                                                             scale_invariant=True,
                                                             points=[Point3(x=a, y=b, z=c) for a, b, c in pts],
                                                             color=Color(r=0.12, g=0.47, b=0.71, a=0.5))]))
        return entities

    def log_flown(self, ns: int) -> None:
        """The track flown so far and the static scene, now (for a viewer that joins late)."""
        from foxglove.messages import SceneUpdate, Timestamp

        entities = self.track_flown(Timestamp(ns // 1_000_000_000, ns % 1_000_000_000))
        if entities:
            self.track_channel.log(SceneUpdate(entities=entities), log_time=ns)
        self.log_static(ns)

    def finish(self) -> None:
        """The last piece of track (at the last point's time), and the static scene there."""
        pts = [p for v in self.scene.vehicles for p in self.track[v.name]]
        if self.piece_start is not None and len(pts) > len(self.scene.vehicles):
            self.log_track(self._last_ns)
        elif self.piece_start is not None:
            self.log_static(self._last_ns)


class FoxgloveObserver(Observer):
    """An observer that publishes a run's points on the Foxglove channels of ``scene_for(plan,
    layout)`` through the sinks ``open_sinks(context)`` opens (and ``close`` closes)."""

    def __init__(self, open_sinks, every: int | None = None, record: list[str] | None = None, context=None,
                 seabeds: dict | None = None):
        self.open_sinks = open_sinks
        self.seabeds = seabeds   # the grids a finished run read (summary.json's), for an export
        self.ctx = context
        if every is not None:
            self.every = every
        self.record = record
        self.publisher: FoxglovePublisher | None = None
        self.sinks: list = []

    def start(self, plan, layout) -> None:
        import foxglove
        from foxglove.channels import LogChannel

        from .scene import scene_of

        if self.ctx is None:
            self.ctx = foxglove.Context()
        self.sinks = list(self.open_sinks(self.ctx))
        self.publisher = FoxglovePublisher(scene_of(plan, list(layout.columns), self.record, seabed=True,
                                                    seabeds=self.seabeds), self.ctx)
        self.log = LogChannel(LOG_TOPIC, context=self.ctx)
        for warning in [*plan.warnings, *self.publisher.scene.warnings]:
            self._log(0, "Warning", "master", warning)

    def _log(self, ns: int, level: str, name: str, message: str) -> None:
        from foxglove.messages import Log, LogLevel, Timestamp

        self.log.log(Log(timestamp=Timestamp(ns // 1_000_000_000, ns % 1_000_000_000), level=getattr(LogLevel, level),
                         name=name, message=message), log_time=ns)

    def ended(self, status: str, reason: str, time: float, messages: list[dict]) -> None:
        """The FMUs' warnings and errors (at the point the loop had reached when each came), the
        run's end in words, and its outcome (as summary.json begins it) as one JSON message."""
        t0 = self.publisher.scene.t0
        end_ns = frames.stamp(time, t0)[0]
        for m in messages:
            t = m.get("time", float("nan"))
            ns = frames.stamp(t, t0)[0] if np.isfinite(t) else end_ns
            self._log(ns, LOG_LEVELS.get(m["status"], "Unknown"), m["instance"], m["message"])
        level = {"completed": "Info", "interrupted": "Warning"}.get(status, "Error")
        self._log(end_ns, level, "master", f"run {status}: {reason}")
        outcome = {"status": status, "reason": reason, "simulated_time_s": time - t0,
                   "fmu_warnings": sum(m["status"] == "warning" for m in messages),
                   "fmu_errors": sum(m["status"] != "warning" for m in messages)}
        self._log(end_ns, level, "summary", dumps(outcome))

    def rows(self, block: np.ndarray) -> None:
        self.publisher.rows(block)
        self.publisher._last_ns = frames.stamp(float(block[-1, 0]), self.publisher.scene.t0)[0]

    def close(self) -> None:
        try:
            if self.publisher is not None and hasattr(self.publisher, "_last_ns"):
                self.publisher.finish()
        finally:
            for sink in self.sinks:
                close = getattr(sink, "close", None) or getattr(sink, "stop", None)
                close()
            self.sinks = []


def mcap_sinks(path):
    """open_sinks of an MCAP file at ``path`` (it must not exist: the caller has checked)."""
    def open_sinks(ctx):
        import foxglove

        return [foxglove.open_mcap(str(path), context=ctx)]
    return open_sinks
