"""The start-up dive-authority check of seed 001."""
import math
from typing import Optional

from .forces import drag_per_speed_squared, frontal_area
from .hull import hull_properties_of

#: The design cruise point of seed 001's parameter set: 30 W of the 120 W maximum.
CRUISE_POWER_FRACTION = 0.25


def authority_check_cruise_speed(params) -> float:
    """The forward speed the check assumes: where the hull drag 1/2 rho A_f C_d u^2 balances the
    thrust of a quarter of MaxPropulsionPower (seed 001's 30 W of 120 W, giving 1.5 m/s)."""
    thrust = params.ThrustPerPower * CRUISE_POWER_FRACTION * params.MaxPropulsionPower
    drag = drag_per_speed_squared(params.Rho, frontal_area(params.Diameter), params.AxialDragCoeff)
    if drag <= 0.0:
        return math.inf
    return math.sqrt(thrust / drag)


def dive_authority_warning(params, gravity: float = 9.81, name: str = "vehicle") -> Optional[str]:
    """The warning text when the fins cannot overcome the righting moment at the design dive
    angle, else None:

        RudderArea q_dyn RudderClMax |x_fin| <= m g |COG_z| sin(DiveAngleForAuthorityCheck)

    with q_dyn = 1/2 Rho u^2 at `authority_check_cruise_speed`. A necessary condition only: it
    uses the peak lift coefficient, so it never warns about a vehicle that can dive.
    """
    dive_angle = params.DiveAngleForAuthorityCheck
    if dive_angle <= 0.0:
        return None
    speed = authority_check_cruise_speed(params)
    mass = hull_properties_of(params.Length, params.Diameter, params.AverageDensity).mass
    fin_moment = (params.RudderArea * 0.5 * params.Rho * speed ** 2 * params.RudderClMax
                  * abs(params.RudderPos[0]))
    righting_moment = mass * gravity * abs(params.COG[2]) * math.sin(dive_angle)
    if fin_moment > righting_moment:
        return None
    return (
        f"{name}: the fins cannot dive this vehicle: their peak moment {fin_moment:.3g} N m "
        f"(RudderArea {params.RudderArea} m2 at x = {params.RudderPos[0]} m, RudderClMax "
        f"{params.RudderClMax}) does not exceed the righting moment {righting_moment:.3g} N m "
        f"(m g |COG_z| sin(dive angle)). Assumptions: a dive angle of {dive_angle} rad "
        f"(DiveAngleForAuthorityCheck, the dive controller's default; set it to 0 to silence "
        f"this check) and a cruise speed of {speed:.3g} m/s (the hull drag balancing the thrust "
        f"of a quarter of MaxPropulsionPower = {params.MaxPropulsionPower} W)."
    )
