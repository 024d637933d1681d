"""The H100's DVL over a bathymetry grid (auv_cosim/stacks/acoustic.py, shared with the survey
AUV's instruments): its altitude and bottom lock come from its four Janus beams, on a sloping
plane where the answers are exact; without a grid the instruments are what they were."""
import math

import numpy as np
import pytest

from auv_cosim.seabed import Seabed
from auv_cosim.seabed.beams import beam_range, janus_beams
from auv_cosim.stacks.acoustic import AcousticConfig
from auv_cosim.vehicles.h100.stack.instruments import H100Instruments, InstrumentConfig, Truth

H0, A, B = 50.0, 0.1, -0.05          # the seabed's depth = H0 + A north + B east


def _plane(cell=5.0, half=400.0):
    n = np.arange(-half, half + cell, cell)
    north, east = np.meshgrid(n, n, indexing="ij")
    return Seabed("plane.npz", 59.9, 10.7, -half, -half, cell, H0 + A * north + B * east)


def _over_plane(**config):
    instruments = H100Instruments(InstrumentConfig.noiseless(**config))
    instruments.dvl.seabed = _plane()                 # as JanusDvl loads a BathymetryFile
    return instruments


def _truth(pos, euler=(0.0, 0.0, 0.0), altitude=1.0e6):
    return Truth(pos=pos, euler=euler, local_vel=(0.3, 0.0, 0.0), depth=pos[2], altitude=altitude)


@pytest.mark.parametrize("euler", [(0.0, 0.0, 0.0), (0.05, -0.1, 1.2)])
def test_over_a_grid_the_dvl_reads_the_height_above_the_plane_of_its_beams(euler):
    inst = _over_plane(DvlRange=75.0)
    pos = (12.0, -30.0, 20.0)
    r = inst.initialize(_truth(pos, euler, altitude=999.0))      # the true Altitude input is not read
    assert r.dvl_valid and r.dvl_beams == 4
    assert r.altitude == pytest.approx(H0 + A * pos[0] + B * pos[1] - pos[2], abs=1e-6)
    assert r.velocity == [0.3, 0.0, 0.0]


def test_bottom_lock_holds_while_three_beams_are_in_range_and_is_lost_below_three():
    # level over the plane: the beams' slant ranges differ by the slope; DvlRange / cos(30 deg)
    # is the longest slant range that echoes
    inst = _over_plane(DvlRange=30.0)
    slant = 30.0 / math.cos(math.radians(30.0))
    counts = []
    for depth in np.arange(25.0, 15.0, -0.25):           # climbing: from no beam to every beam in range
        pos = (0.0, 0.0, depth)
        r = inst.sample(_truth(pos), 0.1)
        s = inst.dvl.seabed
        beams = janus_beams(np.eye(3), math.radians(30.0))
        expected = sum(beam_range(s.depth, s.north0, s.east0, s.cell, *pos, *d, 1.0e3) <= slant for d in beams)
        assert r.dvl_beams == expected
        assert r.dvl_valid == (expected >= 3)
        if r.dvl_valid:
            assert r.altitude == pytest.approx(H0 - depth, abs=1e-6)
        counts.append(r.dvl_beams)
    assert min(counts) < 3 and max(counts) == 4          # both sides of the lock were flown


def test_without_a_grid_the_instruments_are_what_they_were():
    config = InstrumentConfig(Seed=3)
    before, now = H100Instruments(config), H100Instruments(config, AcousticConfig())
    assert now.dvl.seabed is None
    for k in range(40):
        truth = _truth((0.1 * k, 0.0, 5.0), altitude=20.0 + 2.0 * k)   # beyond DvlRange (75 m) at the end
        a, b = before.sample(truth, 0.1), now.sample(truth, 0.1)
        assert vars(a) == vars(b) and b.dvl_beams == 4


def test_a_bad_beam_angle_or_file_is_refused_naming_it(tmp_path):
    with pytest.raises(ValueError, match="DvlBeamAngle"):
        H100Instruments(InstrumentConfig(), AcousticConfig(DvlBeamAngle=2.0))
    pytest.importorskip("pyproj", reason="the seabed extra (pyproj) is not installed")
    with pytest.raises(ValueError, match="BathymetryFile = .*nowhere.npz"):
        H100Instruments(InstrumentConfig(), AcousticConfig(BathymetryFile=str(tmp_path / "nowhere.npz")))
