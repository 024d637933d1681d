"""The integrator: accuracy against a tight run, bit-for-bit repeatability and restore."""
import numpy as np
import pytest

from auv_cosim.vehicles import VehicleSimulator
from auv_cosim.vehicles.auv import inputs
from auv_cosim.vehicles.simulator import IntegrationError


def _manoeuvre(t):
    """Power and fin steps: 60 s cruise, a turn, a dive, a power change."""
    if t < 60.0:
        return inputs(30.0)
    if t < 100.0:
        return inputs(45.0, rudder_yaw=0.2)
    if t < 150.0:
        return inputs(20.0, rudder_dive=0.15)
    return inputs(60.0, rudder_yaw=-0.35, rudder_dive=-0.1)


def _fly(model, x0, seconds, rtol, atol, step=0.1):
    sim = VehicleSimulator(model, x0, rtol=rtol, atol=atol)
    track = []
    for k in range(int(round(seconds / step))):
        t = k * step
        track.append(sim.advance(t, t + step, _manoeuvre(t)))
    return np.array(track)


def test_default_tolerance_stays_within_a_centimetre_of_a_tight_run(model):
    x0 = model.cruise_state(1.4, depth=20.0)
    sim = VehicleSimulator(model, x0)           # the defaults
    default = []
    for k in range(2000):
        t = k * 0.1
        default.append(sim.advance(t, t + 0.1, _manoeuvre(t)))
    default = np.array(default)
    tight = _fly(model, x0, 200.0, 1e-10, 1e-12)
    error = np.max(np.linalg.norm(default[:, 0:3] - tight[:, 0:3], axis=1))
    assert error < 0.01
    assert error < 1e-5       # measured 8e-9 m: the margin is large, keep it visible


def test_runs_repeat_bit_for_bit_and_restore_continues_identically(model):
    x0 = model.cruise_state(1.4, depth=20.0)
    first = _fly(model, x0, 20.0, 1e-6, 1e-8)
    second = _fly(model, x0, 20.0, 1e-6, 1e-8)
    assert np.array_equal(first, second)
    sim = VehicleSimulator(model, first[99])
    for k in range(100, 200):
        t = k * 0.1
        sim.advance(t, t + 0.1, _manoeuvre(t))
        assert np.array_equal(sim.state, first[k])


class _Without:
    """A model seen without some of its members (the simulator then takes a plainer path)."""

    def __init__(self, model, *hidden):
        self._model = model
        self._hidden = hidden

    def __getattr__(self, name):
        if name in self._hidden:
            raise AttributeError(name)
        return getattr(self._model, name)


def _ReturningOnly(model):
    """The model without its buffered derivatives: the simulator integrates derivative_at."""
    return _Without(model, "derivative_into", "derivative_packed")


def test_the_buffered_right_hand_side_gives_the_same_bits_as_the_returning_one(model):
    assert hasattr(model, "derivative_into")
    x0 = model.cruise_state(1.4, depth=20.0)
    buffered = _fly(model, x0, 200.0, 1e-4, 1e-6)
    returning = _fly(_ReturningOnly(model), x0, 200.0, 1e-4, 1e-6)
    assert buffered.tobytes() == returning.tobytes()


def test_non_finite_inputs_and_bad_tolerances_are_refused(model):
    sim = VehicleSimulator(model, model.cruise_state(1.4))
    with pytest.raises(ValueError, match="finite"):
        sim.advance(0.0, 0.1, inputs(float("nan")))
    with pytest.raises(ValueError, match="finite"):
        sim.advance(0.0, 0.1, inputs(30.0, external_force=(0.0, float("inf"), 0.0)))
    with pytest.raises(ValueError, match="tolerances"):
        VehicleSimulator(model, model.cruise_state(1.4), rtol=0.0)
    with pytest.raises(ValueError, match="backwards"):
        sim.advance(1.0, 0.5, inputs())


def test_an_integrator_failure_is_reported_and_leaves_the_state(model):
    x0 = model.cruise_state(1.4)
    sim = VehicleSimulator(model, x0, max_steps=2)
    with pytest.raises(IntegrationError, match="t=0"):
        sim.advance(0.0, 100.0, inputs(120.0, rudder_yaw=0.3))
    assert np.array_equal(sim.state, x0)
    with pytest.raises(ValueError):
        sim.advance(0.0, 0.1, inputs(float("nan")))
    assert np.array_equal(sim.state, x0)
    # and the next step runs as on a fresh simulator (the integrator's arrays are reset after
    # the failure, not left as the failed run left them)
    fresh = VehicleSimulator(model, x0, max_steps=2)
    assert np.array_equal(sim.advance(0.0, 0.1, inputs(30.0)), fresh.advance(0.0, 0.1, inputs(30.0)))


def test_each_step_starts_the_integrator_afresh_whatever_steps_came_before(model):
    """A step depends on the state and inputs alone: on a simulator that has made steps of other
    lengths before (its work arrays reused or remade, see VehicleSimulator._integrate), each
    step gives the same bits as a new simulator started from the same state."""
    from auv_cosim.vehicles.h100 import H100Model, load_vehicle

    h100 = H100Model(load_vehicle().params)
    cases = [(model, model.cruise_state(1.4), lambda k: inputs(30.0, rudder_yaw=0.02 * (-1) ** k)),
             (h100, h100.rest_state(), lambda k: h100.inputs([0.3 * (-1) ** k] * 4 + [0.2] * 4))]
    for vehicle, x, u_of in cases:
        sim = VehicleSimulator(vehicle, x)
        t = 0.0
        for k, h in enumerate((0.1, 0.1, 0.05, 0.1, 0.1, 0.2, 0.2, 0.1)):
            expected = VehicleSimulator(vehicle, sim.state).advance(t, t + h, u_of(k))
            assert np.array_equal(sim.advance(t, t + h, u_of(k)), expected), (type(vehicle).__name__, k)
            t += h


def test_each_vehicle_integrates_with_the_integrator_it_names(model):
    """The AUV on DOPRI5 at rtol 1e-4 (no INTEGRATOR, no TOLERANCES), the H100 on DOPRI5 at its
    own rtol 2e-5 (H100Model.TOLERANCES): the simulator's defaults are the vehicle's, and 2 s
    of held commands from rest (every propeller spinning up) stay within 10 micrometres of a
    tight run (measured 5.5e-6 m)."""
    from auv_cosim.vehicles.h100 import H100Model, load_vehicle

    auv = VehicleSimulator(model, model.cruise_state(1.4, depth=20.0))
    assert (auv.method, auv.rtol, auv.atol) == ("dopri5", 1e-4, 1e-6)
    h100 = H100Model(load_vehicle().params)
    x0 = h100.rest_state()
    u = h100.inputs([0.6, 0.6, -0.6, -0.6, 0.3, 0.3, 0.3, 0.3])
    sim = VehicleSimulator(h100, x0)
    assert (sim.method, sim.rtol, sim.atol) == ("dopri5", 2e-5, 1e-6)
    assert VehicleSimulator(h100, x0, rtol=1e-7).rtol == 1e-7     # a given tolerance wins
    tight = VehicleSimulator(h100, x0, rtol=1e-11, atol=1e-12)
    for k in range(20):
        x, reference = sim.advance(0.1 * k, 0.1 * (k + 1), u), tight.advance(0.1 * k, 0.1 * (k + 1), u)
    assert np.max(np.abs(x[0:3] - reference[0:3])) < 1e-5


def _h100(waves=None):
    from auv_cosim.vehicles.h100 import H100Model, load_vehicle

    return H100Model(load_vehicle().params, waves=waves)


def _steps(vehicle, x0, u_of, lengths, restore_at=None):
    """States after steps of the given lengths; at step `restore_at` the run goes on from a new
    simulator restored from the state (as an FMU state restore does)."""
    sim = VehicleSimulator(vehicle, x0)
    states, t = [], 0.0
    for k, h in enumerate(lengths):
        if k == restore_at:
            sim = VehicleSimulator(vehicle, sim.state)
        states.append(sim.advance(t, t + h, u_of(k)))
        t += h
    return np.array(states)


def test_the_packed_right_hand_side_gives_the_bits_of_the_buffered_one_on_both_vehicles(model):
    """The packed derivative (held values, constants and derivative in one array, called
    through its compiled entry: auv_cosim.vehicles.packed) against the five-argument buffered one,
    the AUV's and the H100's (its closed-form propeller lag), in still water and in waves, over
    steps of changing length and across a restore."""
    from auv_cosim.vehicles.auv import AuvModel
    from auv_cosim.vehicles.waves import WaveParameters

    waves = WaveParameters(WaveMode="regular", WaveAmplitude=0.8, WavePeriod=6.0, WaveDirection=0.5)
    lengths = [0.1] * 30 + [0.05, 0.2, 0.1] * 10
    auv_u = lambda k: inputs(30.0 + k % 7, rudder_yaw=0.2 * (-1) ** (k // 9), rudder_dive=0.05)
    for auv in (model, AuvModel(waves=waves)):
        assert VehicleSimulator(auv, auv.cruise_state(1.4))._packed_held is not None
        packed = _steps(auv, auv.cruise_state(1.4, depth=5.0), auv_u, lengths, restore_at=37)
        buffered = _steps(_Without(auv, "derivative_packed"), auv.cruise_state(1.4, depth=5.0), auv_u, lengths)
        assert packed.tobytes() == buffered.tobytes()
    for h100 in (_h100(), _h100(waves)):
        h100_u = lambda k: h100.inputs([0.4 * (-1) ** (k // 5)] * 4 + [0.2 * (-1) ** (k // 7)] * 4)
        packed = _steps(h100, h100.rest_state(3.0), h100_u, lengths, restore_at=41)
        buffered = _steps(_Without(h100, "step_derivative_packed"), h100.rest_state(3.0), h100_u, lengths)
        assert packed.tobytes() == buffered.tobytes()
        assert not np.array_equal(packed[-1], packed[-2])   # it moved


def test_the_packed_right_hand_side_after_an_integrator_failure_gives_the_bits_of_a_fresh_one(model):
    """A run the integrator gave up on (too few steps allowed) leaves the packed arrays as they
    were: the next step equals a fresh simulator's, and the buffered path's."""
    h100 = _h100()
    for vehicle, x0, u_fail, u in (
            (model, model.cruise_state(1.4), inputs(120.0, rudder_yaw=0.3), inputs(30.0)),
            (h100, h100.rest_state(), h100.inputs([1.0, -1.0] * 4), h100.inputs([0.3] * 8))):
        sim = VehicleSimulator(vehicle, x0, max_steps=2)
        with pytest.raises(IntegrationError, match="larger nsteps"):
            sim.advance(0.0, 100.0, u_fail)
        after = sim.advance(0.0, 0.1, u)
        fresh = VehicleSimulator(vehicle, x0, max_steps=2).advance(0.0, 0.1, u)
        hidden = "derivative_packed" if vehicle is model else "step_derivative_packed"
        buffered = VehicleSimulator(_Without(vehicle, hidden), x0, max_steps=2).advance(0.0, 0.1, u)
        assert after.tobytes() == fresh.tobytes() == buffered.tobytes()


def test_packed_arguments_lay_out_held_values_constants_and_derivative_in_order():
    from auv_cosim.vehicles.packed import pack_arguments, unpack_arguments

    constants = np.array([3.0, 4.0, 5.0])
    work, held, derivative = pack_arguments(2, constants, 4)
    assert work.size == 2 + 2 + 3 + 4 and held.size == 2 and derivative.size == 4
    held[:] = (1.0, 2.0)
    derivative[:] = (6.0, 7.0, 8.0, 9.0)
    assert work.tolist() == [2.0, 3.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    compiled = unpack_arguments(work)        # the compiled side sees the same three parts
    assert [part.tolist() for part in compiled] == [[1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0]]
    compiled[2][0] = -1.0                    # views, not copies
    assert derivative[0] == -1.0


def test_a_compiled_entry_computes_what_the_dispatcher_does(model):
    from auv_cosim.compiled.jit import compiled_entry
    from auv_cosim.vehicles.packed import pack_arguments

    x = model.cruise_state(1.4, depth=5.0)
    work, u, derivative = pack_arguments(6, model.constants, x.size)
    u[:] = inputs(30.0, rudder_yaw=0.1)
    entry = compiled_entry(model.derivative_packed, 0.0, x, work)
    entry(0.3, x, work)
    expected = model.derivative_at(0.3, x, inputs(30.0, rudder_yaw=0.1), model.constants)
    assert derivative.tobytes() == expected.tobytes()


def test_a_huge_finite_input_is_named_when_the_step_fails(model):
    """A finite input no vehicle here is driven with (ExternalForce[1] = 1e300 N) makes the
    state run away: the failure names the input and its value beside the state, and leaves the
    vehicle where it was; an ordinary failure names no input."""
    x0 = model.cruise_state(1.4)
    sim = VehicleSimulator(model, x0)
    with pytest.raises(IntegrationError, match=r"the input held over the step: ExternalForce\[1\] = 1e\+300 N$"):
        sim.advance(0.0, 0.1, inputs(30.0, external_force=(1e300, 0.0, 0.0)))
    assert np.array_equal(sim.state, x0)
    with pytest.raises(IntegrationError) as failure:
        VehicleSimulator(model, x0, max_steps=2).advance(0.0, 100.0, inputs(120.0, rudder_yaw=0.3))
    assert "held over the step" not in str(failure.value)
