"""`auv-cosim coverage` and `plan-survey` (auv_cosim/analyses/coverage*.py, survey_plan.py).

The survey's coverage is checked against an independent transcription of the swath model,
written here from the model's words and rasterised another way (matplotlib's point-in-path on
a half-metre lattice offset from the command's cells): at each recorded step the segment
perpendicular to the heading, centred on the true position, of half-width
min(a tan(half-angle), sqrt(range^2 - a^2)); the union of the quadrilaterals between
consecutive steps."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from auv_cosim.cli import main as cli

rasterio = pytest.importorskip("rasterio", reason="the seabed extra (rasterio) is not installed")

HALF_ANGLE, RANGE = 30.0, 60.0     # at the survey's 35..55 m altitude: swaths of 40..64 m, lines 50 m apart
AREA = "0,0; 500,0; 500,200; 0,200"


@pytest.fixture(scope="module")
def survey(tmp_path_factory, fmus_built):
    from auv_cosim.master import run

    out = tmp_path_factory.mktemp("survey")
    result = run("survey", out_dir=out, plots=False, progress=False, keep_rows=False)
    assert result.ok, result.reason
    return out


@pytest.fixture(scope="module")
def coverage(survey):
    assert cli(["coverage", str(survey), "--half-angle", str(HALF_ANGLE), "--range", str(RANGE),
                "--polygon", AREA]) == 0
    return json.loads((survey / "coverage.json").read_text())


def independent_area(results, half_angle, max_range, lattice=0.5):
    """The swath model's area, transcribed independently (see the module)."""
    from matplotlib.path import Path as Polygon

    with open(results) as f:
        header = f.readline().strip().split(",")
    cols = [header.index(n) for n in ("vehicle.Pos[1]", "vehicle.Pos[2]", "vehicle.Heading", "vehicle.Altitude")]
    n, e, psi, a = np.loadtxt(results, delimiter=",", skiprows=1, usecols=cols).T
    w = np.array([min(x * math.tan(math.radians(half_angle)), math.sqrt(max_range ** 2 - x ** 2))
                  if 0 < x < max_range else 0.0 for x in a])
    left = np.column_stack([n + w * np.sin(psi), e - w * np.cos(psi)])
    right = np.column_stack([n - w * np.sin(psi), e + w * np.cos(psi)])
    lo = np.minimum(left.min(0), right.min(0)) - 1.0
    hi = np.maximum(left.max(0), right.max(0)) + 1.0
    gn = np.arange(lo[0] + 0.13, hi[0], lattice)
    ge = np.arange(lo[1] + 0.37, hi[1], lattice)
    hit = np.zeros((gn.size, ge.size), bool)
    for k in range(len(n) - 1):
        if w[k] == 0 and w[k + 1] == 0:
            continue
        quad = np.array([left[k], right[k], right[k + 1], left[k + 1]])
        i0, i1 = np.searchsorted(gn, [quad[:, 0].min(), quad[:, 0].max()])
        j0, j1 = np.searchsorted(ge, [quad[:, 1].min(), quad[:, 1].max()])
        if i1 <= i0 or j1 <= j0:
            continue
        pn, pe = np.meshgrid(gn[i0:i1], ge[j0:j1], indexing="ij")
        inside = Polygon(quad).contains_points(np.column_stack([pn.ravel(), pe.ravel()])).reshape(pn.shape)
        hit[i0:i1, j0:j1] |= inside
    return hit.sum() * lattice * lattice


def test_survey_coverage_within_2_percent_of_an_independent_rasterisation(survey, coverage):
    reference = independent_area(survey / "results.csv", HALF_ANGLE, RANGE)
    assert coverage["area_m2"] == pytest.approx(reference, rel=0.02)
    assert 0.5 < coverage["fraction"] < 1.0           # the deep parts of the yo-yo leave gaps between lines
    assert coverage["gap_count"] > 0
    gap = coverage["gaps"][0]
    assert gap["area_m2"] > 1.0 and 0.0 <= gap["north_m"] <= 500.0 and 0.0 <= gap["east_m"] <= 200.0
    assert coverage["max_passes"] >= 2


def test_the_files_of_the_coverage(survey, coverage):
    png = (survey / "coverage.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    with rasterio.open(survey / "coverage_passes.tif") as ds:
        passes = ds.read(1)
        cell = ds.transform.a
        assert ds.crs is None                 # the survey has no place on Earth
    assert passes.max() == coverage["max_passes"]
    assert np.count_nonzero(passes) * cell * cell == pytest.approx(coverage["area_m2"])


def test_a_wider_swath_covers_the_area_and_the_flat_model_by_hand():
    """A straight line at 20 m altitude, 45 degrees, 100 m range: a strip 40 m wide."""
    from auv_cosim.analyses.coverage import coverage_figures, rasterise, swath_half_width

    t = np.arange(0.0, 101.0)
    north, east = 1.5 * t, np.zeros_like(t)
    w = swath_half_width(np.full_like(t, 20.0), 45.0, 100.0)
    assert w[0] == pytest.approx(20.0)
    assert swath_half_width([80.0, 0.0, 120.0], 60.0, 100.0).tolist() == [60.0, 0.0, 0.0]
    figures = coverage_figures(rasterise(t, north, east, np.zeros_like(t), w, w, 0.5),
                               [(0.0, -20.0), (150.0, -20.0), (150.0, 20.0), (0.0, 20.0)])
    assert figures["area_m2"] == pytest.approx(150.0 * 40.0, rel=0.01)
    assert figures["fraction"] > 0.98 and figures["gaps"] == []


def test_bad_input_is_refused_and_nothing_written(tmp_path, survey, capsys):
    assert cli(["coverage", str(tmp_path), "--half-angle", "30", "--range", "60"]) == 2
    assert "results.csv" in capsys.readouterr().err
    assert cli(["coverage", str(survey), "--half-angle", "95", "--range", "60"]) == 2
    assert "--half-angle" in capsys.readouterr().err
    assert cli(["coverage", str(survey), "--half-angle", "30", "--range", "60", "--vehicle", "boat"]) == 2
    assert "boat.Pos[1]" in capsys.readouterr().err
    assert cli(["coverage", str(survey), "--half-angle", "30", "--range", "60", "--polygon", "0,0; 1,1"]) == 2
    assert not list(tmp_path.iterdir())


def test_plan_survey_lines_cover_the_area(tmp_path, capsys):
    """The planned lines, flown ideally at their altitude, cover the area with the overlap asked."""
    from auv_cosim.analyses.coverage import coverage_figures, rasterise, swath_half_width
    from auv_cosim.master import load_yaml

    out = tmp_path / "plan.yaml"
    assert cli(["plan-survey", "--area", "0,0; 400,0; 400,300; 0,300", "--altitude", "10", "--half-angle", "60",
                "--range", "40", "--overlap", "0.2", "-o", str(out)]) == 0
    control = load_yaml(out.read_text())["instances"]["control"]["parameters"]
    assert control["DiveMode"] == "altitude" and control["TargetAltitude"] == 10
    points = np.array([[float(x) for x in p.split(",")] for p in control["Waypoints"].split(";")])
    spacing = 2 * 10 * math.tan(math.radians(60)) * 0.8
    assert len(points) == 2 * math.ceil(300 / spacing)
    assert np.diff(points[::2, 1]) == pytest.approx(spacing, abs=0.01)     # written to the centimetre
    # fly the lines at 0.5 m steps, turns included, and measure
    track = np.concatenate([np.linspace(a, b, int(np.hypot(*(b - a)[:2]) / 0.5) + 1) for a, b in zip(points, points[1:])])
    heading = np.arctan2(np.gradient(track[:, 1]), np.gradient(track[:, 0]))
    w = swath_half_width(np.full(len(track), 10.0), 60.0, 40.0)
    figures = coverage_figures(rasterise(np.arange(len(track)) * 0.5, track[:, 0], track[:, 1], heading, w, w, 1.0),
                               [(0, 0), (400, 0), (400, 300), (0, 300)])
    assert figures["fraction"] > 0.995
    assert cli(["plan-survey", "--area", "0,0; 400,0; 400,300", "--altitude", "10", "--half-angle", "60",
                "--range", "40", "-o", str(out)]) == 2          # exists: --force to replace
    assert "exists" in capsys.readouterr().err
