"""Mass properties and displacement of the cylindrical hull (seed 000 `HullPropertiesOf`,
`SubmergedFraction`)."""
import math
from typing import NamedTuple

from ...compiled.jit import jit


class HullProperties(NamedTuple):
    radius: float           # m
    volume: float           # m^3
    mass: float             # kg
    inertia_xx: float       # kg m^2
    inertia_yy: float       # kg m^2 (= inertia_zz)


def hull_properties_of(length: float, diameter: float, average_density: float) -> HullProperties:
    """Mass properties of a solid cylinder of uniform density.

    r = D/2, Vol = pi r^2 L, m = rho_avg Vol, Ixx = m r^2 / 2, Iyy = Izz = m (3 r^2 + L^2) / 12.
    """
    radius = diameter / 2.0
    volume = math.pi * radius ** 2 * length
    mass = average_density * volume
    return HullProperties(
        radius=radius,
        volume=volume,
        mass=mass,
        inertia_xx=mass * radius ** 2 / 2.0,
        inertia_yy=mass * (3.0 * radius ** 2 + length ** 2) / 12.0,
    )


@jit
def submerged_fraction(axis_depth, radius):
    """Submerged fraction of a horizontal cylinder whose axis lies `axis_depth` below the surface.

    A(d) = r^2 acos(-d/r) + d sqrt(r^2 - d^2), f = A / (pi r^2), clamped to [0, 1]:
    0, 1/2, 1 at d = -r, 0, r, and C1 (dA/dd = 2 sqrt(r^2 - d^2) vanishes at both ends).
    """
    if axis_depth <= -radius:
        return 0.0
    if axis_depth >= radius:
        return 1.0
    area = radius * radius * math.acos(-axis_depth / radius) + axis_depth * math.sqrt(
        radius * radius - axis_depth * axis_depth)
    return area / (math.pi * radius * radius)


@jit
def submerged_fraction_slope(axis_depth, radius):
    """df/dd = 2 sqrt(r^2 - d^2) / (pi r^2) inside the band |d| < r, zero outside."""
    if axis_depth <= -radius or axis_depth >= radius:
        return 0.0
    return 2.0 * math.sqrt(radius * radius - axis_depth * axis_depth) / (math.pi * radius * radius)
