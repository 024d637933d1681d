"""The errors of the seabed: a file that cannot serve as a seabed, and a point the grid does not cover."""
from __future__ import annotations


class SeabedError(ValueError):
    """A bathymetry file that cannot be used: the message names the file and what is wrong."""

    def __init__(self, path, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"bathymetry file {self.path}: {problem}")


class OffGridError(SeabedError):
    """A point the grid does not cover: off its edge, or next to a hole (a nodata cell).

    Never a silent zero: a vehicle over no known seabed has no depth to report."""

    def __init__(self, path, north: float, east: float, extent):
        self.north, self.east, self.extent = float(north), float(east), extent
        n_lo, n_hi, e_lo, e_hi = extent
        super().__init__(path, f"no seabed at north {north:.2f} m, east {east:.2f} m: off the grid or "
                               f"next to a nodata cell (the grid covers north {n_lo:.1f}..{n_hi:.1f} m, "
                               f"east {e_lo:.1f}..{e_hi:.1f} m of the origin, less one cell at its edges)")
