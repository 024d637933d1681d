"""The instruments' compiled sample (auv_cosim/vehicles/auv/stack/instruments_kernel.py): the readings of the plain
Python it replaced (transcribed below as `PlainSuite`, on the library's own lags and wrap), bit
for bit, through every branch (lags on and off, angles across +-pi, the clamps, bottom lock lost,
held and re-acquired, a NaN altitude, the step length changing, dt = 0, an infinite position that
the check lets through); the kernel compiled equals its own plain-Python execution; a bad input
is refused with its name and nothing advances; a freshly unzipped AuvSensors.fmu compiles nothing,
whichever FMU of the survey stack brought auv_cosim.vehicles.auv.stack."""
from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from auv_cosim.vehicles.auv.stack import instruments_kernel as kernel
from auv_cosim.stacks.angles import wrap_pi
from auv_cosim.stacks.filters import AngleLag, FirstOrderLag
from auv_cosim.stacks.noise import NormalStream
from auv_cosim.vehicles.auv.stack.instruments import (
    NOISE_CHANNELS,
    SensorConfig,
    SensorOutputs,
    SensorSuite,
    TruthInputs,
)
from auv_cosim.compiled.jit import JIT_ENABLED
from tests.plain_python import compiled_left, plain_python

ROOT = Path(__file__).resolve().parents[3]


class PlainSuite:
    """SensorSuite.sample as plain Python before the kernel (commit 022604c), the oracle."""

    def __init__(self, c: SensorConfig):
        self.c = c
        self.noise = NormalStream(int(c.Seed), len(NOISE_CHANNELS))
        self.f_depth, self.f_roll = FirstOrderLag(c.DepthLag), AngleLag(c.AhrsLag)
        self.f_pitch, self.f_heading = FirstOrderLag(c.AhrsLag), AngleLag(c.AhrsLag)
        self.f_speed, self.f_alt = FirstOrderLag(c.DvlLag), FirstOrderLag(c.DvlLag)
        self.f_north, self.f_east = FirstOrderLag(c.NavLag), FirstOrderLag(c.NavLag)
        self.out = SensorOutputs()

    def initialize(self, truth):
        for f in (self.f_depth, self.f_roll, self.f_pitch, self.f_heading, self.f_speed, self.f_alt,
                  self.f_north, self.f_east):
            f.reset()
        return self.sample(truth, 0.0)

    def sample(self, truth, dt):
        truth.check()
        c = self.c
        z_depth, z_roll, z_pitch, z_heading, z_speed, z_altitude, z_north, z_east = self.noise.take()
        o = self.out
        d = self.f_depth.update(truth.depth, dt) + c.DepthBias + c.DepthNoiseStd * z_depth
        o.depth = clamp(d, 0.0, c.DepthRange)
        roll, pitch, heading = truth.euler
        r = wrap_pi(self.f_roll.update(roll, dt) + c.RollBias + c.AttitudeNoiseStd * z_roll)
        o.roll = clamp(r, -c.AttitudeRange, c.AttitudeRange)
        p = self.f_pitch.update(pitch, dt) + c.PitchBias + c.AttitudeNoiseStd * z_pitch
        o.pitch = clamp(p, -c.AttitudeRange, c.AttitudeRange)
        o.heading = wrap_pi(self.f_heading.update(heading, dt) + c.HeadingBias + c.HeadingNoiseStd * z_heading)
        o.speed = self.f_speed.update(truth.speed, dt) + c.SpeedBias + c.SpeedNoiseStd * z_speed
        alt = float(truth.altitude)
        if math.isfinite(alt) and 0.0 <= alt <= c.DvlRange:
            if not o.altitude_valid:
                self.f_alt.reset()
            a = self.f_alt.update(alt, dt) + c.AltitudeBias + c.AltitudeNoiseStd * z_altitude
            o.altitude = max(a, 0.0)
            o.altitude_valid = True
        else:
            o.altitude_valid = False
        o.nav_north = self.f_north.update(truth.pos[0], dt) + c.NavBiasNorth + c.NavNoiseStd * z_north
        o.nav_east = self.f_east.update(truth.pos[1], dt) + c.NavBiasEast + c.NavNoiseStd * z_east
        return o


def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


def readings(o: SensorOutputs):
    return np.array([o.depth, o.roll, o.pitch, o.heading, o.speed, o.altitude, o.nav_north, o.nav_east,
                     float(o.altitude_valid)])


def truths(rng, n):
    """Random truths through every branch: headings and rolls near +-pi, depths out of range,
    altitudes in and out of the DVL's range, negative and NaN, an infinite position now and then."""
    for k in range(n):
        altitude = rng.choice([rng.uniform(0.0, 30.0), rng.uniform(30.0, 60.0), -rng.uniform(0, 2), math.nan,
                               math.inf, 0.0, 30.0])
        pos = [rng.normal(0, 300), rng.normal(0, 300), rng.normal(0, 10)]
        if k % 97 == 5:
            pos[0] = math.inf
        yield TruthInputs(pos=tuple(pos),
                          euler=(rng.uniform(-math.pi, math.pi) * rng.choice([0.1, 1.0]),
                                 rng.uniform(-1.7, 1.7),
                                 rng.choice([rng.uniform(-math.pi, math.pi), math.pi - 1e-3, -math.pi + 1e-3, math.pi])),
                          depth=float(rng.choice([rng.uniform(-2.0, 40.0), rng.uniform(290.0, 320.0)])),
                          speed=float(rng.uniform(-0.5, 2.5)), altitude=float(altitude),
                          vel=tuple(rng.normal(0, 1, 3)))


CONFIGS = [
    SensorConfig(),
    SensorConfig.noiseless(Seed=3),
    SensorConfig(Seed=5, DepthLag=0.0, AhrsLag=0.7, DvlLag=0.0, NavLag=1.5, DepthRange=20.0, AttitudeRange=1.2,
                 DvlRange=25.0, DepthBias=0.3, RollBias=-0.2, PitchBias=0.1, HeadingBias=3.0, SpeedBias=0.05,
                 AltitudeBias=-4.0, NavBiasNorth=2.0, NavBiasEast=-1.0, AltitudeNoiseStd=2.0, HeadingNoiseStd=0.5),
    SensorConfig(Seed=9, AhrsLag=0.0, DvlLag=0.4, NavLag=0.2),
]


@pytest.mark.parametrize("config", CONFIGS)
def test_the_compiled_sample_reads_what_the_plain_python_read_bit_for_bit(config):
    rng = np.random.default_rng(17)
    compiled, plain = SensorSuite(config), PlainSuite(config)
    sequence = list(truths(rng, 1500))
    first = sequence[0]
    assert readings(compiled.initialize(first)).tobytes() == readings(plain.initialize(first)).tobytes()
    for k, truth in enumerate(sequence[1:]):
        dt = (0.1, 0.1, 0.2, 0.0, 0.05)[k % 5] if k > 600 else 0.1   # step lengths change, dt = 0
        a, b = readings(compiled.sample(truth, dt)), readings(plain.sample(truth, dt))
        assert a.tobytes() == b.tobytes(), (k, truth, a, b)
    assert compiled.noise.get_state() == plain.noise.get_state()


def test_the_arrays_path_of_the_slave_reads_what_sample_reads():
    rng = np.random.default_rng(4)
    by_class, by_arrays = SensorSuite(SensorConfig()), SensorSuite(SensorConfig())
    truth_array, out = np.zeros(kernel.TRUTH_SIZE), np.zeros(kernel.READINGS_SIZE)
    for k, truth in enumerate(truths(rng, 300)):
        truth_array[:] = (*truth.pos, *truth.euler, truth.depth, truth.speed, truth.altitude, *truth.vel)
        if k == 0:
            o, valid = by_class.initialize(truth), by_arrays.initialize_into(truth_array, out)
        else:
            o, valid = by_class.sample(truth, 0.1), by_arrays.sample_into(truth_array, out, 0.1)
        assert np.append(out, float(valid)).tobytes() == readings(o).tobytes()


@pytest.mark.skipif(not JIT_ENABLED, reason="numba is not in use (AUV_NO_JIT or no numba): the kernel runs as "
                                            "plain Python, nothing to compare")
def test_the_kernel_compiled_equals_its_plain_python_execution():
    plain = plain_python(kernel.sample_into)   # its helpers in Python too
    assert compiled_left(plain) == []
    rng = np.random.default_rng(8)
    suite = SensorSuite(CONFIGS[2])
    suite.constants[kernel.COEFFICIENT:kernel.COEFFICIENT + 8] = rng.uniform(0.0, 1.0, 8)
    block = rng.normal(size=64)
    for k, truth in enumerate(truths(rng, 400)):
        values = np.array([*truth.pos, *truth.euler, truth.depth, truth.speed, truth.altitude, *truth.vel])
        state = suite.state.copy()
        state[kernel.LAG_STARTED:kernel.LAG_STARTED + 8] = rng.integers(0, 2, 8)
        state[kernel.BOTTOM_LOCK] = float(rng.integers(0, 2))
        results = []
        for function in (kernel.sample_into, plain):
            s, out = state.copy(), np.full(kernel.READINGS_SIZE, -7.0)
            status = function(values, block, k % 8 * 8, suite.constants, s, out, bool(k % 2))
            results.append((status, s.tobytes(), out.tobytes()))
        assert results[0] == results[1], k


@pytest.mark.parametrize("name, index", [("Pos[2]", 1), ("Euler[2]", 4), ("Vel[3]", 11), ("Depth", 6),
                                         ("Speed", 7), ("Euler[1]", 3), ("Euler[3]", 5)])
def test_a_bad_input_is_named_and_nothing_advances(name, index):
    suite = SensorSuite(SensorConfig())
    values = np.array([1.0, 2.0, 3.0, 0.1, 0.2, 0.3, 4.0, 1.4, 10.0, 0.0, 0.0, 0.0])
    out = np.zeros(kernel.READINGS_SIZE)
    suite.initialize_into(values, out)
    suite.sample_into(values, out, 0.1)
    before, readings_before = suite.get_state(), out.copy()
    values[index] = math.nan if index in (1, 4, 11) else math.inf
    with pytest.raises(ValueError, match=re.escape(name)):
        suite.sample_into(values, out, 0.1)
    assert suite.get_state() == before and out.tobytes() == readings_before.tobytes()



#: a fresh interpreter loads freshly unzipped FMUs in the given order (a module the host imported is
#: shared: auv_cosim.vehicles.auv.stack and auv_cosim.vehicles come from the first FMU that carries them) and steps the
#: instruments; how many compiled functions were loaded from a cache and how many compiled
SCRIPT = r"""
fmus = instantiate_all()
md, fmu = fmus["AuvSensors"]
refs = {v.name: v.valueReference for v in md.modelVariables}
fmu.setupExperiment(startTime=0.0)
fmu.enterInitializationMode()
fmu.exitInitializationMode()
for step in range(5):
    fmu.setReal([refs["Pos[1]"], refs["Altitude"]], [0.5 * step, 40.0 - 5.0 * step])
    fmu.doStep(currentCommunicationPoint=0.1 * step, communicationStepSize=0.1)
"""


@pytest.mark.skipif(not JIT_ENABLED, reason="numba is not in use (AUV_NO_JIT or no numba): nothing is compiled")
@pytest.mark.parametrize("order", [("AuvSensors",), ("Auv", "AuvSensors"), ("AuvControl", "AuvSensors")],
                         ids=["alone", "after the vehicle", "after the control"])
def test_a_freshly_unzipped_instruments_fmu_compiles_nothing(order):
    pytest.importorskip("fmpy")
    from tests.harness import FMU_DIR, build, numba_cache_report

    build(*order)
    result = numba_cache_report(SCRIPT, "auv_cosim.vehicles.auv.stack.instruments_kernel", [FMU_DIR / f"{name}.fmu" for name in order])
    assert not result["kernel"].startswith(str(ROOT)), result   # the FMU's copy, not the checkout's
    assert result["hits"] > 0, result
    assert result["misses"] == {}, result
