import numpy as np
import pytest

from auv_cosim.vehicles.h100 import H100Model, load_vehicle


@pytest.fixture(scope="session")
def vehicle():
    return load_vehicle()


@pytest.fixture(scope="session")
def model(vehicle):
    return H100Model(vehicle.params)


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)


def random_spd(rng, size, scale):
    """A random symmetric positive definite matrix with entries of about `scale`."""
    a = rng.normal(scale=scale, size=(size, size))
    return a @ a.T / size + scale * np.eye(size)


def offset_vehicle(params, rng):
    """The default body made general: CG off O, products of inertia, a full added-mass matrix,
    full quadratic damping tensors, off-diagonal linear damping."""
    inertia = params.inertia_matrix() + random_spd(rng, 3, 0.02) * 0.5
    added = params.matrix("AddedMass") + random_spd(rng, 6, 0.3)
    linear = params.matrix("LinearDamping") + rng.normal(scale=0.5, size=(6, 6))
    quad_abs = np.abs(rng.normal(scale=2.0, size=(6, 6, 6)))
    for i in range(6):
        quad_abs[i, i, i] += params.matrix("QuadraticDamping")[i, i]
    quad_signed = rng.normal(scale=1.0, size=(6, 6, 6))
    return params.replace(
        CenterOfGravity=(0.01, -0.005, 0.02), CenterOfBuoyancy=(0.005, 0.002, -0.015),
        Inertia=tuple((0.5 * (inertia + inertia.T)).ravel()),
        AddedMass=tuple((0.5 * (added + added.T)).ravel()),
        LinearDamping=tuple(linear.ravel()), QuadraticDamping=(0.0,) * 36,
        QuadraticDampingTensor=tuple(quad_abs.ravel()), SignedQuadraticDampingTensor=tuple(quad_signed.ravel()))


def random_state(rng, n, depth=(-0.3, 20.0)):
    from auv_cosim.vehicles.h100 import initial_state
    return initial_state(n, Pos0=(rng.normal(scale=5), rng.normal(scale=5), rng.uniform(*depth)),
                         Quater0=rng.normal(size=4), LocalVel0=rng.normal(scale=0.5, size=3),
                         Omega0=rng.normal(scale=0.5, size=3),
                         PropellerSpeed0=rng.uniform(-1.0, 1.0, size=n))


def random_inputs(rng, n):
    return np.concatenate([rng.uniform(-1.3, 1.3, size=n), rng.normal(scale=5.0, size=3),
                           rng.normal(scale=1.0, size=3)])
