"""Parameters: defaults, derived sections, and errors that name the parameter."""
import math

import pytest

from auv_cosim.vehicles.auv import (
    AuvParameters,
    authority_check_cruise_speed,
    dive_authority_warning,
    initial_state,
)
from auv_cosim.vehicles import Environment


def test_sections_default_to_thirds_of_the_hull_and_follow_length():
    p = AuvParameters()
    assert p.section_x == pytest.approx((2 / 3, 0.0, -2 / 3))
    assert p.section_length == pytest.approx((2 / 3,) * 3)
    assert p.section_diameter == (0.2, 0.2, 0.2)
    q = AuvParameters(Length=3.0, Diameter=0.3)
    assert q.section_x == pytest.approx((1.0, 0.0, -1.0))
    assert q.section_diameter == (0.3, 0.3, 0.3)
    r = AuvParameters(SectionDiameter=(0.2, 0.2, 0.15))
    assert r.section_diameter == (0.2, 0.2, 0.15) and r.section_x == pytest.approx(p.section_x)


@pytest.mark.parametrize("name, value", [
    ("Length", -1.0), ("Length", 0.0), ("Diameter", 0.0), ("AverageDensity", -5.0),
    ("Rho", 0.0), ("Length", float("nan")), ("Rho", float("inf")), ("MaxPropulsionPower", -1.0),
    ("RudderAoaMax", 2.0), ("RudderArea", -0.1), ("InitialBattery", -1.0), ("Diameter", 3.0),
])
def test_bad_scalars_are_refused_naming_the_parameter(name, value):
    with pytest.raises(ValueError, match=name):
        AuvParameters(**{name: value})


@pytest.mark.parametrize("name, value", [
    ("SectionX", (0.0, 0.5, -0.5)),            # not ordered bow to stern
    ("SectionX", (2.0, 0.0, -0.6)),            # outside the hull
    ("SectionLength", (0.6, -0.1, 0.6)),
    ("SectionDiameter", (0.2, 0.0, 0.2)),
    ("RudderPos", (-3.0, 0.0, 0.0)),           # fins off the hull
    ("COG", (0.0, 0.0, 0.5)),                  # outside the hull radius
    ("COG", (0.0, 0.0)),                       # wrong size
    ("AddedMass", (3.2, 58, 58, 0.1, 19, -1)),
    ("COG", (0.0, float("nan"), 0.0)),
])
def test_bad_geometry_is_refused_naming_the_parameter(name, value):
    with pytest.raises(ValueError, match=name):
        AuvParameters(**{name: value})


def test_bad_environment_and_initial_state():
    with pytest.raises(ValueError, match="Gravity"):
        Environment(Gravity=0.0)
    with pytest.raises(ValueError, match="CurrentVelocity"):
        Environment(CurrentVelocity=(0.1, float("nan"), 0.0))
    with pytest.raises(ValueError, match="Quater0"):
        initial_state(Quater0=(0, 0, 0, 0))
    with pytest.raises(ValueError, match="Pos0"):
        initial_state(Pos0=(0, float("nan"), 0))
    assert initial_state(Quater0=(2, 0, 0, 0))[3] == 1.0     # normalised


def test_dive_authority_check():
    p = AuvParameters()
    assert authority_check_cruise_speed(p) == pytest.approx(1.495, abs=0.001)
    assert dive_authority_warning(p) is None
    heavy_keel = AuvParameters(COG=(0.0, 0.0, 0.09), RudderArea=0.004)
    text = dive_authority_warning(heavy_keel, name="auv1")
    assert text is not None and "auv1" in text
    assert "DiveAngleForAuthorityCheck" in text and "cruise speed" in text
    assert dive_authority_warning(heavy_keel.replace(DiveAngleForAuthorityCheck=0.0)) is None
    # the boundary: fin moment equal to the righting moment warns
    speed = authority_check_cruise_speed(p)
    fin = p.RudderArea * 0.5 * p.Rho * speed ** 2 * p.RudderClMax * 0.85
    mass = p.AverageDensity * math.pi * 0.01 * 2.0
    cog_z = fin / (mass * 9.81 * math.sin(p.DiveAngleForAuthorityCheck))
    assert cog_z < 0.1
    assert dive_authority_warning(p.replace(COG=(0.0, 0.0, cog_z * 1.001))) is not None
    assert dive_authority_warning(p.replace(COG=(0.0, 0.0, cog_z * 0.999))) is None
