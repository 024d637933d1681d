"""``run --live``: a WebSocket client on 127.0.0.1 (the Foxglove WebSocket protocol, spoken
here with the ``websockets`` library) is advertised the channels of the MCAP file and receives
poses equal to results.csv's; a run watched by a client and one without give the same
results.csv bytes; the server listens on 127.0.0.1 only."""
from __future__ import annotations

import asyncio
import base64
import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from references.readers import results_table

pytestmark = pytest.mark.usefixtures("fmus_built")
REPO = Path(__file__).resolve().parents[2]


def _start(out: Path, *extra, scenario: str = "depth_step", stop_time: float = 8) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-m", "auv_cosim", "run", scenario, "--stop-time", f"{stop_time:g}",
                             "--no-plots", "-q", "--out", str(out), "--realtime", "2", "--live", "--port", "0", *extra],
                            cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for line in proc.stderr:
        m = re.search(r"ws://127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    proc.wait(timeout=60)
    raise AssertionError(f"no live line; exit {proc.returncode}")


async def _watch(port: int, subprotocols=("foxglove.sdk.v1", "foxglove.websocket.v1"), after=None,
                 spoken: list | None = None, seen=None) -> tuple[list[dict], dict[str, list]]:
    """Connect (once the event ``after`` is set) offering ``subprotocols``, subscribe to every
    channel, take every message until the server closes; the subprotocol the server chose goes
    to ``spoken``; ``seen(topic, log_time)`` is told of each message."""
    import websockets

    channels: dict[int, dict] = {}
    got: dict[str, list] = {}
    subs: dict[int, str] = {}
    if after is not None:
        await after.wait()
    async with websockets.connect(f"ws://127.0.0.1:{port}", subprotocols=list(subprotocols), max_size=None) as ws:
        if spoken is not None:
            spoken.append(ws.subprotocol)
        try:
            async for frame in ws:
                if isinstance(frame, str):
                    msg = json.loads(frame)
                    if msg.get("op") == "advertise":
                        new = []
                        for ch in msg["channels"]:
                            channels[ch["id"]] = ch
                            sid = len(subs) + 1
                            subs[sid] = ch["topic"]
                            new.append({"id": sid, "channelId": ch["id"]})
                        await ws.send(json.dumps({"op": "subscribe", "subscriptions": new}))
                elif frame[0] == 1:   # message data: opcode, subscription id, log time, payload
                    sid, log_time = struct.unpack_from("<IQ", frame, 1)
                    got.setdefault(subs[sid], []).append((log_time, bytes(frame[13:])))
                    if seen is not None:
                        seen(subs[sid], log_time)
        except websockets.ConnectionClosed:
            pass
    return list(channels.values()), got


def _decoder(channel: dict):
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    fds = descriptor_pb2.FileDescriptorSet.FromString(base64.b64decode(channel["schema"]))
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(channel["schemaName"]))


def test_a_client_receives_the_channels_and_poses_of_results_csv(tmp_path):
    proc, port = _start(tmp_path / "watched")
    channels, got = asyncio.run(asyncio.wait_for(_watch(port), 120))
    proc.wait(timeout=120)
    assert proc.returncode == 0, proc.stderr.read()
    topics = {c["topic"]: c for c in channels}
    assert {"/tf", "/vehicle/pose", "/scene", "/vehicle/signals", "/control/signals"} <= set(topics)
    assert topics["/vehicle/pose"]["schemaName"] == "foxglove.PoseInFrame" and topics["/vehicle/pose"]["encoding"] == "protobuf"
    header, data = results_table(tmp_path / "watched")
    col = {c: i for i, c in enumerate(header)}
    by_time = {round(t * 1e9): i for i, t in enumerate(data[:, 0])}
    PoseInFrame = _decoder(topics["/vehicle/pose"])
    poses = got["/vehicle/pose"]
    assert len(poses) >= 20                     # 8 s at 2x: most of the 81 points reach a client that connects in time
    for log_time, payload in poses:
        m = PoseInFrame.FromString(payload)
        i = by_time[log_time]
        ned = (m.pose.position.y, m.pose.position.x, -m.pose.position.z)
        assert np.abs(np.array(ned) - data[i, [col[f"vehicle.Pos[{k}]"] for k in (1, 2, 3)]]).max() <= 1e-9
    assert "/scene" in got                       # the drawn scene is sent again for a late viewer

    plain = subprocess.run([sys.executable, "-m", "auv_cosim", "run", "depth_step", "--stop-time", "8", "--no-plots",
                            "-q", "--out", str(tmp_path / "unwatched"), "--realtime", "2", "--live", "--port", "0"],
                           cwd=REPO, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert (tmp_path / "unwatched" / "results.csv").read_bytes() == (tmp_path / "watched" / "results.csv").read_bytes()


def test_clients_of_either_name_of_the_protocol_are_served_and_a_late_one_gets_the_track_flown(tmp_path):
    """One client offering only ``foxglove.websocket.v1`` (older Foxglove and Lichtblick, the
    ws-protocol library's default), joining once the other has seen 3 s simulated, and one offering
    only ``foxglove.sdk.v1`` from the start: both on ``--port``, both given poses equal to
    results.csv, and the late one the track flown from the start, before it joined."""
    proc, port = _start(tmp_path / "w")

    async def both():
        old, new = [], []
        three_s = asyncio.Event()

        def seen(topic, log_time):
            if log_time >= 3e9:
                three_s.set()

        late, early = await asyncio.gather(_watch(port, ["foxglove.websocket.v1"], after=three_s, spoken=old),
                                           _watch(port, ["foxglove.sdk.v1"], spoken=new, seen=seen))
        return old + new, late, early

    spoken, (late_channels, late), (early_channels, early) = asyncio.run(asyncio.wait_for(both(), 120))
    proc.wait(timeout=120)
    assert proc.returncode == 0, proc.stderr.read()
    assert spoken == ["foxglove.websocket.v1", "foxglove.sdk.v1"]
    header, data = results_table(tmp_path / "w")
    by_time = {round(t * 1e9): i for i, t in enumerate(data[:, 0])}
    pos = [header.index(f"vehicle.Pos[{k}]") for k in (1, 2, 3)]
    for channels, got in ((late_channels, late), (early_channels, early)):
        topics = {c["topic"]: c for c in channels}
        PoseInFrame = _decoder(topics["/vehicle/pose"])
        assert len(got["/vehicle/pose"]) >= 10
        for log_time, payload in got["/vehicle/pose"]:
            m = PoseInFrame.FromString(payload)
            ned = (m.pose.position.y, m.pose.position.x, -m.pose.position.z)
            assert np.abs(np.array(ned) - data[by_time[log_time], pos]).max() <= 1e-9
    assert min(t for t, _ in late["/vehicle/pose"]) >= 3e9           # it joined after 3 s simulated
    SceneUpdate = _decoder({c["topic"]: c for c in late_channels}["/scene/track"])
    flown = [e for _, payload in late["/scene/track"] for e in SceneUpdate.FromString(payload).entities
             if e.id == "vehicle/track/flown"]
    assert flown, "the late client got no track flown"
    first = flown[0].lines[0].points[0]
    assert (first.y, first.x, -first.z) == tuple(data[0, pos])           # from where the vehicle started, at t = 0
    scene = {e.id for _, payload in late["/scene"] for e in _decoder({c["topic"]: c for c in late_channels}["/scene"])
             .FromString(payload).entities}
    assert {"vehicle/body", "sea surface"} <= scene


def test_live_listens_on_loopback_only_and_port_needs_live(tmp_path):
    proc, port = _start(tmp_path / "l")
    try:
        # the kernel's table of TCP sockets: the local address of each listening one (state 0A)
        listening = []
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            if Path(table).is_file():
                for line in Path(table).read_text().splitlines()[1:]:
                    local, state = line.split()[1], line.split()[3]
                    address, hex_port = local.split(":")
                    if state == "0A" and int(hex_port, 16) == port:
                        listening.append(address)
        assert listening == ["0100007F"]        # 127.0.0.1 (little-endian hex), and no other address
    finally:
        proc.wait(timeout=120)
    bad = subprocess.run([sys.executable, "-m", "auv_cosim", "run", "depth_step", "--stop-time", "1", "--port", "9",
                          "--out", str(tmp_path / "p")], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--port" in bad.stderr


async def _leave_early(port: int, after: int) -> int:
    """Subscribe to everything, take ``after`` messages, then hang up; the messages taken."""
    import websockets

    taken = 0
    async with websockets.connect(f"ws://127.0.0.1:{port}", subprotocols=["foxglove.sdk.v1", "foxglove.websocket.v1"],
                                  max_size=None) as ws:
        async for frame in ws:
            if isinstance(frame, str):
                msg = json.loads(frame)
                if msg.get("op") == "advertise":
                    await ws.send(json.dumps({"op": "subscribe", "subscriptions": [
                        {"id": k + 1, "channelId": ch["id"]} for k, ch in enumerate(msg["channels"])]}))
            else:
                taken += 1
                if taken >= after:
                    break
    return taken


def test_a_viewer_that_goes_away_neither_stops_nor_slows_the_run(tmp_path):
    proc, port = _start(tmp_path / "left")
    assert asyncio.run(asyncio.wait_for(_leave_early(port, 30), 60)) == 30
    proc.wait(timeout=120)
    assert proc.returncode == 0, proc.stderr.read()
    rt = json.loads((tmp_path / "left" / "summary.json").read_text())["realtime"]
    assert rt["simulated_s"] == 8.0
    assert 4.0 <= rt["wall_s"] < 4.4                  # paced at 2x: 4 s, not held by the viewer


def test_a_port_that_cannot_be_had_is_refused_before_anything_runs(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for bad, says in ((str(port), "cannot serve on 127.0.0.1"), ("70000", "not a TCP port")):
            done = subprocess.run([sys.executable, "-m", "auv_cosim", "run", "depth_step", "--stop-time", "1",
                                   "--out", str(tmp_path / "r"), "--live", "--port", bad],
                                  cwd=REPO, capture_output=True, text=True, timeout=120)
            assert done.returncode == 2 and "--port" in done.stderr and says in done.stderr, done.stderr
            assert not (tmp_path / "r").exists()


def test_a_client_is_sent_the_seabed_the_vehicle_read(tmp_path):
    """Over a grid (terrain_following's BathymetryFile) the live scene has /scene/seabed as the
    MCAP file has it: the mesh's vertices are the grid's nodes at its own depths."""
    pytest.importorskip("pyproj", reason="the seabed extra (pyproj) is not installed")
    from auv_cosim.seabed import load_seabed

    proc, port = _start(tmp_path / "over_grid", scenario="terrain_following", stop_time=4)
    channels, got = asyncio.run(asyncio.wait_for(_watch(port), 120))
    proc.wait(timeout=120)
    assert proc.returncode == 0, proc.stderr.read()
    topics = {c["topic"]: c for c in channels}
    assert topics["/scene/seabed"]["schemaName"] == "foxglove.SceneUpdate" and got.get("/scene/seabed")
    (entity,) = _decoder(topics["/scene/seabed"]).FromString(got["/scene/seabed"][-1][1]).entities
    (mesh,) = entity.triangles
    assert entity.id == "seabed" and len(mesh.points) == len(mesh.colors) > 100
    seabeds = json.loads((tmp_path / "over_grid" / "summary.json").read_text())["seabeds"]
    grid = load_seabed(seabeds["vehicle"]["file"], *seabeds["vehicle"]["origin"])
    for p in list(mesh.points)[::50]:
        i, j = round((p.y - grid.north0) / grid.cell), round((p.x - grid.east0) / grid.cell)
        assert (grid.north0 + i * grid.cell, grid.east0 + j * grid.cell) == pytest.approx((p.y, p.x), abs=1e-9)
        assert -p.z == grid.depth[i, j]
