"""What a control stack over the seabed achieved, as the rows stream past (part of its figures in
summary.json, `figures.ControlFigures`):

- in the altitude mode (``DiveMode: altitude``), the altitude error ``<vehicle>.Altitude -
  TargetAltitude`` (the true altitude, over the mission's rows), the lowest altitude and the
  share of those rows with the DVL's bottom lock (the source of the control's
  ``AltitudeValid``);
- the navigation error: the horizontal distance between the position the control steers by
  (the sources of its ``NavNorth`` and ``NavEast`` inputs) and the vehicle's true ``Pos``,
  which grows where the navigation loses bottom lock over a grid.

Each figure is there only when the run has its columns.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from auv_cosim.master import Plan, RunningStats, param, rounded


def _source_column(plan: Plan, colmap: dict[str, int], control: str, name: str):
    """The column of what drives `control`.`name` (None when nothing recorded does)."""
    for c in plan.connections:
        if c.dst == control and c.dst_var.name == name:
            return colmap.get(f"{c.src}.{c.src_var.name}")
    return None


class SeabedTracking:
    """The altitude and navigation figures of one control stack driving vehicle `v` (see the
    module); `rows` takes the mission's rows only."""

    def __init__(self, plan: Plan, colmap: dict[str, int], c: str, v: str | None, dive_mode: str):
        self.c, self.v = c, v
        target = param(plan, c, "TargetAltitude") if dive_mode == "altitude" else None
        self.target = float(target) if isinstance(target, (int, float)) else None
        self.altitude = colmap.get(f"{v}.Altitude") if v and self.target is not None else None
        self.lock = _source_column(plan, colmap, c, "AltitudeValid") if self.altitude is not None else None
        self.altitude_error = RunningStats()
        self.lowest = np.inf
        self.locked = self.rows_seen = 0
        self.nav = [_source_column(plan, colmap, c, n) for n in ("NavNorth", "NavEast")]
        self.pos = [colmap.get(f"{v}.Pos[{i}]") for i in (1, 2)] if v else [None, None]
        self.has_nav = None not in self.nav and None not in self.pos
        self.navigation_error = RunningStats()

    def rows(self, mission: np.ndarray) -> None:
        if not len(mission):
            return
        if self.altitude is not None:
            altitude = mission[:, self.altitude]
            self.altitude_error.add(altitude - self.target)
            if np.isfinite(altitude).any():
                self.lowest = min(self.lowest, float(np.nanmin(altitude)))
            if self.lock is not None:
                self.locked += int(np.count_nonzero(mission[:, self.lock] > 0.5))
                self.rows_seen += len(mission)
        if self.has_nav:
            self.navigation_error.add(np.hypot(mission[:, self.nav[0]] - mission[:, self.pos[0]],
                                               mission[:, self.nav[1]] - mission[:, self.pos[1]]))

    def result(self) -> dict:
        out: dict[str, Any] = {}
        if self.altitude is not None and self.altitude_error.samples:
            out["altitude_error_m"] = self.altitude_error.result()
            out["altitude_error_definition"] = f"{self.v}.Altitude - {self.c}.TargetAltitude ({self.target:g} m)"
            out["lowest_altitude_m"] = rounded(self.lowest)
            if self.rows_seen:
                out["bottom_lock_fraction"] = rounded(self.locked / self.rows_seen, 4)
        if self.has_nav and self.navigation_error.samples:
            out["navigation_error_m"] = self.navigation_error.result()
        return out
