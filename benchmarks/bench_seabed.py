"""Benchmark: what the seabed grid's look-up costs the survey, against its stepping time.

    .venv/bin/python benchmarks/bench_seabed.py [--repeats 3]

The survey (the AUV unit's scenario `survey`) is flown side by side, alternated, without a grid (the
plane SeaFloorDepth, as the scenario has it) and over a grid of the same seabed: a GeoTIFF in
UTM with 5 m cells at 60 m depth plus 2 m sand waves, written here with rasterio, about an
origin in the Oslofjord. Two figures, both as a share of the survey's stepping time (the
master's loop, start-up excluded; medians of the repeats):

* the look-up itself: the compiled look-up the vehicle makes once per step (the grid's bicubic
  depth, `auv_cosim.vehicles.bathymetry.grid_depth_at`, with Latitude and Longitude),
  timed in a compiled loop at the survey's positions, times the survey's steps;
* the whole difference of the two runs' stepping times (noisier: it also carries the machine's
  load; a negative figure is noise).

The issue's bar: the look-up costs at most 10 % of the survey's stepping time.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ORIGIN = (59.90, 10.70)


def write_grid(path: Path) -> Path:
    import rasterio
    from pyproj import Transformer
    from rasterio.transform import from_origin

    x0, y0 = Transformer.from_crs("EPSG:4326", "EPSG:32632", always_xy=True).transform(ORIGIN[1], ORIGIN[0])
    cell, half = 5.0, 800.0
    n = int(2 * half / cell)
    left, top = math.floor(x0 / cell) * cell - half, math.floor(y0 / cell) * cell + half
    xs = left + cell / 2 + cell * np.arange(n)
    ys = top - cell / 2 - cell * np.arange(n)
    x, y = np.meshgrid(xs, ys)
    z = -(60.0 + 2.0 * np.sin(2 * np.pi * (x - x0) / 40.0))
    with rasterio.open(path, "w", driver="GTiff", width=n, height=n, count=1, dtype="float32", crs="EPSG:32632",
                       transform=from_origin(left, top, cell, cell)) as ds:
        ds.write(z.astype("float32"), 1)
    return path


def fly(out: Path, grid: Path | None):
    from auv_cosim.master import run

    overrides = {} if grid is None else {"vehicle.BathymetryFile": str(grid), "vehicle.OriginLatitude": str(ORIGIN[0]),
                                         "vehicle.OriginLongitude": str(ORIGIN[1])}
    result = run("survey", out_dir=out, plots=False, progress=False, keep_rows=False, overrides=overrides)
    assert result.ok, result.reason
    return result.summary["stepping_time_s"], result.rows


def lookup_cost(grid: Path, north, east) -> float:
    """Seconds per look-up: the vehicle's compiled look-up (depth and place) in a compiled loop."""
    import numba

    from auv_cosim.seabed import load_seabed
    from auv_cosim.vehicles.bathymetry import grid_depth_at, latitude_longitude, seabed_block

    c = np.concatenate([[0.0], seabed_block(load_seabed(grid, *ORIGIN))])

    @numba.njit
    def loop(c, north, east):
        total = 0.0
        for k in range(north.shape[0]):
            total += grid_depth_at(north[k], east[k], c, 1)[0]
            total += latitude_longitude(north[k], east[k], ORIGIN[0], ORIGIN[1])[0]
        return total

    loop(c, north[:10], east[:10])
    best = math.inf
    for _ in range(5):
        t0 = time.perf_counter()
        loop(c, north, east)
        best = min(best, time.perf_counter() - t0)
    return best / north.size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_seabed-") as folder:
        folder = Path(folder)
        grid = write_grid(folder / "sand_waves.tif")
        fly(folder / "warm", grid)
        plane, over_grid = [], []
        for k in range(args.repeats):
            plane.append(fly(folder / f"plane{k}", None)[0])
            stepping, rows = fly(folder / f"grid{k}", grid)
            over_grid.append(stepping)
        with open(folder / "grid0" / "results.csv") as f:
            header = f.readline().strip().split(",")
        data = np.loadtxt(folder / "grid0" / "results.csv", delimiter=",", skiprows=1,
                          usecols=[header.index("vehicle.Pos[1]"), header.index("vehicle.Pos[2]")])
        per_lookup = lookup_cost(grid, np.ascontiguousarray(data[:, 0]), np.ascontiguousarray(data[:, 1]))
    steps = rows - 1
    t_plane, t_grid = statistics.median(plane), statistics.median(over_grid)
    print(f"survey stepping time, median of {args.repeats}: plane {t_plane:.3f} s, grid {t_grid:.3f} s "
          f"({steps} steps; {1e6 * t_plane / steps:.1f} us a step on the plane)")
    print(f"look-up (grid depth + latitude/longitude, compiled): {1e9 * per_lookup:.0f} ns a step, "
          f"{steps * per_lookup:.4f} s a survey = {100 * steps * per_lookup / t_plane:.2f} % of the stepping time "
          f"(bar: 10 %)")
    print(f"difference of the runs' stepping times: {t_grid - t_plane:+.3f} s = "
          f"{100 * (t_grid - t_plane) / t_plane:+.1f} % (includes the machine's noise)")


if __name__ == "__main__":
    main()
