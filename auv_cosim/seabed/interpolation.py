"""C1-smooth interpolation on a regular grid: bicubic Catmull-Rom, value and gradient.

Why Catmull-Rom: it is the cubic Hermite interpolant whose node slopes are the central
differences of the neighbours, so the surface passes through every node, its slope is
continuous across cell edges (C1: the integrator never meets a kink, which bilinear
interpolation would put at every cell edge) and it reproduces quadratics exactly (error
O(h^3) on a smooth seabed). It needs the 4 x 4 nodes around the cell and nothing else: no
global system to solve at start-up, and a hole (NaN) spoils only the cells next to it.

For a fraction t in [0, 1) of the cell between nodes f1 and f2 (f0, f3 the outer neighbours)

    f(t) = w0 f0 + w1 f1 + w2 f2 + w3 f3
    w0 = (-t^3 + 2t^2 - t)/2,  w1 = (3t^3 - 5t^2 + 2)/2,
    w2 = (-3t^3 + 4t^2 + t)/2, w3 = (t^3 - t^2)/2

and f'(t) uses the derivatives of the weights. In two dimensions the weights multiply (tensor
product). A point whose 4 x 4 stencil leaves the array or holds a NaN gets NaN: the caller
turns that into a named error (`auv_cosim.seabed.errors.OffGridError`).
"""
from __future__ import annotations

import numpy as np

from ..compiled.jit import jit, jit_inlined


@jit_inlined
def catmull_rom_weights(t):
    """The four weights of Catmull-Rom at fraction t of the cell (see the module)."""
    t2 = t * t
    t3 = t2 * t
    return (0.5 * (-t3 + 2.0 * t2 - t), 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0),
            0.5 * (-3.0 * t3 + 4.0 * t2 + t), 0.5 * (t3 - t2))


@jit_inlined
def catmull_rom_slopes(t):
    """d(weights)/dt: the weights of the slope (per cell) at fraction t."""
    t2 = t * t
    return (0.5 * (-3.0 * t2 + 4.0 * t - 1.0), 0.5 * (9.0 * t2 - 10.0 * t),
            0.5 * (-9.0 * t2 + 8.0 * t + 1.0), 0.5 * (3.0 * t2 - 2.0 * t))


@jit
def bicubic(values, u, v):
    """(f, df/du, df/dv) at fractional index (u, v) of `values` (u along the rows, the first
    index; v along the columns), the slopes per index step. NaN when the 4 x 4 stencil of
    nodes leaves the array or holds a NaN (a hole)."""
    nan = np.nan
    if not (u >= 1.0 and v >= 1.0):          # also catches a NaN u or v
        return nan, nan, nan
    i = int(np.floor(u))
    j = int(np.floor(v))
    if i + 2 >= values.shape[0] or j + 2 >= values.shape[1]:
        return nan, nan, nan
    wu = catmull_rom_weights(u - i)
    du = catmull_rom_slopes(u - i)
    wv = catmull_rom_weights(v - j)
    dv = catmull_rom_slopes(v - j)
    f = 0.0
    fu = 0.0
    fv = 0.0
    for a in range(4):
        row = 0.0
        row_v = 0.0
        for b in range(4):
            x = values[i - 1 + a, j - 1 + b]
            row += wv[b] * x
            row_v += dv[b] * x
        f += wu[a] * row
        fu += du[a] * row
        fv += wu[a] * row_v
    return f, fu, fv                         # a NaN node makes all three NaN


@jit
def bicubic_many(values, u, v, out):
    """`bicubic`'s value at each of the points (u[k], v[k]) into out[k] (NaN off the grid)."""
    for k in range(u.shape[0]):
        out[k] = bicubic(values, u[k], v[k])[0]
    return out
