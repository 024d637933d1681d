import numpy as np
import pytest

from vehicle_model import AuvParameters, Environment, VehicleModel


@pytest.fixture(scope="session")
def model():
    return VehicleModel(AuvParameters(), Environment())


@pytest.fixture(scope="session")
def neutral_model():
    """Neutral trim (AverageDensity = Rho), the condition of seed 001's cruise figures."""
    return VehicleModel(AuvParameters(AverageDensity=1025.0), Environment())


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)
