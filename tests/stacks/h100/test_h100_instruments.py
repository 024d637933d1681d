"""The H100's instruments: exact copies of the truth without noise, seeded noise of the stated
size, bottom-lock loss, the USBL's rate, latency and range, state restore."""
import math

import numpy as np
import pytest

from auv_cosim.vehicles.h100.stack.instruments import H100Instruments, InstrumentConfig, Truth


def _truth(t=0.0):
    return Truth(pos=(1.0 + 0.1 * t, -2.0, 5.0 + 0.01 * t), euler=(0.01, -0.02, 3.1 + 0.01 * t),
                 omega=(0.001, 0.002, 0.01), specific_force=(0.1, 0.0, -9.82),
                 local_vel=(0.1, 0.0, 0.01), depth=5.0 + 0.01 * t, altitude=20.0 - 0.01 * t)


def test_noiseless_instruments_read_the_truth_exactly():
    inst = H100Instruments(InstrumentConfig.noiseless())
    inst.initialize(_truth(0.0))
    for k in range(1, 30):
        truth = _truth(0.1 * k)
        r = inst.sample(truth, 0.1)
        assert r.euler == [truth.euler[0], truth.euler[1], math.remainder(truth.euler[2], 2 * math.pi)]
        assert r.omega == list(truth.omega) and r.specific_force == list(truth.specific_force)
        assert r.velocity == list(truth.local_vel) and r.depth == truth.depth
        assert r.altitude == truth.altitude and r.dvl_valid
    # with zero latency each ping is delivered at once: the last one is the truth at 2.0 s
    assert r.usbl == list(_truth(2.0).pos) and r.usbl_fix_time == pytest.approx(2.0)


def test_heading_is_wrapped_across_pi():
    inst = H100Instruments(InstrumentConfig.noiseless(ImuLag=0.5))
    inst.initialize(Truth(euler=(0.0, 0.0, 3.1)))
    r = inst.sample(Truth(euler=(0.0, 0.0, -3.1)), 0.1)   # crossed +-pi: lag the short way round
    assert abs(r.euler[2]) > 3.09


def test_noise_has_the_configured_size_and_is_reproducible():
    def run(seed):
        inst = H100Instruments(InstrumentConfig(Seed=seed, DepthLag=0.0, DvlLag=0.0, ImuLag=0.0))
        inst.initialize(_truth())
        return np.array([[inst.sample(_truth(), 0.1).depth, inst.out.velocity[0], inst.out.omega[2]]
                         for _ in range(4000)])
    a, b, c = run(3), run(3), run(4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    config = InstrumentConfig()
    assert np.std(a[:, 0]) == pytest.approx(config.DepthNoiseStd, rel=0.1)
    assert np.std(a[:, 1]) == pytest.approx(config.DvlNoiseStd, rel=0.1)
    assert np.std(a[:, 2]) == pytest.approx(config.GyroNoiseStd, rel=0.1)


def test_dvl_loses_bottom_lock_beyond_its_range_and_holds_its_last_values():
    inst = H100Instruments(InstrumentConfig.noiseless(DvlRange=30.0))
    inst.initialize(Truth(local_vel=(0.2, 0.0, 0.0), altitude=10.0))
    lost = inst.sample(Truth(local_vel=(0.5, 0.0, 0.0), altitude=40.0), 0.1)
    assert not lost.dvl_valid and lost.velocity == [0.2, 0.0, 0.0] and lost.altitude == 10.0
    back = inst.sample(Truth(local_vel=(0.5, 0.0, 0.0), altitude=12.0), 0.1)
    assert back.dvl_valid and back.velocity == [0.5, 0.0, 0.0] and back.altitude == 12.0


def test_usbl_period_latency_and_fix_time():
    config = InstrumentConfig.noiseless(UsblPeriod=1.0, UsblLatency=0.5)
    inst = H100Instruments(config)
    first = inst.initialize(_truth(0.0))
    assert first.usbl_fix_count == 1 and first.usbl == list(_truth(0.0).pos)   # the known launch point
    deliveries = []
    for k in range(1, 41):
        r = inst.sample(_truth(0.1 * k), 0.1)
        if r.usbl_fix_count != (deliveries[-1][1] if deliveries else 1):
            deliveries.append((round(0.1 * k, 6), r.usbl_fix_count, r.usbl_fix_time, list(r.usbl)))
    # pings at 1, 2, 3 s, each delivered 0.5 s later and describing the ping's instant
    assert [d[0] for d in deliveries] == [1.5, 2.5, 3.5]
    for when, _, fix_time, fix in deliveries:
        assert fix_time == pytest.approx(when - 0.5)
        np.testing.assert_allclose(fix, _truth(fix_time).pos, atol=1e-12)


def test_usbl_noise_grows_with_slant_range_and_stops_beyond_range():
    def spread(pos, **kw):
        inst = H100Instruments(InstrumentConfig(UsblPeriod=0.1, UsblLatency=0.0, **kw))
        inst.initialize(Truth(pos=pos))
        return np.std([inst.sample(Truth(pos=pos), 0.1).usbl[0] for _ in range(3000)])
    near, far = spread((0.0, 0.0, 5.0)), spread((300.0, 0.0, 5.0))
    c = InstrumentConfig()
    assert near == pytest.approx(c.UsblNoiseStd + 5.0 * c.UsblRangeNoise, rel=0.1)
    assert far == pytest.approx(c.UsblNoiseStd + math.hypot(300.0, 5.0) * c.UsblRangeNoise, rel=0.1)
    inst = H100Instruments(InstrumentConfig(UsblRange=100.0))
    inst.initialize(Truth(pos=(200.0, 0.0, 5.0)))
    for _ in range(30):
        r = inst.sample(Truth(pos=(200.0, 0.0, 5.0)), 0.1)
    assert r.usbl_fix_count == 1     # only the launch fix


def test_state_restore_continues_bit_for_bit():
    inst = H100Instruments(InstrumentConfig(Seed=7))
    inst.initialize(_truth())
    for k in range(1, 13):
        inst.sample(_truth(0.1 * k), 0.1)
    saved = inst.get_state()
    ahead = [vars(inst.sample(_truth(1.3 + 0.1 * k), 0.1)).copy() for k in range(20)]
    inst.set_state(saved)
    again = [vars(inst.sample(_truth(1.3 + 0.1 * k), 0.1)).copy() for k in range(20)]
    assert ahead == again


@pytest.mark.parametrize("field, value", [("DepthNoiseStd", -1.0), ("UsblPeriod", 0.0),
                                          ("GyroBias", [0.0, 0.0]), ("Seed", -1), ("DvlRange", math.nan)])
def test_bad_parameter_is_refused_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        H100Instruments(InstrumentConfig(**{field: value}))


def test_non_finite_truth_is_refused_by_name():
    inst = H100Instruments()
    inst.initialize(_truth())
    with pytest.raises(ValueError, match=r"LocalVel\[2\]"):
        inst.sample(Truth(local_vel=(0.0, math.nan, 0.0)), 0.1)


def test_the_slave_publishes_each_reading_under_its_own_name():
    """H100Sensors writes all its Real outputs in one assignment (its _publish): each output
    variable, read by name, holds the reading of that name, with noise on (every value differs)."""
    from auv_cosim.vehicles.h100.stack.instruments_slave import H100Sensors

    slave = H100Sensors(instance_name="sensors")
    refs = {v.name: ref for ref, v in slave.vars.items()}
    slave.enter_initialization_mode()
    slave.exit_initialization_mode()
    truth = _truth(0.3)
    for name, values in (("Pos", truth.pos), ("Euler", truth.euler), ("Omega", truth.omega),
                         ("SpecificForce", truth.specific_force), ("LocalVel", truth.local_vel)):
        slave.set_real([refs[f"{name}[{i + 1}]"] for i in range(3)], list(values))
    slave.set_real([refs["Depth"], refs["Altitude"]], [truth.depth, truth.altitude])
    for k in range(20):     # past the first USBL fix with noise (a ping at 1 s, 0.5 s latency)
        assert slave.do_step(0.1 * k, 0.1)
    r = slave.instruments.out
    expected = {"MeasuredAltitude": r.altitude, "MeasuredDepth": r.depth, "UsblFixTime": r.usbl_fix_time}
    for name, values in (("MeasuredEuler", r.euler), ("MeasuredOmega", r.omega),
                         ("MeasuredSpecificForce", r.specific_force), ("MeasuredVelocity", r.velocity),
                         ("UsblPosition", r.usbl)):
        expected.update({f"{name}[{i + 1}]": values[i] for i in range(3)})
    assert len(set(expected.values())) == len(expected)
    assert slave.get_real([refs[name] for name in expected]) == list(expected.values())
    assert r.usbl_fix_count >= 2
