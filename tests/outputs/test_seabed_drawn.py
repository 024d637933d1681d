"""The seabed drawn where people look: the 3-D view (view.html) and the MCAP's scene draw the
grid a run's vehicle read (its BathymetryFile), not a plane; the plane stays where the grid
cannot be read any more, with a warning naming the file.

One short run of terrain_following (30 s, with its MCAP) serves the tests; the grid is read
back here with auv_cosim.seabed.load_seabed from the file and origin the scenario names, and each
drawn node is held to the grid's own depth at that node."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from references.readers import mcap_messages, results_table

pytest.importorskip("pyproj", reason="the seabed extra (pyproj) is not installed")

REPO = Path(__file__).resolve().parents[2]
SEABED_FILE = REPO / "auv_cosim" / "vehicles" / "auv" / "scenarios" / "seabeds" / "ridges_canyon.npz"
ORIGIN = (59.90, 10.70)


def _cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "auv_cosim", *args], capture_output=True, text=True, timeout=600,
                          cwd=cwd)


@pytest.fixture(scope="module")
def flown(tmp_path_factory, fmus_built):
    """terrain_following for 30 s with its MCAP."""
    out = tmp_path_factory.mktemp("seabed_drawn") / "tf"
    r = _cli("run", "terrain_following", "--stop-time", "30", "--no-plots", "-q", "--out", str(out),
             "--format", "csv,mcap")
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def grid():
    from auv_cosim.seabed import load_seabed

    return load_seabed(SEABED_FILE, *ORIGIN)


def _node(seabed, north, east, tolerance=1e-9):
    """(row, column) of the grid's node at (north, east), which must be one (to ``tolerance`` m)."""
    i, j = (north - seabed.north0) / seabed.cell, (east - seabed.east0) / seabed.cell
    assert abs(i - round(i)) * seabed.cell <= tolerance and abs(j - round(j)) * seabed.cell <= tolerance, (north, east)
    return int(round(i)), int(round(j))


def test_the_run_names_the_grid_it_read_in_its_summary(flown):
    seabeds = json.loads((flown / "summary.json").read_text())["seabeds"]
    assert seabeds["vehicle"] == {"file": str(SEABED_FILE), "origin": list(ORIGIN)}


# ----------------------------------------------------------------------------- the 3-D view

def _surfaces(fig):
    return {trace.name: trace for trace in fig.data if trace.type == "surface"}


def test_the_view_draws_the_grid_under_the_track(flown, grid):
    """A surface through the grid's own nodes over the track's box (depth drawn down, as the
    track: the same axis, so the same vertical exaggeration), no floor plane; the node nearest
    each point of the track is the grid's depth there, and lies where the vehicle's Altitude put
    the seabed."""
    from auv_cosim.master.view import build_figure, read_results

    fig = build_figure(read_results(flown), max_frames=5)
    surfaces = _surfaces(fig)
    assert "sea floor" not in surfaces
    seabed = surfaces["seabed (ridges_canyon.npz)"]
    east, north, z = np.asarray(seabed.x), np.asarray(seabed.y), np.asarray(seabed.z, dtype=float)
    assert z.shape == (north.size, east.size) and north.size <= 150 and east.size <= 150
    header, data = results_table(flown)
    col = {c: i for i, c in enumerate(header)}
    n, e = data[:, col["vehicle.Pos[1]"]], data[:, col["vehicle.Pos[2]"]]
    floor = data[:, col["vehicle.Pos[3]"]] + data[:, col["vehicle.Altitude"]]
    assert north.min() < n.min() and north.max() > n.max() and east.min() < e.min() and east.max() > e.max()
    for k in range(0, len(n), 25):
        i, j = int(np.argmin(np.abs(north - n[k]))), int(np.argmin(np.abs(east - e[k])))
        gi, gj = _node(grid, north[i], east[j], tolerance=5e-4)           # written to the millimetre
        assert z[i, j] == pytest.approx(grid.depth[gi, gj], abs=5e-4)     # written to the millimetre
        assert abs(z[i, j] - floor[k]) < 1.0, (k, z[i, j], floor[k])      # within 3.6 m of the track
    # the depth axis reaches below the deepest node drawn
    assert max(fig.layout.scene.zaxis.range) > np.nanmax(z)


def _moved(flown: Path, to: Path, bathymetry: str) -> Path:
    """The run's folder copied to ``to`` with its grid named ``bathymetry`` (a folder moved to
    a machine where the grid is elsewhere, or not at all)."""
    to.mkdir(parents=True)
    for name in ("results.csv", "scenario.resolved.yaml", "summary.json"):
        shutil.copy(flown / name, to / name)
    summary = json.loads((to / "summary.json").read_text())
    for entry in summary["seabeds"].values():
        entry["file"] = bathymetry
    (to / "summary.json").write_text(json.dumps(summary))
    return to


def test_a_view_without_its_grid_draws_the_plane_and_warns_naming_the_file(flown, tmp_path, capsys):
    from auv_cosim.master.view import build_figure, read_results

    gone = str(tmp_path / "elsewhere" / "ridges_canyon.npz")
    fig = build_figure(read_results(_moved(flown, tmp_path / "moved", gone)), max_frames=5)
    assert "sea floor" in _surfaces(fig) and not any(k.startswith("seabed") for k in _surfaces(fig))
    err = capsys.readouterr().err
    assert f"BathymetryFile {gone}" in err and "no such file" in err and "plane" in err
    # a file that is no grid: the same
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    fig = build_figure(read_results(_moved(flown, tmp_path / "bad", str(bad))), max_frames=5)
    assert "sea floor" in _surfaces(fig)
    assert str(bad) in capsys.readouterr().err


def _grid_with_hole(path: Path) -> Path:
    """A UTM grid (.npz) 60 m deep, 5 m cells about the origin, with a hole of nodata."""
    from pyproj import Transformer

    x0, y0 = Transformer.from_crs("EPSG:4326", "EPSG:32632", always_xy=True).transform(ORIGIN[1], ORIGIN[0])
    x = np.round(x0) + np.arange(-300.0, 300.1, 5.0)
    y = np.round(y0) + np.arange(-300.0, 300.1, 5.0)
    elevation = -60.0 - 0.01 * (x[None, :] - x0) + 0.0 * y[:, None]
    elevation[55:62, 55:62] = np.nan                     # about 30 m across, near the origin
    np.savez(path, elevation=elevation, x=x, y=y, crs="EPSG:32632")
    return path


def test_a_hole_in_the_grid_is_left_open_and_a_relative_file_is_taken_as_the_run_took_it(tmp_path, monkeypatch):
    """A folder of an older run (no ``seabeds`` in its summary): the resolved scenario's
    BathymetryFile, relative, taken from the current folder as the FMU took it."""
    from auv_cosim.master.view import build_figure, read_results

    monkeypatch.chdir(tmp_path)
    _grid_with_hole(tmp_path / "hole.npz")
    run = tmp_path / "run"
    run.mkdir()
    t = np.arange(0.0, 200.1, 1.0)
    with open(run / "results.csv", "w") as f:
        f.write("time,rov.Pos[1],rov.Pos[2],rov.Pos[3]\n")
        for k in t.tolist():
            f.write(f"{k!r},{k - 100.0!r},{0.2 * k - 20.0!r},20.0\n")
    (run / "scenario.resolved.yaml").write_text(yaml.safe_dump({"instances": {"rov": {"parameters": {
        "BathymetryFile": "hole.npz", "OriginLatitude": ORIGIN[0], "OriginLongitude": ORIGIN[1]}}}}))
    seabed = _surfaces(build_figure(read_results(run), max_frames=3))["seabed (hole.npz)"]
    z = np.asarray(seabed.z, dtype=float)
    assert np.isnan(z).any() and np.isfinite(z).sum() > 0.8 * z.size
    east, north = np.asarray(seabed.x), np.asarray(seabed.y)
    i, j = int(np.argmin(np.abs(north))), int(np.argmin(np.abs(east)))
    assert np.isnan(z[i, j])                             # the hole is near the origin
    k = int(np.argmin(np.abs(north - 80.0)))
    assert z[k, j] == pytest.approx(60.0 + 0.01 * east[j], abs=0.05)   # and the grid is there elsewhere


# ----------------------------------------------------------------------------- the MCAP

def _seabed_messages(mcap: Path):
    channels, msgs = mcap_messages(mcap, topics=["/scene", "/scene/seabed"])
    return channels, msgs


def test_the_mcap_scene_draws_the_grid_as_a_mesh_coloured_by_depth(flown, grid):
    channels, msgs = _seabed_messages(flown / "results.mcap")
    assert channels["/scene/seabed"][0] == "foxglove.SceneUpdate"
    last = [m for topic, _, m in msgs if topic == "/scene/seabed"][-1]
    (entity,) = last.entities
    assert entity.id == "seabed" and entity.frame_id == "world"
    (mesh,) = entity.triangles
    points = np.array([[p.x, p.y, p.z] for p in mesh.points])
    colours = np.array([[c.r, c.g, c.b] for c in mesh.colors])
    indices = np.array(mesh.indices)
    assert len(points) == len(colours) >= 100 and len(indices) % 3 == 0 and indices.max() < len(points)
    # every vertex is a node of the grid (ENU: x east, y north, z up) at the grid's own depth
    for x, y, z in points:
        i, j = _node(grid, y, x)
        assert -z == grid.depth[i, j]
    # the track's box is covered: from before the start to beyond the last waypoint north
    assert points[:, 1].min() < -30.0 and points[:, 1].max() > 1150.0
    # coloured by depth: the deepest vertex darker than the shallowest
    assert colours[np.argmin(points[:, 2])].sum() < colours[np.argmax(points[:, 2])].sum() - 0.5
    # no floor plane on /scene where the grid is drawn
    scene = [m for topic, _, m in msgs if topic == "/scene"][-1]
    assert "sea floor" not in {e.id for e in scene.entities}


def test_a_viewer_that_seeks_sees_the_seabed_at_any_time(flown):
    """The latest /scene/seabed message at or before each of several times holds the seabed."""
    _, msgs = _seabed_messages(flown / "results.mcap")
    seabed = [(t, m) for topic, t, m in msgs if topic == "/scene/seabed"]
    assert seabed[0][0] == 0 and seabed[-1][0] == 30 * 10**9
    for t in (0.0, 4.9, 10.0, 17.3, 29.9, 30.0):
        latest = [m for log_time, m in seabed if log_time <= round(t * 1e9)][-1]
        assert [e.id for e in latest.entities] == ["seabed"] and len(latest.entities[0].triangles[0].points) > 100


def test_export_draws_the_grid_the_run_read_and_the_plane_without_it(flown, tmp_path, capfd):
    from auv_cosim.outputs.formats import export

    # the folder as it is: the same mesh as the run's own MCAP
    here = _moved(flown, tmp_path / "here", str(SEABED_FILE))
    export(here, "mcap")
    mesh = lambda folder: [m for topic, _, m in _seabed_messages(folder / "results.mcap")[1]  # noqa: E731
                           if topic == "/scene/seabed"][-1].entities[0].triangles[0]
    assert [(p.x, p.y, p.z) for p in mesh(here).points] == [(p.x, p.y, p.z) for p in mesh(flown).points]
    # moved where the grid is not: the floor plane, and a warning naming the file
    gone = str(tmp_path / "nowhere" / "ridges_canyon.npz")
    moved = _moved(flown, tmp_path / "moved", gone)
    export(moved, "mcap")
    channels, msgs = _seabed_messages(moved / "results.mcap")
    assert "/scene/seabed" not in channels
    assert "sea floor" in {e.id for topic, _, m in msgs if topic == "/scene" for e in m.entities}
    assert f"BathymetryFile {gone}" in capfd.readouterr().err
