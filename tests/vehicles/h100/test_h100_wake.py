"""The H100 among others (SPEC 9.3): it meets the others' wakes wherever it meets the current
(the relative velocity, -M_A (Omega x v_c^b)), in both update modes, its Jacobians carrying the
field's gradient in "Evaluation" mode; it casts nothing."""
import numpy as np
import pytest

from auv_cosim.vehicles import Environment, VehicleSimulator, finite_difference_jacobians
from auv_cosim.vehicles.h100 import H100Model
from auv_cosim.vehicles.wake import WakeParameters, with_sources

from references.wake_oracle import oracle_field

#: an AUV passing north 0.3 m above O (at 10 m): its wake trails south along the H100's path
ROW = np.array([2.0, 0.0, 9.7,  2.0, 0.0, 9.7,  -1.0, 0.0, 0.0,  1.438, 9.0, 9.0,  0.2, 0.12, 1025.0])


def model_in(vehicle, mode="Step"):
    return H100Model(vehicle.params, wake=WakeParameters(ExternalWakeUpdate=mode))


@pytest.mark.parametrize("mode", ["Step", "Evaluation"])
def test_the_jacobian_in_a_wake_against_central_differences(vehicle, mode, rng):
    model = model_in(vehicle, mode)
    for _ in range(4):
        x = model.initial_state(Pos0=(-rng.uniform(1, 6), rng.normal(scale=0.1), 10 + rng.normal(scale=0.1)),
                                LocalVel0=rng.normal(scale=0.2, size=3), Omega0=rng.normal(scale=0.1, size=3),
                                Quater0=np.r_[1.0, rng.normal(scale=0.05, size=3)],
                                PropellerSpeed0=rng.uniform(-0.5, 0.5, size=8))
        u = model.inputs(rng.uniform(-0.6, 0.6, size=8))
        held = model.held_inputs(x, with_sources(u, ROW))
        a = model.state_jacobian(x, held)
        a_fd, b_fd = finite_difference_jacobians(model, x, held)
        assert b_fd.shape == (21, 14)
        assert np.max(np.abs(a - a_fd) / np.maximum(1.0, np.abs(a_fd))) < 2e-5
        if mode == "Evaluation":
            assert np.max(np.abs(a[7:13, 0:3])) > 1e-3       # the gradient of the wake is there


def test_the_wake_enters_the_relative_velocity_and_the_turning_current(vehicle):
    """In a wake held over the step (here 5 m behind the AUV's stern, 0.3 m below its axis,
    where the wider jet outweighs the hull wake: -2.0 mm/s north) the H100 feels what it feels
    in a uniform current of that velocity (the wake's acceleration neglected)."""
    model = model_in(vehicle)
    x = model.initial_state(Pos0=(-3.0, 0.0, 10.0), Omega0=(0.0, 0.0, 0.2), LocalVel0=(0.1, 0.05, 0.0))
    held = model.held_inputs(x, with_sources(model.inputs(), ROW))
    wake = model.wake_velocity(x, held)
    np.testing.assert_allclose(wake, oracle_field(x[0:3], ROW), rtol=1e-13)
    assert wake[0] == pytest.approx(-0.0020014, abs=1e-7)
    current = H100Model(vehicle.params, Environment(Gravity=9.82, CurrentVelocity=tuple(wake)))
    np.testing.assert_allclose(model.derivative(x, held), current.derivative(x, current.inputs()), rtol=1e-13, atol=1e-15)


def test_without_a_source_nothing_changes_and_step_and_evaluation_are_close(vehicle):
    """The wake block with no row gives the steps of the inputs alone, bit for bit; with the
    AUV's row held above it the H100 drifts along the wake, the two modes within 1 % of it."""
    tracks = {}
    for mode, rows in (("alone", None), ("empty", np.zeros(15)), ("Step", ROW), ("Evaluation", ROW)):
        model = model_in(vehicle, "Evaluation" if mode == "Evaluation" else "Step")
        sim = VehicleSimulator(model, model.initial_state(Pos0=(-3.0, 0.0, 10.0)))
        u = model.inputs(np.full(8, 0.05))
        given = u if mode == "alone" else with_sources(u, rows)
        for k in range(50):
            sim.advance(0.1 * k, 0.1 * (k + 1), given)
        tracks[mode] = sim.state
    np.testing.assert_array_equal(tracks["alone"], tracks["empty"])
    drift = np.linalg.norm(tracks["Step"][0:3] - tracks["alone"][0:3])
    apart = np.linalg.norm(tracks["Step"][0:3] - tracks["Evaluation"][0:3])
    assert drift > 1e-3 and 0.0 < apart < 0.01 * drift


def test_a_malformed_row_fails_the_step_naming_it(vehicle):
    model = model_in(vehicle)
    sim = VehicleSimulator(model, model.rest_state())
    bad = ROW.copy()
    bad[13] = -0.1
    with pytest.raises(ValueError, match=r"WakeSources\[2,14\] = -0.1 \(row 2, propeller diameter Dp_s\) must not be negative"):
        sim.advance(0.0, 0.1, with_sources(model.inputs(), np.r_[ROW, bad]))
    assert np.array_equal(sim.state, model.rest_state())
