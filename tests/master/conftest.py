"""Fixtures of the master tests (helpers in master_helpers.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from master_helpers import FMUS, REPO, Run, master


@pytest.fixture(scope="session")
def fmus_built():
    missing = [str(p.relative_to(REPO)) for p in FMUS if not p.is_file()]
    if missing:
        pytest.fail(f"the FMUs are not built ({', '.join(missing)} missing): run ./build.sh first")
    return FMUS


@pytest.fixture(scope="session")
def runs(tmp_path_factory, fmus_built):
    """Each scenario run once per session (several tests read the same run)."""
    root = tmp_path_factory.mktemp("runs")
    cache: dict[tuple, Run] = {}

    def get(*args: str) -> Run:
        if args not in cache:
            out = root / f"run{len(cache):02d}"
            cache[args] = master("run", *args, out=out)
        return cache[args]

    return get


NAN_SOURCE = '''
import math
from pythonfmu import Fmi2Slave, Fmi2Causality, Fmi2Variability, Real


class NanSource(Fmi2Slave):
    """30 W until t >= NanTime, then NaN."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.Power = 30.0
        self.NanTime = 2.0
        self.register_variable(Real("Power", causality=Fmi2Causality.output))
        self.register_variable(Real("NanTime", causality=Fmi2Causality.parameter, variability=Fmi2Variability.tunable))

    def do_step(self, current_time, step_size):
        self.Power = math.nan if current_time + step_size >= self.NanTime - 1e-9 else 30.0
        return True
'''


@pytest.fixture(scope="session")
def nan_fmu(tmp_path_factory) -> Path:
    """A pythonfmu FMU with one output, Power: 30 W, then NaN from t = NanTime (2 s)."""
    d = tmp_path_factory.mktemp("nanfmu")
    src = d / "master_test_nan_source.py"
    src.write_text(NAN_SOURCE)
    subprocess.run([sys.executable, "-m", "pythonfmu", "build", "-f", str(src), "-d", str(d)], check=True,
                   capture_output=True, cwd=d)
    return d / "NanSource.fmu"
