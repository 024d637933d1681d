"""A ROS 2 bag of a run (``--format rosbag``, ``export --format rosbag``): standard message
types that a ROS 2 user's tools already know, written with ``rosbags`` (no ROS installation),
into the folder ``rosbag/`` (its ``metadata.yaml``, ``ros_distro: jazzy`` with each topic's QoS
profile, and one SQLite file: what ``ros2 bag info`` lists and ``ros2 bag play`` replays). Frames
as REP 105 names them (``ros_topics``: ``map``, ``odom``, ``base_link``, the sensors' frames);
axes as REP 103 (ENU, FLU: ``frames``). The topics, named after the scenario's instances:

- ``/tf_static`` (``tf2_msgs/msg/TFMessage``, once, transient local as tf2's static
  broadcaster offers it): ``map`` -> ``odom`` (identity: the simulation does not drift) and
  ``base_link`` -> each sensor's frame (identity: the instruments measure at the body origin);
- ``/tf`` (``tf2_msgs/msg/TFMessage``), every point: ``odom`` -> ``base_link`` of each vehicle;
- ``/<vehicle>/odom`` (``nav_msgs/msg/Odometry``), every point: the vehicle's true pose (in
  ``odom``) and twist (in ``base_link``: ``LocalVel``, or the NED ``Vel`` turned into the body,
  and ``Omega``, its body rates). It is the simulation's state: each known component has the
  variance ``TRUTH_VARIANCE`` (tiny, not 0, which filters read as unknown or cannot invert); a
  component the vehicle does not output has ``UNKNOWN_VARIANCE``;
- ``/<vehicle>/fix`` (``sensor_msgs/msg/NavSatFix``, ``base_link``) for a vehicle with
  ``Latitude`` and ``Longitude`` outputs: its place on Earth (degrees, WGS 84), altitude minus
  its depth; the truth, so its covariance is ``TRUTH_VARIANCE`` on the diagonal (known);
- ``/<vehicle>/battery`` (``sensor_msgs/msg/BatteryState``) for a vehicle with
  ``BatteryFraction``: its ``percentage`` (0 to 1); what the model does not give (voltage,
  current, charge) is NaN, as the message asks;
- an instrument's outputs (an instance fed by a vehicle), in its vehicle's sensor frames, each
  variance the square of the instrument's white-noise parameter (``...NoiseStd``; biases and
  lags are not in it; 0, "unknown", where it has none):

  - ``/<instrument>/imu`` (``sensor_msgs/msg/Imu``, ``imu_link``) for ``MeasuredEuler[1..3]``
    or ``MeasuredRoll``, ``MeasuredPitch``, ``MeasuredHeading``; ``MeasuredOmega`` and
    ``MeasuredSpecificForce`` where given (else covariance element 0 is -1, as the message's
    definition asks);
  - ``/<instrument>/pressure`` (``sensor_msgs/msg/FluidPressure``, ``pressure_link``) for
    ``MeasuredDepth``: the absolute pressure ``ATMOSPHERE_PA + Rho Gravity depth`` with the
    vehicle's ``Rho`` and ``Gravity``, the depth's variance scaled alike (a reader gets the depth
    back as (p - 101325) / (Rho Gravity));
  - ``/<instrument>/dvl`` (``geometry_msgs/msg/TwistWithCovarianceStamped``, ``dvl_link``) for
    ``MeasuredVelocity[1..3]`` (the body velocity over ground), or ``MeasuredSpeed`` (the
    forward speed through the water alone: the other components ``UNKNOWN_VARIANCE``);
- ``/<controller>/wrench`` (``geometry_msgs/msg/WrenchStamped``, ``base_link``) for an instance
  with a commanded body wrench (``DesiredWrench[1..6]``, FRD, turned into FLU);
- ``/<controller>/estimate`` (``geometry_msgs/msg/PointStamped``, ``map``) for an instance with
  a position estimate (``NavPosition[1..3]``): its navigation's belief, not a measurement, so
  neither an Imu nor a covariance it does not have;
- ``/<vehicle>/commands`` (``std_msgs/msg/Float64MultiArray``): the values connected into the
  vehicle from instances that are not vehicles (its thruster commands, its fins; not another
  vehicle's wake), in the order of the dimension's label, which names their columns.

Stamps (header and bag time) are the simulated time since the run's start, in nanoseconds.
"""

from __future__ import annotations

import numpy as np

from . import frames
from .formats import FileWriter
from .ros_topics import (MAP, commands_into, cols, measured_vehicle, output_cols, variance, vehicle_frames)
from .scene import attitudes, scene_of
from ..master.summary import param

#: the type store of the messages and the distribution metadata.yaml names (bag format 8)
TYPESTORE, ROS_DISTRO = "ROS2_JAZZY", "jazzy"
#: the variance of the simulation's own state in /odom, and of a component nobody gives
TRUTH_VARIANCE, UNKNOWN_VARIANCE = 1e-12, 1e6
ATMOSPHERE_PA = 101325.0


def _qos(depth: int, transient: bool = False):
    """A QoS profile as ROS 2 publishers offer it: reliable, keep last ``depth``; transient
    local for latched topics such as /tf_static, else volatile."""
    from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime

    never = QosTime(0, 0)   # the RMW's "default": no deadline, no lifespan
    return Qos(QosHistory.KEEP_LAST, depth, QosReliability.RELIABLE,
               QosDurability.TRANSIENT_LOCAL if transient else QosDurability.VOLATILE,
               never, never, QosLiveliness.AUTOMATIC, never, False)


def _diag(values) -> np.ndarray:
    n = len(values)
    out = np.zeros((n, n))
    out[np.diag_indices(n)] = values
    return out.ravel()


class RosbagWriter(FileWriter):
    name, kind = "rosbag", "rosbag"

    def __init__(self, folder=None, force=True, record=None):
        super().__init__(folder, force)
        self.record = record
        self.writer = None

    def _topic(self, name: str, msgtype: str, depth: int = 10, transient: bool = False):
        return self.writer.add_connection(name, msgtype, typestore=self.ts,
                                          offered_qos_profiles=[_qos(depth, transient)])

    def start(self, plan, layout) -> None:
        from rosbags.rosbag2 import Writer
        from rosbags.typesys import Stores, get_typestore

        self.ts = get_typestore(getattr(Stores, TYPESTORE))
        self.scene = scene_of(plan, list(layout.columns), self.record)
        self.make_room()
        self.writer = Writer(self.path, version=8)
        self.writer.open()
        self.static_sent = False
        names = [v.name for v in self.scene.vehicles]
        self.frames = vehicle_frames(names)
        self.tf_static = self._topic("/tf_static", "tf2_msgs/msg/TFMessage", depth=1, transient=True)
        self.tf = self._topic("/tf", "tf2_msgs/msg/TFMessage", depth=100)
        self._vehicles(plan, layout.colmap, names)
        self._instruments(plan, layout.colmap, names)

    def _vehicles(self, plan, colmap, names) -> None:
        self.odom, self.batteries, self.commands = [], [], []
        self.fixes = [(v, self._topic(f"/{v.name}/fix", "sensor_msgs/msg/NavSatFix")) for v in self.scene.vehicles
                      if v.geo is not None]
        for v in self.scene.vehicles:
            local = cols(colmap, v.name, [f"LocalVel[{i}]" for i in (1, 2, 3)])
            omega = cols(colmap, v.name, [f"Omega[{i}]" for i in (1, 2, 3)])
            self.odom.append((v, local, omega, self._topic(f"/{v.name}/odom", "nav_msgs/msg/Odometry", depth=50)))
            fraction = cols(colmap, v.name, ["BatteryFraction"])
            if fraction is not None:
                self.batteries.append((v.name, fraction[0], self._topic(f"/{v.name}/battery", "sensor_msgs/msg/BatteryState")))
            commands = commands_into(plan, colmap, v.name, names)
            if commands:
                self.commands.append((commands, [colmap[n] for n in commands],
                                      self._topic(f"/{v.name}/commands", "std_msgs/msg/Float64MultiArray")))

    def _instruments(self, plan, colmap, names) -> None:
        body_of = measured_vehicle(plan, names)
        fallback = names[0] if names else None
        self.imus, self.pressures, self.dvls, self.wrenches, self.estimates = [], [], [], [], []
        for inst in plan.instances:
            vehicle = body_of.get(inst, fallback)
            vf = self.frames.get(vehicle)
            if vf is None:
                continue
            euler = output_cols(plan, colmap, inst, [f"MeasuredEuler[{i}]" for i in (1, 2, 3)]) or \
                output_cols(plan, colmap, inst, ["MeasuredRoll", "MeasuredPitch", "MeasuredHeading"])
            if euler is not None:
                att, head = variance(plan, inst, "AttitudeNoiseStd"), variance(plan, inst, "HeadingNoiseStd")
                self.imus.append((vf.sensor("imu"), euler,
                                  output_cols(plan, colmap, inst, [f"MeasuredOmega[{i}]" for i in (1, 2, 3)]),
                                  output_cols(plan, colmap, inst, [f"MeasuredSpecificForce[{i}]" for i in (1, 2, 3)]),
                                  (_diag([att, att, head]), _diag([variance(plan, inst, "GyroNoiseStd")] * 3),
                                   _diag([variance(plan, inst, "AccelNoiseStd")] * 3)),
                                  self._topic(f"/{inst}/imu", "sensor_msgs/msg/Imu", depth=50)))
            depth = output_cols(plan, colmap, inst, ["MeasuredDepth"])
            if depth is not None:
                rho_g = float(param(plan, vehicle, "Rho", 1025.0)) * float(param(plan, vehicle, "Gravity", 9.81))
                self.pressures.append((vf.sensor("pressure"), depth[0], rho_g,
                                       rho_g ** 2 * variance(plan, inst, "DepthNoiseStd"),
                                       self._topic(f"/{inst}/pressure", "sensor_msgs/msg/FluidPressure")))
            self._dvl(plan, colmap, inst, vf)
            wrench = cols(colmap, inst, [f"DesiredWrench[{i}]" for i in range(1, 7)])
            if wrench is not None:
                target = next((c.dst for c in plan.connections if c.src == inst and c.dst in self.frames), vehicle)
                self.wrenches.append((self.frames[target].base_link, wrench,
                                      self._topic(f"/{inst}/wrench", "geometry_msgs/msg/WrenchStamped")))
            estimate = output_cols(plan, colmap, inst, [f"NavPosition[{i}]" for i in (1, 2, 3)])
            if estimate is not None:
                self.estimates.append((estimate, self._topic(f"/{inst}/estimate", "geometry_msgs/msg/PointStamped")))

    def _dvl(self, plan, colmap, inst, vf) -> None:
        velocity = output_cols(plan, colmap, inst, [f"MeasuredVelocity[{i}]" for i in (1, 2, 3)])
        speed = output_cols(plan, colmap, inst, ["MeasuredSpeed"])
        if velocity is None and speed is None:
            return
        if velocity is not None:
            var = variance(plan, inst, "DvlNoiseStd")
            cov = _diag([var, var, var] + [UNKNOWN_VARIANCE] * 3)
        else:
            cov = _diag([variance(plan, inst, "SpeedNoiseStd")] + [UNKNOWN_VARIANCE] * 5)
        self.dvls.append((vf.sensor("dvl"), velocity, speed, cov,
                          self._topic(f"/{inst}/dvl", "geometry_msgs/msg/TwistWithCovarianceStamped")))

    # ------------------------------------------------------------------ every point
    def rows(self, block: np.ndarray) -> None:
        if not len(block):
            return
        if not self.static_sent:
            self._write_static(frames.stamp(float(block[0, 0]), self.scene.t0))
            self.static_sent = True
        per = self._vehicle_rows(block)
        imus = []
        for frame, euler, gyro, accel, cov, conn in self.imus:
            q = frames.attitude_to_enu_flu(frames.euler_to_quaternion(block[:, euler[0]], block[:, euler[1]], block[:, euler[2]]))
            imus.append((frame, q, frames.frd_to_flu(block[:, gyro]) if gyro else None,
                         frames.frd_to_flu(block[:, accel]) if accel else None, cov, conn))
        dvls = []
        for frame, velocity, speed, cov, conn in self.dvls:
            if velocity is not None:
                lin = frames.frd_to_flu(block[:, velocity])
            else:
                lin = np.zeros((len(block), 3))
                lin[:, 0] = block[:, speed[0]]
            dvls.append((frame, lin, cov, conn))
        for i in range(len(block)):
            stamp = frames.stamp(float(block[i, 0]), self.scene.t0)
            self._write_point(block, i, stamp, per, imus, dvls)

    def _vehicle_rows(self, block):
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
                body_v = None
            rates = frames.frd_to_flu(block[:, omega]) if omega is not None else None
            known = lambda a: TRUTH_VARIANCE if a is not None else UNKNOWN_VARIANCE   # noqa: E731
            attitude_known = v.quat is not None or v.euler is not None
            pose_cov = _diag([TRUTH_VARIANCE] * 3 + [TRUTH_VARIANCE if attitude_known else UNKNOWN_VARIANCE] * 3)
            twist_cov = _diag([known(body_v)] * 3 + [known(rates)] * 3)
            zero = np.zeros((len(block), 3))
            per.append((v, enu, q, zero if body_v is None else body_v, zero if rates is None else rates,
                        pose_cov, twist_cov, conn))
        return per

    def _msg(self, name):
        return self.ts.types[name]

    def _write(self, conn, ns, msg) -> None:
        self.writer.write(conn, ns, self.ts.serialize_cdr(msg, msg.__msgtype__))

    def _write_static(self, stamp) -> None:
        M = self._msg
        ns, sec, nsec = stamp
        time = M("builtin_interfaces/msg/Time")(sec=sec, nanosec=nsec)
        identity = M("geometry_msgs/msg/Transform")(translation=M("geometry_msgs/msg/Vector3")(x=0.0, y=0.0, z=0.0),
                                                    rotation=M("geometry_msgs/msg/Quaternion")(x=0.0, y=0.0, z=0.0, w=1.0))
        pairs = []
        for vf in self.frames.values():
            pairs.append((MAP, vf.odom))
            pairs += [(vf.base_link, frame) for frame in vf.sensors.values()]
        transforms = [M("geometry_msgs/msg/TransformStamped")(header=M("std_msgs/msg/Header")(stamp=time, frame_id=parent),
                                                              child_frame_id=child, transform=identity)
                      for parent, child in pairs]
        self._write(self.tf_static, ns, M("tf2_msgs/msg/TFMessage")(transforms=transforms))

    def _write_point(self, block, i, stamp, per, imus, dvls) -> None:
        M = self._msg
        Header, Vector3 = M("std_msgs/msg/Header"), M("geometry_msgs/msg/Vector3")
        ns, sec, nsec = stamp
        time = M("builtin_interfaces/msg/Time")(sec=sec, nanosec=nsec)

        def vec(a):
            return Vector3(x=float(a[0]), y=float(a[1]), z=float(a[2]))

        def quat(q):
            x, y, z, w = frames.to_xyzw(q)
            return M("geometry_msgs/msg/Quaternion")(x=x, y=y, z=z, w=w)

        transforms = []
        for v, enu, q, body_v, rates, pose_cov, twist_cov, conn in per:
            vf = self.frames[v.name]
            position = M("geometry_msgs/msg/Point")(x=float(enu[i, 0]), y=float(enu[i, 1]), z=float(enu[i, 2]))
            self._write(conn, ns, M("nav_msgs/msg/Odometry")(
                header=Header(stamp=time, frame_id=vf.odom), child_frame_id=vf.base_link,
                pose=M("geometry_msgs/msg/PoseWithCovariance")(
                    pose=M("geometry_msgs/msg/Pose")(position=position, orientation=quat(q[i])), covariance=pose_cov),
                twist=M("geometry_msgs/msg/TwistWithCovariance")(
                    twist=M("geometry_msgs/msg/Twist")(linear=vec(body_v[i]), angular=vec(rates[i])), covariance=twist_cov)))
            transforms.append(M("geometry_msgs/msg/TransformStamped")(
                header=Header(stamp=time, frame_id=vf.odom), child_frame_id=vf.base_link,
                transform=M("geometry_msgs/msg/Transform")(translation=vec(enu[i]), rotation=quat(q[i]))))
        if transforms:
            self._write(self.tf, ns, M("tf2_msgs/msg/TFMessage")(transforms=transforms))
        for v, conn in self.fixes:
            self._write(conn, ns, M("sensor_msgs/msg/NavSatFix")(
                header=Header(stamp=time, frame_id=self.frames[v.name].base_link),
                status=M("sensor_msgs/msg/NavSatStatus")(status=0, service=0),   # STATUS_FIX
                latitude=float(block[i, v.geo[0]]), longitude=float(block[i, v.geo[1]]),
                altitude=-float(block[i, v.pos[2]]), position_covariance=_diag([TRUTH_VARIANCE] * 3),
                position_covariance_type=2))                                  # COVARIANCE_TYPE_DIAGONAL_KNOWN
        self._write_instruments(block, i, time, ns, imus, dvls, vec, quat)

    def _write_instruments(self, block, i, time, ns, imus, dvls, vec, quat) -> None:
        M = self._msg
        Header = M("std_msgs/msg/Header")
        unknown9 = np.array([-1.0] + [0.0] * 8)
        for frame, q, gyro, accel, (att_cov, gyro_cov, accel_cov), conn in imus:
            self._write(conn, ns, M("sensor_msgs/msg/Imu")(
                header=Header(stamp=time, frame_id=frame), orientation=quat(q[i]), orientation_covariance=att_cov,
                angular_velocity=vec(gyro[i]) if gyro is not None else vec((0, 0, 0)),
                angular_velocity_covariance=gyro_cov if gyro is not None else unknown9,
                linear_acceleration=vec(accel[i]) if accel is not None else vec((0, 0, 0)),
                linear_acceleration_covariance=accel_cov if accel is not None else unknown9))
        for frame, col, rho_g, var, conn in self.pressures:
            self._write(conn, ns, M("sensor_msgs/msg/FluidPressure")(
                header=Header(stamp=time, frame_id=frame), fluid_pressure=ATMOSPHERE_PA + rho_g * float(block[i, col]),
                variance=var))
        for frame, lin, cov, conn in dvls:
            self._write(conn, ns, M("geometry_msgs/msg/TwistWithCovarianceStamped")(
                header=Header(stamp=time, frame_id=frame), twist=M("geometry_msgs/msg/TwistWithCovariance")(
                    twist=M("geometry_msgs/msg/Twist")(linear=vec(lin[i]), angular=vec((0, 0, 0))), covariance=cov)))
        for vehicle, col, conn in self.batteries:
            self._write(conn, ns, self._battery(Header(stamp=time, frame_id=self.frames[vehicle].base_link),
                                                float(block[i, col])))
        for frame, c, conn in self.wrenches:
            self._write(conn, ns, M("geometry_msgs/msg/WrenchStamped")(
                header=Header(stamp=time, frame_id=frame),
                wrench=M("geometry_msgs/msg/Wrench")(force=vec(frames.frd_to_flu(block[i, c[:3]])),
                                                     torque=vec(frames.frd_to_flu(block[i, c[3:]])))))
        for c, conn in self.estimates:
            e = frames.ned_to_enu(block[i, c])
            self._write(conn, ns, M("geometry_msgs/msg/PointStamped")(
                header=Header(stamp=time, frame_id=MAP),
                point=M("geometry_msgs/msg/Point")(x=float(e[0]), y=float(e[1]), z=float(e[2]))))
        for names, c, conn in self.commands:
            self._write(conn, ns, M("std_msgs/msg/Float64MultiArray")(
                layout=M("std_msgs/msg/MultiArrayLayout")(dim=[M("std_msgs/msg/MultiArrayDimension")(
                    label=";".join(names), size=len(names), stride=len(names))], data_offset=0),
                data=np.asarray(block[i, c], dtype=np.float64)))

    def _battery(self, header, fraction: float):
        B = self._msg("sensor_msgs/msg/BatteryState")
        nan = float("nan")
        return B(header=header, voltage=nan, temperature=nan, current=nan, charge=nan, capacity=nan,
                 design_capacity=nan, percentage=fraction, power_supply_status=B.POWER_SUPPLY_STATUS_DISCHARGING,
                 power_supply_health=B.POWER_SUPPLY_HEALTH_UNKNOWN,
                 power_supply_technology=B.POWER_SUPPLY_TECHNOLOGY_UNKNOWN, present=True,
                 cell_voltage=np.zeros(0, dtype=np.float32), cell_temperature=np.zeros(0, dtype=np.float32),
                 location="", serial_number="")

    def close(self) -> None:
        if self.writer is not None:
            try:
                self.writer.close()
            finally:
                self.writer = None
            set_ros_distro(self.path, ROS_DISTRO)


def set_ros_distro(folder, distro: str) -> None:
    """Name the ROS distribution in the bag's metadata (rosbags writes its own name there), in
    metadata.yaml and in the copy the SQLite file keeps."""
    import sqlite3

    from ruamel.yaml import YAML

    meta = folder / "metadata.yaml"
    yaml = YAML(typ="safe")
    yaml.default_flow_style = False
    data = yaml.load(meta.read_text())
    data["rosbag2_bagfile_information"]["ros_distro"] = distro
    with open(meta, "w") as fh:
        yaml.dump(data, fh)
    for db in folder.glob("*.db3"):
        with sqlite3.connect(db) as con:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "metadata" in tables:
                rows = con.execute("SELECT rowid, metadata FROM metadata").fetchall()
                for rowid, text in rows:
                    con.execute("UPDATE metadata SET metadata = ? WHERE rowid = ?",
                                (text.replace("ros_distro: rosbags", f"ros_distro: {distro}"), rowid))
        con.close()
