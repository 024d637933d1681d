"""A ROS 2 bag of a run (``--format rosbag``, ``export --format rosbag``): standard message
types that a ROS 2 user's tools already know, written with ``rosbags`` (no ROS installation),
into the folder ``rosbag/`` (its ``metadata.yaml`` and one SQLite file: what ``ros2 bag info``
lists; the stock ROS 2 Humble type store reads it). The topics, named after the scenario's
instances:

- ``/<vehicle>/odom`` (``nav_msgs/msg/Odometry``), every point: the pose in ``world`` (ENU) of
  the body frame ``<vehicle>`` (FLU), and its twist in the body frame: ``LocalVel`` (or the
  NED ``Vel`` turned into the body) and ``Omega`` where the vehicle outputs it (zero where it
  does not; the AUV has no rate output);
- ``/<instrument>/imu`` (``sensor_msgs/msg/Imu``) for an instance that measures attitude
  (``MeasuredEuler[1..3]``, or ``MeasuredRoll``, ``MeasuredPitch``, ``MeasuredHeading``), in
  the body frame of the vehicle it measures: orientation from those angles, angular velocity
  from ``MeasuredOmega``, linear acceleration (the specific force, as an accelerometer reads
  it) from ``MeasuredSpecificForce``; what the instrument does not give has its covariance's
  element 0 set to -1, as the message's definition asks;
- ``/<controller>/wrench`` (``geometry_msgs/msg/WrenchStamped``) for an instance with a
  commanded body wrench (``DesiredWrench[1..6]``, FRD, turned into FLU);
- ``/<vehicle>/commands`` (``std_msgs/msg/Float64MultiArray``): the values connected into the
  vehicle (its thruster commands, its rudders), in the order of the dimension's label, which
  names their columns (``control.ThrusterCommand[1];...``).

Stamps (header and bag time) are the simulated time since the run's start, in nanoseconds.
"""

from __future__ import annotations

import numpy as np

from . import frames
from .formats import FileWriter
from .scene import attitudes, scene_of

#: the type store of the messages (the stock ROS 2 Humble definitions)
TYPESTORE = "ROS2_HUMBLE"


def _cols(colmap, inst, names):
    return [colmap[f"{inst}.{n}"] for n in names] if all(f"{inst}.{n}" in colmap for n in names) else None


class RosbagWriter(FileWriter):
    name, kind = "rosbag", "rosbag"

    def __init__(self, folder=None, force=True, record=None):
        super().__init__(folder, force)
        self.record = record
        self.writer = None

    def start(self, plan, layout) -> None:
        from rosbags.rosbag2 import Writer
        from rosbags.typesys import Stores, get_typestore

        self.ts = get_typestore(getattr(Stores, TYPESTORE))
        self.scene = scene_of(plan, list(layout.columns), self.record)
        colmap = layout.colmap
        self.make_room()
        self.writer = Writer(self.path, version=8)
        self.writer.open()
        w, ts = self.writer, self.ts
        self.odom = []
        for v in self.scene.vehicles:
            local = _cols(colmap, v.name, [f"LocalVel[{i}]" for i in (1, 2, 3)])
            omega = _cols(colmap, v.name, [f"Omega[{i}]" for i in (1, 2, 3)])
            self.odom.append((v, local, omega, w.add_connection(f"/{v.name}/odom", "nav_msgs/msg/Odometry", typestore=ts)))
        body_of = self._measured_vehicle(plan)
        self.imus, self.wrenches, self.commands = [], [], []
        for inst in plan.instances:
            euler = _cols(colmap, inst, [f"MeasuredEuler[{i}]" for i in (1, 2, 3)]) or \
                _cols(colmap, inst, ["MeasuredRoll", "MeasuredPitch", "MeasuredHeading"])
            if euler is not None:
                self.imus.append((body_of.get(inst, self.scene.vehicles[0].name if self.scene.vehicles else inst), euler,
                                  _cols(colmap, inst, [f"MeasuredOmega[{i}]" for i in (1, 2, 3)]),
                                  _cols(colmap, inst, [f"MeasuredSpecificForce[{i}]" for i in (1, 2, 3)]),
                                  w.add_connection(f"/{inst}/imu", "sensor_msgs/msg/Imu", typestore=ts)))
            wrench = _cols(colmap, inst, [f"DesiredWrench[{i}]" for i in range(1, 7)])
            if wrench is not None:
                target = next((c.dst for c in plan.connections if c.src == inst and c.dst in body_of.values()), None)
                frame = target or (self.scene.vehicles[0].name if self.scene.vehicles else inst)
                self.wrenches.append((frame, wrench, w.add_connection(f"/{inst}/wrench", "geometry_msgs/msg/WrenchStamped",
                                                                      typestore=ts)))
        for v in self.scene.vehicles:
            names = []
            for c in plan.connections:
                if c.dst == v.name and f"{c.src}.{c.src_var.name}" in colmap and f"{c.src}.{c.src_var.name}" not in names:
                    names.append(f"{c.src}.{c.src_var.name}")
            if names:
                self.commands.append((names, [colmap[n] for n in names],
                                      w.add_connection(f"/{v.name}/commands", "std_msgs/msg/Float64MultiArray", typestore=ts)))

    def _measured_vehicle(self, plan) -> dict[str, str]:
        """instrument -> the vehicle whose outputs feed it (by the plan's connections)."""
        vehicles = {v.name for v in self.scene.vehicles}
        out = {}
        for c in plan.connections:
            if c.src in vehicles and c.dst not in vehicles:
                out.setdefault(c.dst, c.src)
        for v in vehicles:
            out[v] = v
        return out

    def rows(self, block: np.ndarray) -> None:
        ts, w = self.ts, self.writer
        M = ts.types
        Header, Time = M["std_msgs/msg/Header"], M["builtin_interfaces/msg/Time"]
        Vector3, Point, Quaternion = M["geometry_msgs/msg/Vector3"], M["geometry_msgs/msg/Point"], M["geometry_msgs/msg/Quaternion"]
        Pose, PoseWC = M["geometry_msgs/msg/Pose"], M["geometry_msgs/msg/PoseWithCovariance"]
        Twist, TwistWC = M["geometry_msgs/msg/Twist"], M["geometry_msgs/msg/TwistWithCovariance"]
        Odometry, Imu = M["nav_msgs/msg/Odometry"], M["sensor_msgs/msg/Imu"]
        Wrench, WrenchStamped = M["geometry_msgs/msg/Wrench"], M["geometry_msgs/msg/WrenchStamped"]
        F64, Layout, Dim = M["std_msgs/msg/Float64MultiArray"], M["std_msgs/msg/MultiArrayLayout"], M["std_msgs/msg/MultiArrayDimension"]
        zero36 = np.zeros(36)
        unknown9 = np.array([-1.0] + [0.0] * 8)
        zero9 = np.zeros(9)
        t0 = self.scene.t0

        def vec(a):
            return Vector3(x=float(a[0]), y=float(a[1]), z=float(a[2]))

        def quat(q):
            x, y, z, ww = frames.to_xyzw(q)
            return Quaternion(x=x, y=y, z=z, w=ww)

        per = []
        for v, local, omega, conn in self.odom:
            enu = frames.ned_to_enu(block[:, v.pos])
            q_ned = attitudes(v, block)
            q = frames.attitude_to_enu_flu(q_ned)
            if local is not None:
                body_v = frames.frd_to_flu(block[:, local])
            elif v.vel is not None:   # NED velocity into the body: R^T v
                from ..master.view import rotation_matrices

                body_v = frames.frd_to_flu(np.einsum("nji,nj->ni", rotation_matrices(q_ned), block[:, v.vel]))
            else:
                body_v = np.zeros((len(block), 3))
            rates = frames.frd_to_flu(block[:, omega]) if omega is not None else np.zeros((len(block), 3))
            per.append((v, enu, q, body_v, rates, conn))
        imus = []
        for frame, euler, gyro, accel, conn in self.imus:
            q = frames.attitude_to_enu_flu(frames.euler_to_quaternion(block[:, euler[0]], block[:, euler[1]], block[:, euler[2]]))
            imus.append((frame, q, frames.frd_to_flu(block[:, gyro]) if gyro else None,
                         frames.frd_to_flu(block[:, accel]) if accel else None, conn))
        for i in range(len(block)):
            ns, sec, nsec = frames.stamp(float(block[i, 0]), t0)
            stamp = Time(sec=sec, nanosec=nsec)
            for v, enu, q, body_v, rates, conn in per:
                msg = Odometry(header=Header(stamp=stamp, frame_id=frames.WORLD_FRAME), child_frame_id=v.name,
                               pose=PoseWC(pose=Pose(position=Point(x=float(enu[i, 0]), y=float(enu[i, 1]), z=float(enu[i, 2])),
                                                     orientation=quat(q[i])), covariance=zero36),
                               twist=TwistWC(twist=Twist(linear=vec(body_v[i]), angular=vec(rates[i])), covariance=zero36))
                w.write(conn, ns, ts.serialize_cdr(msg, "nav_msgs/msg/Odometry"))
            for frame, q, gyro, accel, conn in imus:
                msg = Imu(header=Header(stamp=stamp, frame_id=frame), orientation=quat(q[i]), orientation_covariance=zero9,
                          angular_velocity=vec(gyro[i]) if gyro is not None else vec((0, 0, 0)),
                          angular_velocity_covariance=zero9 if gyro is not None else unknown9,
                          linear_acceleration=vec(accel[i]) if accel is not None else vec((0, 0, 0)),
                          linear_acceleration_covariance=zero9 if accel is not None else unknown9)
                w.write(conn, ns, ts.serialize_cdr(msg, "sensor_msgs/msg/Imu"))
            for frame, cols, conn in self.wrenches:
                f = frames.frd_to_flu(block[i, cols[:3]])
                m = frames.frd_to_flu(block[i, cols[3:]])
                msg = WrenchStamped(header=Header(stamp=stamp, frame_id=frame), wrench=Wrench(force=vec(f), torque=vec(m)))
                w.write(conn, ns, ts.serialize_cdr(msg, "geometry_msgs/msg/WrenchStamped"))
            for names, cols, conn in self.commands:
                msg = F64(layout=Layout(dim=[Dim(label=";".join(names), size=len(names), stride=len(names))], data_offset=0),
                          data=np.asarray(block[i, cols], dtype=np.float64))
                w.write(conn, ns, ts.serialize_cdr(msg, "std_msgs/msg/Float64MultiArray"))

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
