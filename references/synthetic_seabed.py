"""The synthetic seabed of the terrain-following scenario: ridges, a canyon and sand waves
(written by tools/synthetic_seabed.py; tests/seabed/test_terrain_following.py checks that the
file the package ships is what `main` writes).

A grid in UTM zone 32N (EPSG:32632), 5 m cells, 1.2 km north by 0.6 km east about the
scenario's origin (59.90 N, 10.70 E); elevation in metres, positive up (GEBCO's convention).
Along north from the origin the seabed is 55 m deep, then (smooth shapes, so that a vehicle
holding 10 m altitude sees slopes it can climb at 1.5 m/s):

* two ridges across the track, 14 m and 10 m high, Gaussian of 45 m standard deviation, at
  250 m and 800 m north;
* a canyon along the ridges' gap, 12 m deep, 40 m standard deviation, at 520 m north;
* sand waves of 0.8 m amplitude and 35 m wavelength, crests at 30 degrees to the track;
* a tilt of 1 % deepening to the east.

Under the track the depth then varies by more than 20 m (41..67 m). Deterministic: no random
numbers, the same grid every time (tests/seabed/test_terrain_following.py checks that the file
the package ships is what this writes). The scenario `terrain_following` names the file beside
it (seabeds/ridges_canyon.npz), package data of the AUV unit, so that it flies from any folder.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "auv_cosim" / "vehicles" / "auv" / "scenarios" / "seabeds" / "ridges_canyon.npz"
ORIGIN = (59.90, 10.70)
CRS = "EPSG:32632"
CELL = 5.0


def depth_along(north, east):
    """The seabed's depth (m, positive down) at north/east metres of the origin (see the module)."""
    depth = 55.0 + 0.01 * east
    depth -= 14.0 * np.exp(-0.5 * ((north - 250.0) / 45.0) ** 2)
    depth -= 10.0 * np.exp(-0.5 * ((north - 800.0) / 45.0) ** 2)
    depth += 12.0 * np.exp(-0.5 * ((north - 520.0) / 40.0) ** 2)
    depth += 0.8 * np.sin(2 * np.pi * (north * np.cos(np.radians(30)) + east * np.sin(np.radians(30))) / 35.0)
    return depth


def main(out: Path = DEFAULT) -> Path:
    from pyproj import Transformer

    x0, y0 = Transformer.from_crs("EPSG:4326", CRS, always_xy=True).transform(ORIGIN[1], ORIGIN[0])
    x = np.round(x0 / CELL) * CELL + np.arange(-300.0, 300.0 + CELL, CELL)
    y = np.round(y0 / CELL) * CELL + np.arange(-200.0, 1400.0 + CELL, CELL)
    X, Y = np.meshgrid(x, y)
    # UTM metres about the origin stand for north and east here: the grid's convergence at the
    # origin (about 1.3 degrees) turns the shapes a little against true north, which the vehicle
    # meets as it is, since it reads the file through its CRS
    elevation = -depth_along(Y - y0, X - x0)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, elevation=elevation.astype(np.float32), x=x, y=y, crs=CRS)
    return out
