"""The fin's section coefficients (seed 000 `AuvFoil`): odd, pi-periodic lift with its peak
`RudderClMax` at `RudderAoaMax`, C1 through the stall; induced-drag polar."""
import math

from ...compiled.jit import jit


@jit
def _wrap_half_turn(alpha):
    """alpha folded into [-pi/2, pi/2]: a thin plate's lift repeats every half turn."""
    return alpha - math.pi * math.floor(alpha / math.pi + 0.5)


@jit
def lift_coefficient(alpha, cl_max, aoa_max):
    """Cl(alpha), with alpha folded into [-pi/2, pi/2]:

    below the stall (|alpha| <= aoa_max):  Cl = cl_max sin(pi/2 alpha / aoa_max)
    beyond it:                              Cl = sign(alpha) cl_max (1 - s^2),
                                            s = (|alpha| - aoa_max) / (pi/2 - aoa_max)
    Both branches meet at aoa_max with value cl_max and slope zero, and the lift is zero with
    matching slopes at +-pi/2, so Cl is C1 everywhere.
    """
    a = _wrap_half_turn(alpha)
    magnitude = abs(a)
    if magnitude <= aoa_max:
        return cl_max * math.sin(0.5 * math.pi * a / aoa_max)
    s = (magnitude - aoa_max) / (0.5 * math.pi - aoa_max)
    return math.copysign(cl_max * (1.0 - s * s), a)


@jit
def lift_slope(alpha, cl_max, aoa_max):
    """dCl/dalpha of `lift_coefficient`."""
    a = _wrap_half_turn(alpha)
    magnitude = abs(a)
    if magnitude <= aoa_max:
        return cl_max * 0.5 * math.pi / aoa_max * math.cos(0.5 * math.pi * a / aoa_max)
    span = 0.5 * math.pi - aoa_max
    s = (magnitude - aoa_max) / span
    return -2.0 * cl_max * s / span


@jit
def drag_coefficient(lift, cd0, aspect_ratio, oswald):
    """Cd = Cd0 + Cl^2 / (pi AR e)."""
    return cd0 + lift * lift / (math.pi * aspect_ratio * oswald)
