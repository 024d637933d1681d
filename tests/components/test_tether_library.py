"""The tether library's plain parts: the frames, the configuration's checks, MoorDyn's input file."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.components.tether.config import TetherConfig
from auv_cosim.components.tether.frames import attachment_point, moordyn_to_ned, ned_to_moordyn
from auv_cosim.components.tether.moordyn_file import current_text, input_text
from auv_cosim.vehicles.rotation import quaternion_from_euler, rotation_matrix


def test_ned_to_moordyn_is_a_half_turn_about_north_and_its_own_inverse():
    columns = np.array([ned_to_moordyn(e) for e in np.eye(3)]).T
    assert np.linalg.det(columns) == pytest.approx(1.0)          # a rotation, not a mirror
    assert ned_to_moordyn((1.0, 2.0, 3.0)) == (1.0, -2.0, -3.0)   # depth 3 m is MoorDyn's z = -3
    assert moordyn_to_ned(ned_to_moordyn((0.3, -4.0, 7.5))) == (0.3, -4.0, 7.5)


def test_the_attachment_point_is_the_rigid_body_kinematics():
    """Against the vehicles' rotation matrix: P = O + R r, v_P = v_O + R (omega x r)."""
    q = np.asarray(quaternion_from_euler(0.2, -0.4, 2.5))
    r = rotation_matrix(q)
    pos, vel, omega, offset = np.array([1.0, 2, 3]), np.array([0.5, -0.1, 0.2]), np.array([0.1, -0.3, 0.7]), \
        np.array([0.25, -0.1, 0.15])
    point, velocity, lever = attachment_point(pos, vel, q, omega, offset)
    assert point == pytest.approx(pos + r @ offset, abs=1e-14)
    assert velocity == pytest.approx(vel + r @ np.cross(omega, offset), abs=1e-14)
    assert lever == pytest.approx(r @ offset, abs=1e-14)


@pytest.mark.parametrize("field, value, words", [
    ("SegmentCount", 0, "SegmentCount = 0"), ("Length", -1.0, "Length = -1.0"),
    ("Diameter", float("nan"), "Diameter"), ("NormalDragCoeff", -0.1, "NormalDragCoeff"),
    ("AnchorPos", (0.0, 0.0, 2000.0), "AnchorPos[3]"), ("CurrentVelocity", (0.0, 1e13, 0.0), "CurrentVelocity[2]"),
])
def test_a_bad_configuration_is_refused_by_name(field, value, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        TetherConfig(**{field: value})


def test_the_input_file_carries_the_parameters_in_moordyns_frame():
    config = TetherConfig(Length=35.0, SegmentCount=7, TimeStep=0.004, WaterDepth=60.0,
                          CurrentVelocity=(0.2, 0.1, 0.0))
    text = input_text(config, ned_to_moordyn((0.0, 0.0, 0.5)), ned_to_moordyn((20.0, 5.0, 10.0)))
    assert "1 Coupled 0.0 -0.0 -0.5 0 0 0 0" in text and "2 Coupled 20.0 -5.0 -10.0 0 0 0 0" in text
    assert "1 tether 1 2 35.0 7 -" in text and "0.004 dtM" in text and "60.0 WtrDpth" in text
    assert "1 Currents" in text
    assert "0.0 0.2 -0.1 -0.0" in current_text(config)          # east current: MoorDyn's -y
    assert "0 Currents" in input_text(TetherConfig(), (0, 0, 0), (1, 0, 0))


def test_the_wet_weight_is_mass_less_displaced_water():
    config = TetherConfig(MassPerLength=0.8, Diameter=0.02, Rho=1025.0, Gravity=9.81)
    assert config.wet_weight_per_length() == pytest.approx((0.8 - 1025.0 * math.pi * 1e-4) * 9.81)
