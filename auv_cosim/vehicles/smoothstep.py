"""The smoothstep 3 t^2 - 2 t^3: the one C1 ramp from 0 to 1 the physics uses where a quantity
must switch on without a kink an adaptive integrator would have to resolve (the H100's
submerged fraction at the surface, a wake's start and end: auv_cosim.vehicles.wake)."""
from ..compiled.jit import jit


@jit
def smoothstep(t):
    """3 t^2 - 2 t^3 for 0 < t < 1, 0 below, 1 above: value and slope continuous, the slope
    zero at both ends."""
    if t <= 0.0:
        return 0.0
    if t >= 1.0:
        return 1.0
    return t * t * (3.0 - 2.0 * t)


@jit
def smoothstep_slope(t):
    """d smoothstep / dt = 6 t (1 - t) for 0 < t < 1, else 0."""
    if t <= 0.0 or t >= 1.0:
        return 0.0
    return 6.0 * t * (1.0 - t)
