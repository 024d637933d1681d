"""The coverage's swath over terrain (auv_cosim/analyses/coverage.py, `terrain_half_widths`)."""
from __future__ import annotations

import math

import numpy as np
import pytest


def test_over_terrain_the_swath_edges_follow_the_grid():
    """Over a flat grid the terrain edges are the flat model's (to the march step); over a seabed
    rising to starboard the starboard edge comes in (the beam meets the slope sooner) and the
    port edge goes out."""
    from auv_cosim.analyses.coverage import swath_half_width, terrain_half_widths
    from auv_cosim.seabed import Seabed

    flat = Seabed("flat", 0.0, 0.0, -500.0, -500.0, 1.0, np.full((1001, 1001), 60.0))
    north, east, heading = np.array([0.0, 10.0]), np.zeros(2), np.zeros(2)
    depth = np.array([20.0, 30.0])            # altitudes 40 and 30
    port, starboard = terrain_half_widths(north, east, depth, heading, 30.0, 100.0, flat, step=0.1)
    expected = swath_half_width(60.0 - depth, 30.0, 100.0)
    assert port == pytest.approx(expected, abs=0.11) and starboard == pytest.approx(expected, abs=0.11)
    e = np.arange(-500.0, 501.0)
    sloped = Seabed("sloped", 0.0, 0.0, -500.0, -500.0, 1.0, np.tile(60.0 - 0.3 * e, (1001, 1)))
    port, starboard = terrain_half_widths(north, east, depth, heading, 30.0, 100.0, sloped, step=0.1)
    # the starboard edge at s: s = (40 - 0.3 s) tan 30  ->  s = 40 tan 30 / (1 + 0.3 tan 30)
    t = math.tan(math.radians(30.0))
    assert starboard[0] == pytest.approx(40.0 * t / (1 + 0.3 * t), abs=0.11)
    assert port[0] == pytest.approx(40.0 * t / (1 - 0.3 * t), abs=0.11)
