"""The instruments: exact copies without noise, noise statistics, bias, lag, ranges, DVL
bottom lock, reproducibility, state save/restore."""
import json
import math

import numpy as np
import pytest

from auv_cosim.stacks.noise import NormalStream
from auv_cosim.vehicles.auv.stack.instruments import NOISE_CHANNELS, SensorConfig, SensorSuite, TruthInputs


def random_truth(rng):
    return TruthInputs(pos=tuple(rng.normal(0, 100, 3)),
                       euler=(rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-math.pi, math.pi)),
                       depth=float(rng.uniform(0, 50)), speed=float(rng.uniform(0, 2)),
                       altitude=float(rng.uniform(0, 30)), vel=tuple(rng.normal(0, 1, 3)))


def test_noiseless_instruments_are_exact_copies_bit_for_bit():
    rng = np.random.default_rng(3)
    s = SensorSuite(SensorConfig.noiseless(Seed=7))
    o = s.initialize(random_truth(rng))
    for _ in range(500):
        t = random_truth(rng)
        o = s.sample(t, 0.1)
        assert o.depth == t.depth
        assert (o.roll, o.pitch, o.heading) == tuple(t.euler)
        assert o.speed == t.speed
        assert o.altitude == t.altitude and o.altitude_valid
        assert (o.nav_north, o.nav_east) == (t.pos[0], t.pos[1])


def stats(config, truth, n=20000):
    s = SensorSuite(config)
    s.initialize(truth)
    rows = []
    for _ in range(n):
        o = s.sample(truth, 0.1)
        rows.append((o.depth, o.roll, o.pitch, o.heading, o.speed, o.altitude, o.nav_north, o.nav_east))
    return np.array(rows)


def test_noise_statistics_mean_std_and_bias():
    c = SensorConfig(Seed=11, DepthNoiseStd=0.05, DepthBias=0.2, DepthLag=0.0,
                     AttitudeNoiseStd=0.01, RollBias=0.02, PitchBias=-0.03,
                     HeadingNoiseStd=0.02, HeadingBias=0.05, AhrsLag=0.0,
                     SpeedNoiseStd=0.03, SpeedBias=-0.1, AltitudeNoiseStd=0.1, AltitudeBias=0.5,
                     DvlLag=0.0, NavNoiseStd=1.0, NavBiasNorth=2.0, NavBiasEast=-3.0, NavLag=0.0)
    truth = TruthInputs(pos=(10.0, 20.0, 5.0), euler=(0.1, -0.2, 1.0), depth=5.0, speed=1.5,
                        altitude=12.0)
    a = stats(c, truth)
    n = len(a)
    expected_mean = [5.2, 0.12, -0.23, 1.05, 1.4, 12.5, 12.0, 17.0]
    expected_std = [0.05, 0.01, 0.01, 0.02, 0.03, 0.1, 1.0, 1.0]
    for k, name in enumerate(NOISE_CHANNELS):
        mean, std = a[:, k].mean(), a[:, k].std(ddof=1)
        assert abs(mean - expected_mean[k]) < 4.5 * expected_std[k] / math.sqrt(n), name
        assert std == pytest.approx(expected_std[k], rel=0.03), name
    # white: no correlation between successive samples
    for k in range(len(NOISE_CHANNELS)):
        x = a[:, k] - a[:, k].mean()
        r1 = float(np.dot(x[1:], x[:-1]) / np.dot(x, x))
        assert abs(r1) < 4.5 / math.sqrt(n)
    # channels independent of each other
    corr = np.corrcoef(a.T)
    assert np.max(np.abs(corr - np.eye(len(NOISE_CHANNELS)))) < 4.5 / math.sqrt(n)


def test_bias_alone_is_a_constant_offset():
    c = SensorConfig.noiseless(DepthBias=0.3, HeadingBias=0.1, SpeedBias=0.05)
    s = SensorSuite(c)
    o = s.initialize(TruthInputs(depth=4.0, euler=(0, 0, 3.1), speed=1.0, altitude=3.0))
    assert o.depth == pytest.approx(4.3)
    assert o.heading == pytest.approx(3.2 - 2 * math.pi)      # wrapped into (-pi, pi]
    assert o.speed == pytest.approx(1.05)


def test_lag_step_response_exact():
    c = SensorConfig.noiseless(DepthLag=2.0)
    s = SensorSuite(c)
    s.initialize(TruthInputs(depth=10.0))
    for k in range(1, 30):
        o = s.sample(TruthInputs(depth=11.0), 0.1)
        assert o.depth == pytest.approx(10.0 + 1.0 - math.exp(-k * 0.1 / 2.0), abs=1e-12)


def test_heading_lag_across_north_is_the_short_way():
    c = SensorConfig.noiseless(AhrsLag=1.0)
    s = SensorSuite(c)
    s.initialize(TruthInputs(euler=(0.0, 0.0, math.radians(175))))
    hs = [s.sample(TruthInputs(euler=(0.0, 0.0, math.radians(-175))), 0.1).heading for _ in range(100)]
    assert all(-math.pi < h <= math.pi for h in hs)
    assert all(abs(h) > math.radians(170) for h in hs)           # never swings through 0
    assert hs[-1] == pytest.approx(math.radians(-175), abs=1e-4)


def test_ranges_clamp():
    c = SensorConfig.noiseless(DepthRange=50.0, AttitudeRange=0.5)
    s = SensorSuite(c)
    o = s.initialize(TruthInputs(depth=60.0, euler=(0.7, -0.9, 0.0)))
    assert o.depth == 50.0 and o.roll == 0.5 and o.pitch == -0.5
    o = s.sample(TruthInputs(depth=-0.2), 0.1)
    assert o.depth == 0.0


def test_dvl_bottom_lock_loss_holds_last_good_value():
    c = SensorConfig.noiseless(DvlRange=30.0)
    s = SensorSuite(c)
    o = s.initialize(TruthInputs(altitude=50.0))
    assert not o.altitude_valid and o.altitude == 0.0          # no lock yet
    o = s.sample(TruthInputs(altitude=25.0), 0.1)
    assert o.altitude_valid and o.altitude == 25.0
    o = s.sample(TruthInputs(altitude=29.5), 0.1)
    assert o.altitude_valid and o.altitude == 29.5
    for alt in (30.5, 45.0, math.inf, math.nan):
        o = s.sample(TruthInputs(altitude=alt), 0.1)
        assert not o.altitude_valid and o.altitude == 29.5     # held
    o = s.sample(TruthInputs(altitude=20.0), 0.1)
    assert o.altitude_valid and o.altitude == 20.0


def test_dvl_reacquisition_restarts_the_lag():
    c = SensorConfig.noiseless(DvlLag=5.0)
    s = SensorSuite(c)
    s.initialize(TruthInputs(altitude=10.0))
    s.sample(TruthInputs(altitude=100.0), 0.1)                  # lost
    o = s.sample(TruthInputs(altitude=3.0), 0.1)                # re-acquired far from 10
    assert o.altitude == 3.0


def run(config, n=300):
    rng = np.random.default_rng(5)
    s = SensorSuite(config)
    s.initialize(random_truth(rng))
    return [tuple(vars(s.sample(random_truth(rng), 0.1)).values()) for _ in range(n)]


def test_reproducible_bit_for_bit_with_a_seed():
    assert run(SensorConfig(Seed=42)) == run(SensorConfig(Seed=42))
    assert run(SensorConfig(Seed=42)) != run(SensorConfig(Seed=43))


def test_switching_one_channel_off_leaves_the_others_unchanged():
    a = np.array(run(SensorConfig(Seed=9)), dtype=float)
    b = np.array(run(SensorConfig(Seed=9, DepthNoiseStd=0.0)), dtype=float)
    assert not np.array_equal(a[:, 0], b[:, 0])
    np.testing.assert_array_equal(a[:, 1:], b[:, 1:])


def test_state_save_restore_includes_generator_and_filters():
    rng = np.random.default_rng(8)
    truths = [random_truth(rng) for _ in range(200)]
    s = SensorSuite(SensorConfig(Seed=3, DepthLag=0.5, AhrsLag=0.3, DvlLag=0.2, NavLag=0.4))
    s.initialize(truths[0])
    for t in truths[1:50]:
        s.sample(t, 0.1)
    saved = json.loads(json.dumps(s.get_state()))               # serialisable
    first = [vars(s.sample(t, 0.1)).copy() for t in truths[50:]]
    s.set_state(saved)
    second = [vars(s.sample(t, 0.1)).copy() for t in truths[50:]]
    assert first == second
    # and into a fresh suite of the same configuration
    fresh = SensorSuite(SensorConfig(Seed=3, DepthLag=0.5, AhrsLag=0.3, DvlLag=0.2, NavLag=0.4))
    fresh.set_state(saved)
    assert [vars(fresh.sample(t, 0.1)).copy() for t in truths[50:]] == first


def test_noise_drawn_in_blocks_is_the_noise_drawn_sample_by_sample():
    """The values, and the generator state saved after any number of samples (a block
    half handed out included), are those of one standard_normal(8) per sample."""
    stream = NormalStream(5, 8, samples_per_block=16)
    reference = np.random.Generator(np.random.PCG64(5))
    for k in range(40):       # two and a half blocks
        assert stream.take() == reference.standard_normal(8).tolist()
        assert stream.get_state() == reference.bit_generator.state, k
    saved = json.loads(json.dumps(stream.get_state()))
    ahead = [stream.take() for _ in range(20)]
    restored = NormalStream(99, 8, samples_per_block=16)
    restored.set_state(saved)
    assert [restored.take() for _ in range(20)] == ahead


@pytest.mark.parametrize("field, value", [("DepthNoiseStd", -0.1), ("AhrsLag", -1.0),
                                          ("DvlRange", 0.0), ("Seed", -1), ("HeadingBias", math.nan)])
def test_bad_parameters_are_named(field, value):
    with pytest.raises(ValueError, match=field):
        SensorSuite(SensorConfig(**{field: value}))


def test_nan_input_is_named_and_nothing_advances():
    s = SensorSuite(SensorConfig(Seed=1))
    s.initialize(TruthInputs())
    before = s.get_state()
    with pytest.raises(ValueError, match=r"Euler\[3\]"):
        s.sample(TruthInputs(euler=(0.0, 0.0, math.nan)), 0.1)
    assert s.get_state() == before
