"""One communication step of the H100 with its propeller lag solved in closed form
(forces.thruster_speed_after / thruster_impulse, dynamics.step_derivative_into): the closed forms
against the ODE they solve, and the simulator's step against the whole state integrated."""
import numpy as np
import pytest
from scipy.integrate import ode, solve_ivp

from auv_cosim.vehicles.environment import Environment
from auv_cosim.vehicles.h100 import H100Model
from auv_cosim.vehicles.h100.dynamics import BODY_STATES, state_derivative
from auv_cosim.vehicles.h100.forces import (
    thruster_force,
    thruster_impulse,
    thruster_speed_after,
    thruster_speed_rate,
)
from auv_cosim.vehicles.simulator import VehicleSimulator
from auv_cosim.vehicles.waves import WaveParameters

FORWARD, REVERSE, EFFICIENCY, TIME_CONSTANT = 51.5, 40.2, 0.8, 0.1

#: (s0, command): forward and reverse without a change of sign, both reversals (the law's
#: sign and k switch inside the interval), a start at rest either way, a command of zero, a
#: command beyond the clamp
LAG_CASES = [(0.3, 0.8), (-0.6, -0.2), (0.5, -0.4), (-0.7, 0.9), (0.0, 0.5), (0.0, -0.5),
             (0.4, 0.0), (-0.2, 1.7)]


def _lag_by_ode(s0, command, elapsed):
    """s and the integral of F from the ODE s' = (c - s)/T, I' = F(s), tightly integrated (the
    error control shortens the steps about the law's switch where s crosses zero)."""
    def rate(t, state):
        s = state[0]
        return [thruster_speed_rate(command, s, TIME_CONSTANT), thruster_force(s, FORWARD, REVERSE, EFFICIENCY)]
    solution = solve_ivp(rate, (0.0, elapsed), [s0, 0.0], method="DOP853", rtol=1e-13, atol=1e-15)
    return solution.y[0, -1], solution.y[1, -1]


@pytest.mark.parametrize("s0, command", LAG_CASES)
@pytest.mark.parametrize("elapsed", [0.004, 0.03, 0.1, 0.37])
def test_the_lag_and_the_impulse_in_closed_form_are_the_odes_solution(s0, command, elapsed):
    speed, impulse = _lag_by_ode(s0, command, elapsed)
    assert thruster_speed_after(s0, command, TIME_CONSTANT, elapsed) == pytest.approx(speed, abs=1e-12)
    closed = thruster_impulse(s0, command, TIME_CONSTANT, elapsed, FORWARD, REVERSE, EFFICIENCY)
    assert closed == pytest.approx(impulse, rel=1e-10, abs=1e-13)


def test_a_reversal_switches_the_law_at_the_crossing():
    """Past the crossing each piece is summed with its own sign and k: the same reversal with one
    k both ways (the forward one) is far off."""
    s0, command, elapsed = 0.5, -0.4, 0.2
    _, impulse = _lag_by_ode(s0, command, elapsed)
    closed = thruster_impulse(s0, command, TIME_CONSTANT, elapsed, FORWARD, REVERSE, EFFICIENCY)
    one_k = thruster_impulse(s0, command, TIME_CONSTANT, elapsed, FORWARD, FORWARD, EFFICIENCY)
    assert abs(one_k - impulse) > 1e-3
    assert closed == pytest.approx(impulse, rel=1e-10)


def _model(sea):
    waves = WaveParameters(WaveMode="irregular", SignificantWaveHeight=1.0, PeakPeriod=6.0,
                           WaveComponents=20, WaveSeed=3) if sea else None
    return H100Model(
        _params(), Environment(Gravity=9.82, CurrentVelocity=(0.2, -0.1, 0.0),
                               CurrentDepthGradient=(0.01, 0.0, 0.0)), waves)


def _params():
    from auv_cosim.vehicles.h100 import load_vehicle
    return load_vehicle().params.replace(ThrusterEfficiency=0.9)


def _commands(steps, rng):
    """Commands that jump at every step about zero (every propeller reverses now and then)
    with a surge and heave bias, some beyond the clamp."""
    bias = np.array([0.4, 0.4, -0.4, -0.4, 0.2, 0.2, 0.2, 0.2])
    return bias * np.sin(np.arange(steps) / 15.0)[:, None] + rng.normal(0.0, 0.3, (steps, 8)) * 1.2


@pytest.mark.parametrize("sea", [False, True])
def test_a_step_with_the_lag_solved_is_the_whole_state_integrated(sea, rng):
    """Tight tolerances on both: the simulator (rigid body integrated, the thrusters' impulse
    and propeller speeds in closed form) and SciPy's DOP853 on the whole state with the full
    derivative (the lag an ODE state) agree on every state, propeller speeds and velocity
    included, after 3 s of commands that jump and reverse the propellers."""
    model = _model(sea)
    x0 = model.initial_state(Pos0=(1.0, -2.0, 4.0), Quater0=(0.99, 0.05, -0.03, 0.1),
                             LocalVel0=(0.3, -0.1, 0.05), Omega0=(0.02, -0.03, 0.1),
                             PropellerSpeed0=rng.uniform(-0.8, 0.8, 8))
    simulator = VehicleSimulator(model, x0, rtol=1e-12, atol=1e-13)
    whole = ode(state_derivative).set_integrator("dop853", rtol=1e-12, atol=1e-13, nsteps=10 ** 6)
    x = x0
    for k, command in enumerate(_commands(30, rng)):
        u = model.inputs(command, external_force=(1.0, -2.0, 0.5), external_moment=(0.1, 0.0, -0.2))
        whole.set_f_params(u, model.constants)
        whole.set_initial_value(x, 0.1 * k)
        x = whole.integrate(0.1 * (k + 1))
        solved = simulator.advance(0.1 * k, 0.1 * (k + 1), u)
        assert solved[BODY_STATES:] == pytest.approx(x[BODY_STATES:], abs=1e-9)
    assert solved == pytest.approx(x, abs=1e-8)
    assert np.max(np.abs(x[BODY_STATES:])) > 0.3     # the propellers did work


def test_station_keeping_commands_take_whole_steps(rng):
    """The point of the closed form: small commands about zero, as station keeping in noise
    gives, reverse propellers within steps; the integrator no longer sees that, and takes each
    0.1 s step whole at the H100's default tolerances (7 evaluations of DOPRI5; 19 to 23 of
    DOPRI5 or DOP853 with the lag integrated, benchmarks/bench_h100.py)."""
    model = H100Model(_params())
    calls = []

    class Counted(H100Model):
        @staticmethod
        def step_derivative_into(t, y, held, c, ydot):
            calls.append(t)
            model.step_derivative_into(t, y, held, c, ydot)
    simulator = VehicleSimulator(Counted(model.params), model.rest_state(5.0))
    steps = 200
    for k, command in enumerate(rng.normal(0.0, 0.05, (steps, 8))):
        simulator.advance(0.1 * k, 0.1 * (k + 1), model.inputs(command))
    assert simulator.method == "dopri5"
    assert len(calls) / steps < 7.5


def test_h100_runs_repeat_bit_for_bit_and_a_restored_state_continues_identically(model, rng):
    commands = _commands(40, rng)
    x0 = model.rest_state(5.0)

    def fly(x, first):
        simulator = VehicleSimulator(model, x)
        return [simulator.advance(0.1 * k, 0.1 * (k + 1), model.inputs(commands[k]))
                for k in range(first, len(commands))]
    once, again = fly(x0, 0), fly(x0, 0)
    assert all(np.array_equal(a, b) for a, b in zip(once, again))
    restored = fly(once[19], 20)
    assert all(np.array_equal(a, b) for a, b in zip(once[20:], restored))


@pytest.mark.parametrize("sea", [False, True])
def test_the_specific_force_output_is_the_derivatives_acceleration_bit_for_bit(sea, rng):
    """The SpecificForce output is v' + omega x v - R^T (0, 0, g) with v' from the full
    `state_derivative`, bit for bit, on states with every wrench at work."""
    from auv_cosim.vehicles.h100.dynamics import attitude

    model = _model(sea)
    start = model.OUTPUTS.start("SpecificForce")
    for k in range(20):
        x = model.initial_state(Pos0=rng.normal(0.0, 3.0, 3) + (0.0, 0.0, 6.0), Quater0=rng.normal(size=4),
                                LocalVel0=rng.normal(0.0, 0.5, 3), Omega0=rng.normal(0.0, 0.2, 3),
                                PropellerSpeed0=rng.uniform(-1.0, 1.0, 8))
        u = model.inputs(rng.uniform(-1.0, 1.0, 8), external_force=rng.normal(size=3),
                         external_moment=rng.normal(size=3))
        t = 0.37 * k
        xdot = state_derivative(t, x, u, model.constants)
        rotation = attitude(x[3:7])
        expected = xdot[7:10] + np.cross(x[10:13], x[7:10]) - model.env.Gravity * rotation[2, :]
        assert model.output_vector(x, u, t)[start:start + 3].tobytes() == expected.tobytes()
