"""Acoustic beams against the seabed: where a beam from the vehicle meets the grid.

A beam leaves the point p (NED, m) along the unit vector d (NED); it meets the seabed at the
first slant range r > 0 where

    g(r) = p_D + r d_D - h(p_N + r d_N, p_E + r d_E) = 0       (h the seabed's depth)

Solved by Newton's method from the flat-seabed estimate r0 = (h(p) - p_D) / d_D, with
g'(r) = d_D - (dh/dN d_N + dh/dE d_E) from the grid's C1 bicubic gradient: a few iterations on
a seabed that is smooth on the scale of the footprint (a beam that grazes a steep slope may
find a farther crossing than the first; a grid is a smooth surface here, not a cliff). No
crossing within the instrument's range, a beam pointing up, or a point off the grid: NaN (no
echo).

A Doppler log in the Janus configuration has four beams tilted by the same angle from the
body's z axis, at azimuths 45, 135, 225 and 315 degrees about it (`janus_beams`). Its altitude
is the height of the vehicle above the plane through the points its beams hit (least squares
through four, exact through three), measured along the vertical: what a DVL reports as
altitude over a sloping seabed, and the depth below the vehicle on a flat one.
"""
from __future__ import annotations

import math

import numpy as np

from ..compiled.jit import jit
from .terrain import seabed_depth

#: Newton iterations at most, and the range change (m) that ends them
ITERATIONS = 12
TOLERANCE = 1e-6


@jit
def beam_range(depth, north0, east0, cell, pn, pe, pd, dn, de, dd, max_range):
    """Slant range (m) from (pn, pe, pd) along the unit vector (dn, de, dd) to the seabed of
    the NED grid `depth` (`auv_cosim.seabed.terrain.seabed_depth`'s arguments); NaN without an
    echo within max_range (see the module)."""
    if not dd > 1e-6:
        return np.nan
    h, _, _ = seabed_depth(depth, north0, east0, cell, pn, pe)
    r = (h - pd) / dd
    if not r > 0.0:      # at or below the seabed, or off the grid
        return np.nan
    for _ in range(ITERATIONS):
        h, hn, he = seabed_depth(depth, north0, east0, cell, pn + r * dn, pe + r * de)
        slope = dd - (hn * dn + he * de)
        if not (math.isfinite(h) and slope > 1e-9):
            return np.nan
        step = (pd + r * dd - h) / slope
        r -= step
        if abs(step) < TOLERANCE:
            break
    if not (0.0 < r <= max_range):
        return np.nan
    return r


@jit
def janus_beams(rotation, tilt):
    """The four beams' unit vectors in NED (rows), tilted by `tilt` (rad) from the body's z axis
    at azimuths 45, 135, 225, 315 degrees; `rotation` body to NED."""
    out = np.empty((4, 3))
    s, c = math.sin(tilt), math.cos(tilt)
    for k in range(4):
        azimuth = math.pi / 4.0 + k * math.pi / 2.0
        b0, b1, b2 = s * math.cos(azimuth), s * math.sin(azimuth), c
        for i in range(3):
            out[k, i] = rotation[i, 0] * b0 + rotation[i, 1] * b1 + rotation[i, 2] * b2
    return out


@jit
def plane_altitude(pn, pe, pd, ranges, beams):
    """The height (m) of (pn, pe, pd) above the plane through the beams' hit points
    pos + r_k d_k (those with a range, at least three; least squares on depth = a + b north + c
    east), along the vertical; NaN with fewer than three."""
    m = np.zeros((3, 3))
    v = np.zeros(3)
    count = 0
    for k in range(ranges.shape[0]):
        r = ranges[k]
        if not math.isfinite(r):
            continue
        hn, he, hd = pn + r * beams[k, 0], pe + r * beams[k, 1], pd + r * beams[k, 2]
        row = (1.0, hn - pn, he - pe)          # about the vehicle: the plane's value there is a
        for i in range(3):
            v[i] += row[i] * hd
            for j in range(3):
                m[i, j] += row[i] * row[j]
        count += 1
    if count < 3:
        return np.nan
    return _first_of_solution(m, v) - pd


@jit
def _first_of_solution(m, v):
    """x[0] of the 3 x 3 system m x = v by Cramer's rule (NaN when m is singular: the hit
    points on one line). Written out rather than numpy.linalg.solve, whose compilation (numba's
    LAPACK bindings) took a fresh process about 20 s for one 3 x 3 system."""
    det = (m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
           - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
           + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))
    if det == 0.0:
        return np.nan
    det0 = (v[0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
            - m[0, 1] * (v[1] * m[2, 2] - m[1, 2] * v[2])
            + m[0, 2] * (v[1] * m[2, 1] - m[1, 1] * v[2]))
    return det0 / det
