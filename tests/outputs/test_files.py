"""MCAP, Parquet and ROS 2 bag of a run (auv_cosim/outputs), read back with the libraries' own
readers and held to results.csv: the positions to 1e-9 m (they are the same doubles), every
point stamped with its simulated time; Foxglove's schemas checked against Foxglove's own
precompiled ones; results.csv byte for byte the run without them; export of a finished folder
gives the same messages as the run did."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from references.readers import bag_messages, mcap_messages, results_table

pytestmark = pytest.mark.usefixtures("fmus_built")
REPO = Path(__file__).resolve().parents[2]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "auv_cosim", *args], capture_output=True, text=True, timeout=600,
                          cwd=REPO)


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    """The survey for 120 s with every format, and the same run with the CSV alone."""
    base = tmp_path_factory.mktemp("survey")
    full = _cli("run", "survey", "--stop-time", "120", "--no-plots", "-q", "--out", str(base / "all"),
                "--format", "csv,mcap,rosbag,parquet")
    assert full.returncode == 0, full.stderr
    plain = _cli("run", "survey", "--stop-time", "120", "--no-plots", "-q", "--out", str(base / "csv"))
    assert plain.returncode == 0, plain.stderr
    return base


def test_the_csv_is_byte_for_byte_the_run_without_the_other_formats(survey):
    assert (survey / "all" / "results.csv").read_bytes() == (survey / "csv" / "results.csv").read_bytes()
    assert not any((survey / "csv" / n).exists() for n in ("results.mcap", "results.parquet", "rosbag"))
    files = json.loads((survey / "all" / "summary.json").read_text())["files"]
    assert {"mcap", "rosbag", "parquet"} <= set(files)


def test_mcap_channels_counts_and_poses(survey):
    header, data = results_table(survey / "all")
    channels, msgs = mcap_messages(survey / "all" / "results.mcap")
    n = len(data)
    assert channels["/tf"] == ("foxglove.FrameTransform", "protobuf", n)
    assert channels["/vehicle/pose"] == ("foxglove.PoseInFrame", "protobuf", n)
    assert channels["/scene"][0] == "foxglove.SceneUpdate"
    for inst in ("vehicle", "sensors", "control"):
        assert channels[f"/{inst}/signals"][1:] == ("json", n)
    col = {c: i for i, c in enumerate(header)}
    poses = [(t, m) for topic, t, m in msgs if topic == "/vehicle/pose"]
    stamps = np.array([t for t, _ in poses]) / 1e9
    assert np.allclose(stamps, data[:, 0], atol=1e-12, rtol=0)            # log time = simulated time
    assert all(m.timestamp.seconds * 10**9 + m.timestamp.nanos == t for t, m in poses)
    enu = np.array([[m.pose.position.x, m.pose.position.y, m.pose.position.z] for _, m in poses])
    ned = np.column_stack([enu[:, 1], enu[:, 0], -enu[:, 2]])
    want = data[:, [col["vehicle.Pos[1]"], col["vehicle.Pos[2]"], col["vehicle.Pos[3]"]]]
    assert np.abs(ned - want).max() <= 1e-9
    assert np.abs(ned[-1] - ned[0]).max() > 50.0                           # the vehicle went somewhere
    tf = [m for topic, _, m in msgs if topic == "/tf"]
    assert {(m.parent_frame_id, m.child_frame_id) for m in tf} == {("world", "vehicle")}
    # the signals by name: every recorded column of the instance, the Plot panel's key
    signals = [m for topic, _, m in msgs if topic == "/control/signals"]
    assert signals[-1]["CrossTrackError"] == data[-1, col["control.CrossTrackError"]]
    depth = [m for topic, _, m in msgs if topic == "/vehicle/signals"]
    assert [m["Pos_3"] for m in depth] == list(data[:, col["vehicle.Pos[3]"]])
    # the place on Earth for the Map panel: foxglove.LocationFix, the vehicle's Latitude and Longitude
    assert channels["/vehicle/location"] == ("foxglove.LocationFix", "protobuf", n)
    fixes = [m for topic, _, m in msgs if topic == "/vehicle/location"]
    assert [(m.latitude, m.longitude) for m in fixes] == [tuple(r) for r in data[:, [col["vehicle.Latitude"],
                                                                                     col["vehicle.Longitude"]]]]
    assert fixes[-1].altitude == -data[-1, col["vehicle.Pos[3]"]] and fixes[-1].frame_id == "vehicle"


def test_the_scene_draws_the_vehicle_to_size_waypoints_surface_floor_and_track(survey):
    _, msgs = mcap_messages(survey / "all" / "results.mcap", topics=["/scene", "/scene/track"])
    entities = {e.id: e for _, _, m in msgs for e in m.entities}
    body = entities["vehicle/body"]
    assert body.frame_id == "vehicle" and body.frame_locked
    cyl = body.cylinders[0]
    assert sorted([cyl.size.x, cyl.size.y, cyl.size.z]) == pytest.approx([0.2, 0.2, 2.0])   # Length 2 m, Diameter 0.2 m
    wp = entities["vehicle/waypoints"].lines[0].points
    assert len(wp) == 10 and (wp[1].x, wp[1].y) == (0.0, 500.0)          # (500 N, 0 E) is x = E, y = N
    assert entities["sea surface"].cubes[0].pose.position.z == 0.0
    assert entities["sea floor"].cubes[0].pose.position.z == -60.0       # SeaFloorDepth 60 m, down is -z
    assert sum(1 for k in entities if k.startswith("vehicle/track/")) >= 12   # a piece each 10 s of 120 s, and the whole
    assert all("track" in e.id for topic, _, m in msgs if topic == "/scene/track" for e in m.entities)


@pytest.fixture(scope="module")
def whole_survey(tmp_path_factory):
    """The whole survey (to the end of its mission) with its MCAP file."""
    out = tmp_path_factory.mktemp("whole") / "s"
    done = _cli("run", "survey", "--no-plots", "-q", "--out", str(out), "--format", "csv,mcap")
    assert done.returncode == 0, done.stderr
    return out


def test_a_viewer_that_seeks_anywhere_in_the_survey_shows_the_whole_scene(whole_survey):
    """Foxglove's seek: a viewer shows the latest message of each topic at or before the time it
    seeks to. At five times spread over the survey, those of the scene's topics hold the
    vehicle's body, its waypoints, the surface and the floor, and the track flown from the start."""
    from mcap.reader import make_reader
    from mcap_protobuf.decoder import DecoderFactory

    header, data = results_table(whole_survey)
    with open(whole_survey / "results.mcap", "rb") as fh:
        reader = make_reader(fh, decoder_factories=[DecoderFactory()])
        scene_topics = [c.topic for c in reader.get_summary().channels.values() if c.topic.startswith("/scene")]
        assert sorted(scene_topics) == ["/scene", "/scene/track"]
        msgs = [(ch.topic, msg.log_time, decoded) for _, ch, msg, decoded in reader.iter_decoded_messages(topics=scene_topics)]
    end = data[-1, 0]
    assert end > 1000.0                                        # the mission's end, not a short run
    start_enu = (data[0, header.index("vehicle.Pos[2]")], data[0, header.index("vehicle.Pos[1]")])
    for t in np.linspace(0.0, end, 5):
        latest = {}
        for topic, log_time, m in msgs:
            if log_time <= round(t * 1e9):
                latest[topic] = m                              # the file's messages are in time order
        shown = {e.id: e for m in latest.values() for e in m.entities}
        assert {"vehicle/body", "vehicle/waypoints", "sea surface", "sea floor"} <= set(shown), (t, sorted(shown))
        if t > 10.0:
            flown = shown["vehicle/track/flown"].lines[0].points
            assert (flown[0].x, flown[0].y) == start_enu      # the track from where the vehicle started
            i = np.searchsorted(data[:, 0], t, side="right") - 1
            here = (data[i, header.index("vehicle.Pos[2]")], data[i, header.index("vehicle.Pos[1]")])
            assert np.hypot(flown[-1].x - here[0], flown[-1].y - here[1]) < 10 * 2.0   # to within 10 s of travel


def test_the_schemas_are_foxglove_s_own(survey):
    """File level: each protobuf schema in the MCAP is a FileDescriptorSet whose message is, field
    for field, the one of Foxglove's precompiled schemas (foxglove-schemas-protobuf)."""
    from google.protobuf import descriptor_pb2
    from mcap.reader import make_reader

    import foxglove_schemas_protobuf.FrameTransform_pb2 as ft
    import foxglove_schemas_protobuf.LocationFix_pb2 as fix
    import foxglove_schemas_protobuf.Log_pb2 as log
    import foxglove_schemas_protobuf.PoseInFrame_pb2 as pif
    import foxglove_schemas_protobuf.SceneUpdate_pb2 as su

    official = {"foxglove.FrameTransform": ft.FrameTransform, "foxglove.PoseInFrame": pif.PoseInFrame,
                "foxglove.SceneUpdate": su.SceneUpdate, "foxglove.Log": log.Log, "foxglove.LocationFix": fix.LocationFix}
    with open(survey / "all" / "results.mcap", "rb") as fh:
        summary = make_reader(fh).get_summary()
    seen = set()
    for schema in summary.schemas.values():
        if schema.encoding != "protobuf":
            continue
        fds = descriptor_pb2.FileDescriptorSet.FromString(schema.data)
        short = schema.name.split(".")[-1]
        msg = next(m for f in fds.file if f.package == "foxglove" for m in f.message_type if m.name == short)
        want = official[schema.name].DESCRIPTOR
        assert [(f.name, f.number, f.type) for f in msg.field] == [(f.name, f.number, f.type) for f in want.fields]
        seen.add(schema.name)
    assert seen == set(official)


def test_parquet_is_the_csv_table(survey):
    import pyarrow.parquet as pq

    header, data = results_table(survey / "all")
    table = pq.read_table(survey / "all" / "results.parquet")
    assert table.column_names == header
    assert all(str(t) == "double" for t in table.schema.types)
    assert np.array_equal(np.column_stack([table.column(c).to_numpy() for c in header]), data)


def test_the_ros2_bag_reads_back_with_the_stock_type_store(survey):
    header, data = results_table(survey / "all")
    col = {c: i for i, c in enumerate(header)}
    bag = survey / "all" / "rosbag"
    assert (bag / "metadata.yaml").is_file()
    topics, msgs = bag_messages(bag)
    n = len(data)
    assert topics["/vehicle/odom"] == ("nav_msgs/msg/Odometry", n)
    assert topics["/sensors/imu"] == ("sensor_msgs/msg/Imu", n)
    assert topics["/sensors/pressure"] == ("sensor_msgs/msg/FluidPressure", n)
    assert topics["/sensors/dvl"] == ("geometry_msgs/msg/TwistWithCovarianceStamped", n)
    assert topics["/vehicle/battery"] == ("sensor_msgs/msg/BatteryState", n)
    assert topics["/vehicle/fix"] == ("sensor_msgs/msg/NavSatFix", n)
    fix = [m for topic, _, m in msgs if topic == "/vehicle/fix"][-1]   # the place on Earth, the truth's
    assert (fix.latitude, fix.longitude) == (data[-1, col["vehicle.Latitude"]], data[-1, col["vehicle.Longitude"]])
    assert fix.altitude == -data[-1, col["vehicle.Pos[3]"]] and fix.position_covariance_type == 2
    assert topics["/vehicle/commands"] == ("std_msgs/msg/Float64MultiArray", n)
    assert topics["/tf_static"] == ("tf2_msgs/msg/TFMessage", 1) and topics["/tf"] == ("tf2_msgs/msg/TFMessage", n)
    odom = [(t, m) for topic, t, m in msgs if topic == "/vehicle/odom"]
    ned = np.array([[m.pose.pose.position.y, m.pose.pose.position.x, -m.pose.pose.position.z] for _, m in odom])
    assert np.abs(ned - data[:, [col[f"vehicle.Pos[{i}]"] for i in (1, 2, 3)]]).max() <= 1e-9
    assert np.allclose([t / 1e9 for t, _ in odom], data[:, 0], atol=1e-12, rtol=0)
    assert odom[5][1].header.frame_id == "odom" and odom[5][1].child_frame_id == "base_link"
    # forward speed in the body (FLU x): positive, close to the cruise speed at the end
    assert 1.0 < odom[-1][1].twist.twist.linear.x < 1.8
    imu = [m for topic, _, m in msgs if topic == "/sensors/imu"]
    assert imu[0].header.frame_id == "imu_link"
    assert imu[0].angular_velocity_covariance[0] == -1.0                 # the AUV's instruments give no rates
    assert imu[0].orientation_covariance[8] == pytest.approx(0.005 ** 2)  # HeadingNoiseStd squared
    pressure = [m for topic, _, m in msgs if topic == "/sensors/pressure"][-1]
    rho_g = 1025.0 * 9.81
    assert (pressure.fluid_pressure - 101325.0) / rho_g == pytest.approx(data[-1, col["sensors.MeasuredDepth"]], abs=1e-9)
    battery = [m for topic, _, m in msgs if topic == "/vehicle/battery"][-1]
    assert battery.percentage == pytest.approx(data[-1, col["vehicle.BatteryFraction"]], rel=1e-6)
    cmds = [m for topic, _, m in msgs if topic == "/vehicle/commands"]
    assert cmds[0].layout.dim[0].label == "control.ThrustPower;control.RudderYaw;control.RudderDive"
    assert list(cmds[-1].data) == list(data[-1, [col["control.ThrustPower"], col["control.RudderYaw"],
                                                 col["control.RudderDive"]]])


def test_the_bag_read_with_sqlite_and_a_cdr_decoder_has_tf_rep105_frames_and_the_auv_s_rates(survey):
    """Read without rosbags (which writes it): /tf and /tf_static with REP 105's frames (map ->
    odom -> base_link -> the sensors'), the odometry's angular twist the AUV's Omega outputs
    (FRD turned into FLU) with a variance that is not zero, and metadata a ROS 2 tool accepts."""
    import yaml

    from tests.outputs.cdr import Cdr, bag_tables

    header, data = results_table(survey / "all")
    col = {c: i for i, c in enumerate(header)}
    topics, messages = bag_tables(survey / "all" / "rosbag")
    assert topics["/tf"][0] == "tf2_msgs/msg/TFMessage" and topics["/tf_static"][0] == "tf2_msgs/msg/TFMessage"
    static_qos = yaml.safe_load(topics["/tf_static"][1])[0]
    assert static_qos["durability"] == 1 and static_qos["reliability"] == 1        # transient local, reliable
    (stamp, raw), = messages["/tf_static"]
    static = {(t["header"]["frame_id"], t["child_frame_id"]) for t in Cdr(raw).tf_message()}
    assert static == {("map", "odom"), ("base_link", "imu_link"), ("base_link", "pressure_link"),
                      ("base_link", "dvl_link")}
    tf = [Cdr(raw).tf_message() for _, raw in messages["/tf"]]
    assert len(tf) == len(data) and {(t["header"]["frame_id"], t["child_frame_id"]) for m in tf for t in m} == {
        ("odom", "base_link")}
    last = tf[-1][0]["translation"]
    assert (last[1], last[0], -last[2]) == tuple(data[-1, [col[f"vehicle.Pos[{i}]"] for i in (1, 2, 3)]])
    odom = [Cdr(raw).odometry() for _, raw in messages["/vehicle/odom"]]
    omega = data[:, [col[f"vehicle.Omega[{i}]"] for i in (1, 2, 3)]]
    angular = np.array([m["angular"] for m in odom])
    assert np.array_equal(angular, omega * [1.0, -1.0, -1.0])                     # FRD -> FLU, the same doubles
    assert np.abs(omega[:, 2]).max() > 0.01                                       # it turns: the rates are not zeros
    # and they are the body rates: the Euler angles' rates from them (ZYX kinematics), integrated
    # by the trapezoid rule over the 0.1 s points, follow the Euler outputs to within 1 % of
    # each angle's excursion (zeros, a sign or an axis wrong would miss by all of it)
    roll, pitch = (data[:, col[f"vehicle.Euler[{i}]"]] for i in (1, 2))
    p, q, r = omega.T
    rates = {"roll": p + np.tan(pitch) * (q * np.sin(roll) + r * np.cos(roll)),
             "pitch": q * np.cos(roll) - r * np.sin(roll),
             "yaw": (q * np.sin(roll) + r * np.cos(roll)) / np.cos(pitch)}
    t = data[:, 0]
    for k, (name, rate) in enumerate(rates.items()):
        angle = np.unwrap(data[:, col[f"vehicle.Euler[{k + 1}]"]])
        integrated = np.concatenate([[0.0], np.cumsum(0.5 * (rate[1:] + rate[:-1]) * np.diff(t))])
        excursion = np.abs(angle - angle[0]).max()
        assert excursion > 1e-3 and np.abs(integrated - (angle - angle[0])).max() < 0.01 * excursion, name
    cov = np.array(odom[-1]["twist_covariance"]).reshape(6, 6)
    assert (np.diag(cov) > 0).all() and (np.diag(cov) < 1e-6).all()              # the truth: known, not "exactly zero"
    assert (odom[-1]["header"]["frame_id"], odom[-1]["child_frame_id"]) == ("odom", "base_link")
    dvl = Cdr(messages["/sensors/dvl"][-1][1]).twist_with_covariance_stamped()
    assert dvl["header"]["frame_id"] == "dvl_link" and dvl["linear"][0] == data[-1, col["sensors.MeasuredSpeed"]]
    meta = yaml.safe_load((survey / "all" / "rosbag" / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    assert meta["ros_distro"] == "jazzy" and meta["version"] == 8
    assert all(t["topic_metadata"]["offered_qos_profiles"] for t in meta["topics_with_message_count"])


def test_a_follower_s_commands_hold_its_controller_s_values_alone(tmp_path):
    """The convoy: the follower's /commands are its three commands, not the leader's wake
    values wired into it after them."""
    from tests.outputs.cdr import Cdr, bag_tables

    done = _cli("run", "convoy", "--stop-time", "2", "--no-plots", "-q", "--out", str(tmp_path / "c"), "--format", "rosbag")
    assert done.returncode == 0, done.stderr
    header, data = results_table(tmp_path / "c")
    _, messages = bag_tables(tmp_path / "c" / "rosbag")
    last = Cdr(messages["/follower/commands"][-1][1]).float64_multi_array()
    names = ["follower_control.ThrustPower", "follower_control.RudderYaw", "follower_control.RudderDive"]
    assert last["dim"] == [(";".join(names), 3, 3)]
    assert last["data"] == [data[-1, header.index(n)] for n in names]


def test_export_of_a_finished_folder_gives_the_run_s_messages_and_refuses_to_overwrite(survey, tmp_path):
    import shutil

    folder = tmp_path / "csv"
    shutil.copytree(survey / "csv", folder)
    for fmt, name in (("mcap", "results.mcap"), ("parquet", "results.parquet"), ("rosbag", "rosbag")):
        done = _cli("export", str(folder), "--format", fmt)
        assert done.returncode == 0, done.stderr
        assert (folder / name).exists()
        again = _cli("export", str(folder), "--format", fmt)
        assert again.returncode == 2 and name in again.stderr and "--force" in again.stderr
    assert _cli("export", str(folder), "--format", "mcap", "--force").returncode == 0
    ran, exported = (mcap_messages(p / "results.mcap")[1] for p in (survey / "all", folder))
    # the same messages, but the run's log: an export is no run (its end and outcome are the run's)
    assert [(t, topic) for topic, t, _ in ran if topic != "/log"] == [(t, topic) for topic, t, _ in exported]
    pose = lambda msgs: [(m.pose.position.x, m.pose.position.y, m.pose.position.z)   # noqa: E731
                         for topic, _, m in msgs if topic == "/vehicle/pose"]
    assert pose(ran) == pose(exported)
    bad = _cli("export", str(tmp_path / "nothing"), "--format", "mcap")
    assert bad.returncode == 2 and "results.csv" in bad.stderr


def test_h100_bag_has_its_wrench_thrusters_and_imu(tmp_path):
    done = _cli("run", "h100_waypoints", "--stop-time", "5", "--no-plots", "-q", "--out", str(tmp_path / "h"),
                "--format", "rosbag,mcap")
    assert done.returncode == 0, done.stderr
    header, data = results_table(tmp_path / "h")
    col = {c: i for i, c in enumerate(header)}
    topics, msgs = bag_messages(tmp_path / "h" / "rosbag")
    assert topics["/control/wrench"][0] == "geometry_msgs/msg/WrenchStamped"
    w = [m for topic, _, m in msgs if topic == "/control/wrench"][-1]
    assert (w.wrench.force.x, w.wrench.force.y, w.wrench.torque.z) == (
        data[-1, col["control.DesiredWrench[1]"]], -data[-1, col["control.DesiredWrench[2]"]],
        -data[-1, col["control.DesiredWrench[6]"]])                      # FRD -> FLU
    imu = [m for topic, _, m in msgs if topic == "/sensors/imu"][-1]
    assert imu.angular_velocity.y == -data[-1, col["sensors.MeasuredOmega[2]"]]
    assert imu.linear_acceleration.z == -data[-1, col["sensors.MeasuredSpecificForce[3]"]]
    cmds = [m for topic, _, m in msgs if topic == "/vehicle/commands"][-1]
    assert len(cmds.data) == 8 and cmds.layout.dim[0].label.startswith("control.ThrusterCommand[1];")
    # the controller's estimate is its belief of the position, not an Imu: a point in map
    assert "/control/imu" not in topics and topics["/control/estimate"][0] == "geometry_msgs/msg/PointStamped"
    est = [m for topic, _, m in msgs if topic == "/control/estimate"][-1]
    assert (est.header.frame_id, est.point.x) == ("map", data[-1, col["control.NavPosition[2]"]])
    dvl = [m for topic, _, m in msgs if topic == "/sensors/dvl"][-1]
    assert dvl.twist.twist.linear.y == -data[-1, col["sensors.MeasuredVelocity[2]"]]
    assert dvl.twist.covariance[0] == pytest.approx(0.005 ** 2)           # DvlNoiseStd squared
    odom = [m for topic, _, m in msgs if topic == "/vehicle/odom"][-1]
    assert odom.twist.twist.angular.z == -data[-1, col["vehicle.Omega[3]"]]
    _, scene = mcap_messages(tmp_path / "h" / "results.mcap", topics=["/scene"])
    body = next(e for _, _, m in scene for e in m.entities if e.id == "vehicle/body")
    assert body.cubes[0].size.z == pytest.approx(0.254)                    # the frame's Height


@pytest.mark.parametrize("text, says", [("csv,mp4", "unknown format 'mp4'"), ("csv,csv", "named twice"), ("", "empty")])
def test_a_format_that_is_not_one_is_refused_before_anything_runs(tmp_path, text, says):
    done = _cli("run", "depth_step", "--stop-time", "1", "--out", str(tmp_path / "r"), "--format", text)
    assert done.returncode == 2 and "--format" in done.stderr and says in done.stderr
    assert not (tmp_path / "r").exists()
    export = _cli("export", str(tmp_path), "--format", "csv")
    assert export.returncode == 2 and "unknown format 'csv'" in export.stderr


def test_each_vehicle_of_a_fleet_has_its_own_channels_named_after_it(tmp_path):
    """The convoy (two survey stacks, leader and follower): per vehicle its pose, odometry,
    body and waypoints, under the scenario's names."""
    done = _cli("run", "convoy", "--stop-time", "3", "--no-plots", "-q", "--out", str(tmp_path / "c"),
                "--format", "mcap,rosbag")
    assert done.returncode == 0, done.stderr
    channels, msgs = mcap_messages(tmp_path / "c" / "results.mcap")
    assert {"/leader/pose", "/follower/pose", "/leader_control/signals", "/follower_sensors/signals"} <= set(channels)
    tf = {m.child_frame_id for topic, _, m in msgs if topic == "/tf"}
    assert tf == {"leader", "follower"}
    entities = {e.id for topic, _, m in msgs if topic == "/scene" for e in m.entities}
    assert {"leader/body", "follower/body", "leader/waypoints", "follower/waypoints"} <= entities
    topics, _ = bag_messages(tmp_path / "c" / "rosbag")
    assert {"/leader/odom", "/follower/odom", "/leader_sensors/imu", "/follower_sensors/imu"} <= set(topics)
    _, bag = bag_messages(tmp_path / "c" / "rosbag")
    frames = {(t.header.frame_id, t.child_frame_id) for topic, _, m in bag if topic in ("/tf", "/tf_static")
              for t in m.transforms}
    assert {("map", "leader/odom"), ("leader/odom", "leader/base_link"), ("leader/base_link", "leader/imu_link"),
            ("follower/odom", "follower/base_link")} <= frames
    header, data = results_table(tmp_path / "c")
    last = {m.child_frame_id: m for topic, _, m in msgs if topic == "/tf"}
    assert last["follower"].translation.y == data[-1, header.index("follower.Pos[1]")]   # north is y
    assert last["leader"].translation.y == data[-1, header.index("leader.Pos[1]")]


def test_a_run_with_a_warning_logs_it_on_the_mcap_s_log_channel(tmp_path):
    """foxglove.Log: the FMU's warning (a vehicle whose fins cannot dive it), named after its
    instance, the run's end and its outcome as JSON."""
    done = _cli("run", "depth_step", "--stop-time", "3", "--no-plots", "-q", "--out", str(tmp_path / "w"),
                "--set", "vehicle.COG[3]=0.09", "--format", "csv,mcap")
    assert done.returncode == 0, done.stderr
    channels, msgs = mcap_messages(tmp_path / "w" / "results.mcap", topics=["/log"])
    assert channels["/log"][:2] == ("foxglove.Log", "protobuf")
    logs = [m for _, _, m in msgs]
    warning = [m for m in logs if m.name == "vehicle"]
    assert len(warning) == 1 and warning[0].level == 3 and "fins cannot dive" in warning[0].message   # 3: WARNING
    end = [m for m in logs if m.name == "master"]
    assert [m.message for m in end] == ["run completed: reached stop time 3 s"] and end[0].level == 2   # 2: INFO
    assert end[0].timestamp.seconds == 3
    outcome = json.loads(next(m.message for m in logs if m.name == "summary"))
    assert outcome == {"status": "completed", "reason": "reached stop time 3 s", "simulated_time_s": 3.0,
                       "fmu_warnings": 1, "fmu_errors": 0}


def test_the_json_signal_schemas_and_parquet_carry_the_units(survey):
    import pyarrow.parquet as pq
    from mcap.reader import make_reader

    with open(survey / "all" / "results.mcap", "rb") as fh:
        summary = make_reader(fh).get_summary()
    by_topic = {c.topic: summary.schemas[c.schema_id] for c in summary.channels.values()}
    props = json.loads(by_topic["/vehicle/signals"].data)["properties"]
    assert (props["Pos_1"]["unit"], props["Euler_3"]["unit"], props["Speed"]["unit"]) == ("m", "rad", "m/s")
    assert all("unit" in p for k, p in props.items() if k != "timestamp")
    assert json.loads(by_topic["/sensors/signals"].data)["properties"]["MeasuredHeading"]["unit"] == "rad"
    table = pq.read_table(survey / "all" / "results.parquet")
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items()}
    units = json.loads(meta["auv_cosim.units"])
    assert list(units) == table.column_names
    assert (units["time"], units["vehicle.Pos[1]"], units["vehicle.Euler[2]"], units["vehicle.Omega[3]"]) == (
        "s", "m", "rad", "rad/s")
    assert meta["auv_cosim.scenario"] == "survey" and meta["auv_cosim.version"]
    assert table.schema.field("control.CrossTrackError").metadata == {b"unit": b"m"}
    # the file's own key-value metadata, as any Parquet reader sees it (not only pyarrow's schema)
    kv = pq.ParquetFile(survey / "all" / "results.parquet").metadata.metadata
    assert b"auv_cosim.units" in kv and b"auv_cosim.scenario" in kv
