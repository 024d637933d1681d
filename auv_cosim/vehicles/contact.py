"""The seabed is solid: the contact force that stops a vehicle reaching it.

A vehicle whose lowest point (each vehicle says where it is: the AUV's keel, the body origin's
depth plus its radius; the H100's frame bottom, its centre of buoyancy's depth plus half its
height) goes below the seabed meets a penalty force along the seabed's upward normal:

    n = (dh/dN, dh/dE, -1) / sqrt(1 + |grad h|^2)         (NED, h the seabed's depth)
    delta = (z + r - h(N, E)) / sqrt(1 + |grad h|^2)       penetration along the normal, m
    rate  = -n . v_ned                                     how fast it goes deeper in, m/s
    F = K ramp(delta) + C rate step(delta)                 along n, N

with ramp(d) = d^2 / (2 e) below the soft layer e and d - e/2 beyond it, and step the
smoothstep 3 s^2 - 2 s^3 of s = d / e (1 beyond it). Why this shape: a spring-damper on the
penetration stops the vehicle within millimetres (K is stiff against the few tens of newtons a
vehicle is heavier or lighter than the water), and both terms grow from zero with a continuous
slope at first contact, so an adaptive integrator meets no kink (a plain K max(delta, 0) would
put one there). The damping C is near critical for a vehicle of tens of kilograms on K, so the
vehicle comes to rest on the seabed rather than bouncing off it (leaving it fast, the damping
may pull for the last millimetres: the price of no kink). The force acts at the body
origin (no moment: the hull is taken to touch at the point under it) and is zero, not even
added, while the vehicle is clear of the seabed: every run that never touches it stays bit for
bit what it was. Off a bathymetry grid the seabed's depth is NaN and no contact is computed (the
vehicle's outputs then fail the step, naming the position).
"""
from __future__ import annotations

import math

from ..compiled.jit import jit
from .bathymetry import grid_shallowest, seabed_under

#: N/m: the spring of the penalty (10 N of net weight rests about 1 mm into the seabed)
STIFFNESS = 2.0e4
#: N s/m: its damping, about critical for 60 kg on STIFFNESS (2 sqrt(K m) = 2.2e3)
DAMPING = 2.0e3
#: m: the soft layer over which the force's slope grows from zero
SOFT_LAYER = 0.01


@jit
def seabed_normal(slope_north, slope_east):
    """(n_N, n_E, n_D, s): the seabed's upward unit normal in NED and s = sqrt(1 + |grad h|^2)."""
    s = math.sqrt(1.0 + slope_north * slope_north + slope_east * slope_east)
    return slope_north / s, slope_east / s, -1.0 / s, s


@jit
def contact_ramp(delta):
    """ramp(delta) (m) of the module: 0 above the seabed, C1 at first contact."""
    if delta <= 0.0:
        return 0.0
    if delta < SOFT_LAYER:
        return delta * delta / (2.0 * SOFT_LAYER)
    return delta - 0.5 * SOFT_LAYER


@jit
def contact_step(delta):
    """step(delta) of the module: 0 above the seabed, 1 beyond the soft layer, C1 between."""
    if delta <= 0.0:
        return 0.0
    if delta >= SOFT_LAYER:
        return 1.0
    s = delta / SOFT_LAYER
    return s * s * (3.0 - 2.0 * s)


@jit
def penetration(lowest_depth, seabed_depth, slope_north, slope_east):
    """delta (m) of the module: how far the lowest point is below the seabed, along its normal
    (negative: clear of it; NaN off a grid)."""
    return (lowest_depth - seabed_depth) / seabed_normal(slope_north, slope_east)[3]


@jit
def contact_force_ned(lowest_depth, vel_ned, seabed_depth, slope_north, slope_east):
    """(F_N, F_E, F_D, g, n_N, n_E, n_D): the contact force (N, NED) on a vehicle whose lowest
    point is at `lowest_depth` moving at `vel_ned`, g = C step(delta) the damping gain (N s/m:
    the force's derivative against the velocity is -g n n^T) and n the normal. Zeros clear of
    the seabed."""
    delta = penetration(lowest_depth, seabed_depth, slope_north, slope_east)
    if not delta > 0.0:                  # clear of it, or off the grid (NaN)
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    nn, ne, nd, _ = seabed_normal(slope_north, slope_east)
    rate = -(nn * vel_ned[0] + ne * vel_ned[1] + nd * vel_ned[2])
    gain = DAMPING * contact_step(delta)
    force = STIFFNESS * contact_ramp(delta) + gain * rate
    return force * nn, force * ne, force * nd, gain, nn, ne, nd


@jit
def in_contact(lowest_depth, seabed_depth):
    """Whether the lowest point is below the seabed (the output SeabedContact)."""
    return lowest_depth > seabed_depth


@jit
def seabed_contact(north, east, lowest_depth, vel_ned, c, at, plane_depth, plane_slope):
    """`contact_force_ned` against the vehicle's seabed: the grid packed at c[at:] when at > 0
    (`auv_cosim.vehicles.bathymetry`; looked up only where the lowest point is deeper than the
    grid's shallowest node), else the plane plane_depth + plane_slope . (north, east)."""
    if at > 0 and lowest_depth < grid_shallowest(c, at):
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    depth, slope_north, slope_east = seabed_under(north, east, c, at, plane_depth, plane_slope)
    return contact_force_ned(lowest_depth, vel_ned, depth, slope_north, slope_east)

