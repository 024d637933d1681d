"""The interactive 3-D view (auv_cosim/master/view.py): what the page holds, and that a real browser
draws it (headless Chromium: Debian's `chromium`, installed by `./build.sh test` when missing)."""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

from master_helpers import master

from auv_cosim.master.view import VIEW_FILE, ViewError, build_figure, read_results, write_view

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  # WebGL in software (SwiftShader): the page is our own, trusted content
                  "--enable-unsafe-swiftshader", "--window-size=1400,900", "--virtual-time-budget=15000"]


@pytest.fixture(scope="module")
def zigzag_view(tmp_path_factory, fmus_built):
    """A short zig-zag flown with --view."""
    out = tmp_path_factory.mktemp("zigzag_view")
    r = master("run", "zigzag", "--stop-time", "60", "--no-plots", "--view", out=out)
    assert r.rc == 0, r
    assert "view:" in r.stdout, r
    return out / VIEW_FILE


def _synthetic_run(folder: Path, heading: float = math.pi / 2, waypoints: str = "0,0,2; 0,3,3") -> Path:
    """A results folder of a vehicle named 'rov' (not the AUV's names) holding a heading."""
    folder.mkdir(parents=True, exist_ok=True)
    t = np.arange(0.0, 10.01, 0.5)
    q = (math.cos(heading / 2), 0.0, 0.0, math.sin(heading / 2))
    cols = {"time": t, "rov.Pos[1]": 0.0 * t, "rov.Pos[2]": 0.3 * t, "rov.Pos[3]": 2.0 + 0.1 * t,
            "rov.Altitude": 8.0 - 0.1 * t}
    cols.update({f"rov.Quater[{i + 1}]": q[i] + 0.0 * t for i in range(4)})
    cols.update({f"ctl.ThrusterCommand[{i}]": np.sin(t + i) for i in (1, 2)})
    with open(folder / "results.csv", "w") as f:
        f.write(",".join(cols) + "\n")
        for k in range(len(t)):
            f.write(",".join(repr(float(v[k])) for v in cols.values()) + "\n")
    scenario = {"instances": {"rov": {"fmu": "fmus/X.fmu"}, "ctl": {"parameters": {"Waypoints": waypoints}}},
                "connections": ["ctl.ThrusterCommand -> rov.ThrusterCommand"]}
    (folder / "scenario.resolved.yaml").write_text(yaml.safe_dump(scenario))
    return folder


def test_the_page_is_one_self_contained_file(zigzag_view):
    page = zigzag_view.read_text()
    assert page.startswith("<!DOCTYPE html>")
    # plotly's JavaScript embedded, nothing fetched: no external script, stylesheet or font
    assert len(page) > 3_000_000, "plotly.js (about 4 MB) should be embedded"
    assert not re.search(r"<script[^>]+src=", page)
    assert not re.search(r"<link[^>]+href=\"?https?:", page)
    assert "Plotly.newPlot" in page


def test_any_vehicle_is_drawn_from_the_common_column_names(tmp_path):
    """Not the AUV's instance names: a vehicle 'rov' driven by 'ctl' through a vector
    connection, its sea floor from its altitude, the waypoints of its controller ('ctl')."""
    tables = read_results(_synthetic_run(tmp_path / "rov"))
    fig = build_figure(tables, max_frames=5)
    names = [tr.name for tr in fig.data]
    assert "rov track" in names and "waypoints" in names and "sea floor" in names and "sea surface" in names
    assert {"ThrusterCommand[1] / 1", "ThrusterCommand[2] / 1"} <= {n.split("/")[0].strip() + " / 1" for n in names if n and "Thruster" in n}
    floor = next(tr for tr in fig.data if tr.name == "sea floor")
    assert np.allclose(np.asarray(floor.z), 10.0), "depth + altitude is 10 m all along the track"
    assert len(fig.frames) == 5


def test_malformed_waypoints_are_an_error_naming_them(tmp_path):
    """Read by the registered figures (the controllers' strict parser), not guessed at."""
    tables = read_results(_synthetic_run(tmp_path / "rov", waypoints="0,0,2; 0,3"))
    with pytest.raises(ViewError, match=r"scenario.resolved.yaml: ctl.Waypoints entry 2 '0,3' has 2 value\(s\)"):
        build_figure(tables, max_frames=5)


def test_the_vehicle_is_drawn_at_its_attitude(tmp_path):
    """Heading 90 degrees (east): the nose lies east of the body origin in every frame, the fin
    above it (smaller depth), in plot coordinates (x east, y north, z depth)."""
    tables = read_results(_synthetic_run(tmp_path / "rov", heading=math.pi / 2))
    fig = build_figure(tables, max_frames=4)
    t = tables.time
    for frame in fig.frames:
        mesh = frame.data[0]
        k = int(np.argmin(np.abs(t - float(frame.name))))
        east, north, depth = 0.3 * t[k], 0.0, 2.0 + 0.1 * t[k]
        x, y, z = (np.asarray(a) for a in (mesh.x, mesh.y, mesh.z))
        assert x[0] - east > 0.9 and abs(y[0] - north) < 1e-3 and abs(z[0] - depth) < 1e-3, "nose east"
        assert z[6] < depth - 0.1, "fin tip above the body"


def test_a_folder_without_results_is_refused_by_name(tmp_path):
    with pytest.raises(ViewError, match="results.csv"):
        write_view(tmp_path)
    (tmp_path / "results.csv").write_text("time,a.X\n0,1\n1,2\n")
    with pytest.raises(ViewError, match="no vehicle"):
        write_view(tmp_path)
    r = master("view", str(tmp_path / "missing"))
    assert r.rc == 2 and "not a folder" in r.stderr


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        reason = ("HEADLESS CHROMIUM NOT INSTALLED: the browser check of view.html was NOT done "
                  "(`./build.sh test` installs Debian's chromium when run as root; apt-get install chromium)")
        warnings.warn(reason)
        pytest.skip(reason)
    return exe


def _browse(exe: str, page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()],
                          capture_output=True, text=True, timeout=180)


def test_headless_chromium_draws_the_scene_without_script_error(zigzag_view, tmp_path):
    exe = _chromium()
    dom = _browse(exe, zigzag_view, tmp_path / "profile-dom", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body, dom.stdout[:2000]
    body = body.group(0)
    assert "data-view-errors" not in body, f"script error in the page: {body}"
    assert 'data-view-status="drawn"' in body, f"the 3-D scene was not drawn with WebGL: {body}"
    assert int(re.search(r'data-view-frames="(\d+)"', body).group(1)) >= 100

    shot = tmp_path / "view.png"
    r = _browse(exe, zigzag_view, tmp_path / "profile-shot", f"--screenshot={shot}")
    assert r.returncode == 0 and shot.is_file(), r.stderr[-2000:]
    from PIL import Image

    img = np.asarray(Image.open(shot).convert("RGB"), dtype=float)
    assert img.shape[:2] == (900, 1400)
    # the 3-D scene is the left 60 % of the page, below the title
    scene = img[120:760, 40:800]
    assert scene.std() > 15, f"the scene area is nearly uniform (std {scene.std():.1f}): nothing drawn"
    # coloured pixels (the track's colour scale, the sea floor, the vehicle): a blank or
    # grey-only scene has none
    saturation = scene.max(axis=2) - scene.min(axis=2)
    assert np.count_nonzero(saturation > 40) > 2000, "no coloured pixels in the 3-D scene"
    if os.environ.get("VIEW_SCREENSHOT_TO"):  # keep the picture (the README's is made so)
        shutil.copy(shot, os.environ["VIEW_SCREENSHOT_TO"])


def test_the_view_states_its_vertical_exaggeration_and_has_a_colour_bar_of_time(tmp_path):
    """The track's colours are explained (a colour bar of time) and the depth axis says how
    much it is stretched: the rov spans 3 m across and 3 m of depth, drawn in a box 0.45 as high
    as wide."""
    from auv_cosim.master.view import DEPTH_ASPECT

    tables = read_results(_synthetic_run(tmp_path / "rov"))
    fig = build_figure(tables, max_frames=3)
    track = next(tr for tr in fig.data if tr.name == "rov track")
    assert track.line.showscale and "t (s)" in track.line.colorbar.title.text
    title = fig.layout.scene.zaxis.title.text
    stated = float(re.search(r"vertical exaggeration ([0-9.]+)x", title).group(1))
    xs, zs = fig.layout.scene.xaxis.range, fig.layout.scene.zaxis.range
    ys = fig.layout.scene.yaxis.range
    horizontal = max(xs[1] - xs[0], ys[1] - ys[0])
    drawn = (DEPTH_ASPECT / abs(zs[0] - zs[1])) * horizontal       # drawn size of a metre of depth per metre across
    assert stated == pytest.approx(drawn, rel=5e-3)
    wps = next(tr for tr in fig.data if tr.name == "waypoints")
    assert list(wps.text) == ["1", "2"]                                     # numbered from 1, as track.png
