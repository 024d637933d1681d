import numpy as np
import pytest

from auv_cosim.vehicles.auv import AuvParameters, AuvModel
from auv_cosim.vehicles import Environment


@pytest.fixture(scope="session")
def model():
    return AuvModel(AuvParameters(), Environment())


@pytest.fixture(scope="session")
def neutral_model():
    """Neutral trim (AverageDensity = Rho), the condition of seed 001's cruise figures."""
    return AuvModel(AuvParameters(AverageDensity=1025.0), Environment())


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)
