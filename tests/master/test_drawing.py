"""How an instance is drawn is what its FMU declares (auv_cosim.master.drawing), not names the
master knows: the build writes each unit's Drawing into the FMU that carries its position, the
run keeps it in summary.json, the 3-D view and the MCAP scene draw from it (a body under other
names, a cable through counted points), and an FMU that declares nothing is drawn by the
conventional names."""
from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy.validation import validate_fmu

from auv_cosim import units
from auv_cosim.master.drawing import Drawing, conventional, from_mapping, read_drawing
from auv_cosim.master.view import ViewError, build_figure, read_results
from tests.harness import FMU_DIR

pytestmark = pytest.mark.usefixtures("fmus_built")


def test_each_vehicle_fmu_carries_its_units_drawing_and_the_others_none():
    auv, h100 = units.units()["auv"].drawing, units.units()["h100"].drawing
    assert read_drawing(FMU_DIR / "Auv.fmu") == from_mapping(auv.attributes())
    assert read_drawing(FMU_DIR / "Auv.fmu").shape == "cylinder"
    assert read_drawing(FMU_DIR / "H100.fmu") == from_mapping(h100.attributes())
    assert read_drawing(FMU_DIR / "H100.fmu").thruster_positions == "ThrusterPos"
    for name in ("AuvSensors", "AuvControl", "H100Sensors", "H100Control"):
        assert read_drawing(FMU_DIR / f"{name}.fmu") is None, name
    assert validate_fmu(str(FMU_DIR / "Auv.fmu")) == []   # FMI 2.0 allows one element in a tool
    with zipfile.ZipFile(FMU_DIR / "Auv.fmu") as archive:
        xml = archive.read("modelDescription.xml").decode()
    assert '<Tool name="auv_cosim.drawing">' in xml


def test_a_declaration_that_cannot_be_drawn_is_refused_by_name():
    with pytest.raises(ValueError, match="shape 'sphere'"):
        from_mapping({"shape": "sphere"})
    with pytest.raises(ValueError, match="cable without points"):
        from_mapping({"shape": "cable", "points": "Node"})
    with pytest.raises(ValueError, match="unknown fields colour"):
        from_mapping({"shape": "box", "colour": "red"})


def test_an_fmu_that_declares_nothing_is_drawn_by_the_conventional_names():
    assert conventional({"Pos[1]", "Pos[2]", "Pos[3]", "Length", "Diameter"}).shape == "cylinder"
    box = conventional({"Pos[1]", "Pos[2]", "Pos[3]", "ThrusterPos[1,1]", "Height"})
    assert (box.shape, box.thruster_positions, box.height, box.declared) == ("box", "ThrusterPos", "Height", False)
    assert conventional({"Pos[1]", "Pos[2]"}) is None
    cable = Drawing("cable", points="Node{}Pos")
    names = {f"Node{k}Pos[{i}]" for k in (1, 2, 3) for i in (1, 2, 3)} | {"Node4Pos[1]"}
    assert cable.point_names(names) == ["Node1Pos", "Node2Pos", "Node3Pos"]


def _folder(tmp_path: Path, columns: dict, drawings: dict | None) -> Path:
    out = tmp_path / "run"
    out.mkdir()
    names = list(columns)
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(names)
        for row in zip(*columns.values()):
            w.writerow([repr(float(x)) for x in row])
    summary = {"scenario": "drawn", "description": "a stand-in"}
    if drawings is not None:
        summary["drawings"] = drawings
    (out / "summary.json").write_text(json.dumps(summary))
    return out


def test_the_view_draws_a_body_and_a_cable_under_the_names_their_drawings_give(tmp_path):
    t = np.linspace(0.0, 10.0, 11)
    columns = {"time": t, "boat.Where[1]": t, "boat.Where[2]": 0 * t, "boat.Where[3]": 2 + 0 * t,
               "boat.Tilt[1]": 0 * t, "boat.Tilt[2]": 0 * t, "boat.Tilt[3]": 0.1 * t}
    for k in (1, 2, 3):     # a cable hanging from (0, 0, 0) to the boat's position
        for i, end in enumerate((t, 0 * t, 2 + 0 * t), start=1):
            columns[f"line.Knot{k}[{i}]"] = end * (k - 1) / 2
    drawings = {"boat": {"shape": "cylinder", "position": "Where", "attitude": "Quat", "euler": "Tilt",
                         "length": "L", "diameter": "D"},
                "line": {"shape": "cable", "points": "Knot{}"}}
    fig = build_figure(read_results(_folder(tmp_path, columns, drawings)))
    track = next(tr for tr in fig.data if tr.name == "boat track")
    assert list(track.y) == list(np.round(t, 3)) and set(track.z) == {2.0}
    cable = next(tr for tr in fig.data if tr.name == "line (cable)")
    assert list(cable.y) == [0.0, 0.0, 0.0] and list(cable.z) == [0.0, 1.0, 2.0]   # row 0: hanging straight down
    last = fig.frames[-1]
    drawn = [d for d in last.data if getattr(d, "mode", None) is None and d.type == "scatter3d"]
    assert any(list(d.y) == [0.0, 5.0, 10.0] and list(d.z) == [0.0, 1.0, 2.0] for d in drawn), last.data
    # without the drawings nothing there is a vehicle by the conventional names
    (tmp_path / "bare").mkdir()
    with pytest.raises(ViewError, match="no vehicle"):
        build_figure(read_results(_folder(tmp_path / "bare", columns, None)))


def test_a_run_keeps_its_drawings_and_the_mcap_draws_the_body_from_them(tmp_path):
    from tests.harness import master
    from references.readers import mcap_messages

    r = master("run", "depth_step", "--stop-time", "2", "--no-plots", "--format", "mcap", out=tmp_path / "d")
    assert r.rc == 0, r.stderr
    drawings = r.summary["drawings"]
    assert set(drawings) == {"vehicle"} and drawings["vehicle"]["shape"] == "cylinder"
    assert drawings["vehicle"]["declared"] is True
    _, messages = mcap_messages(r.out / "results.mcap", topics=["/scene"])
    body = next(e for e in messages[0][2].entities if e.id == "vehicle/body")
    from fmpy import read_model_description

    length = next(float(v.start) for v in read_model_description(str(FMU_DIR / "Auv.fmu")).modelVariables
                  if v.name == "Length")
    assert len(body.cylinders) == 1 and body.cylinders[0].size.z == pytest.approx(length)


def test_the_mcap_draws_a_cable_through_its_points_at_every_point(tmp_path):
    import foxglove

    from auv_cosim.outputs.foxglove import FoxglovePublisher
    from auv_cosim.outputs.scene import Cable, Scene
    from references.readers import mcap_messages

    columns = ["time"] + [f"line.Knot{k}[{i}]" for k in (1, 2) for i in (1, 2, 3)]
    scene = Scene(columns, [], 0.0, [], cables=[Cable("line", [[1, 2, 3], [4, 5, 6]])])
    block = np.array([[t, 0.0, 0.0, 0.0, 10.0 + t, 5.0, 20.0] for t in (0.0, 0.5, 1.0)])
    ctx = foxglove.Context()
    sink = foxglove.open_mcap(str(tmp_path / "c.mcap"), context=ctx)
    FoxglovePublisher(scene, ctx).rows(block)
    sink.close()
    _, messages = mcap_messages(tmp_path / "c.mcap", topics=["/scene/cables"])
    assert [t for _, t, _ in messages] == [0, 500_000_000, 1_000_000_000]
    line = messages[-1][2].entities[0]
    assert line.id == "line/cable" and line.frame_id == "world"
    points = [(p.x, p.y, p.z) for p in line.lines[0].points]
    assert points == [(0.0, 0.0, 0.0), (5.0, 11.0, -20.0)]   # NED (11, 5, 20) is ENU (5, 11, -20)


def test_the_tether_is_drawn_as_the_cable_its_fmu_declares(tmp_path):
    """h100_tether_hold: Tether.fmu declares a cable through Node{k}Pos; the run keeps it, the
    MCAP draws it through the recorded points, view.html has it as a moving line."""
    from references.readers import mcap_messages
    from tests.harness import master

    assert read_drawing(FMU_DIR / "Tether.fmu") == Drawing("cable", points="Node{}Pos")
    r = master("run", "h100_tether_hold", "--stop-time", "1", "--no-plots", "--format", "mcap", "--view",
               out=tmp_path / "t")
    assert r.rc == 0, r.stderr
    tether = next(name for name, d in r.summary["drawings"].items() if d["shape"] == "cable")
    _, messages = mcap_messages(r.out / "results.mcap", topics=["/scene/cables"])
    line = messages[-1][2].entities[0]
    assert line.id == f"{tether}/cable" and len(line.lines[0].points) >= 2
    with open(r.out / "results.csv", newline="") as f:
        last = list(csv.DictReader(f))[-1]
    end = line.lines[0].points[-1]
    n, e, d = (float(last[f"{tether}.Node{len(line.lines[0].points)}Pos[{i}]"]) for i in (1, 2, 3))
    assert (end.x, end.y, end.z) == (pytest.approx(e), pytest.approx(n), pytest.approx(-d))   # ENU
    assert f"{tether} (cable)" in (r.out / "view.html").read_text()
