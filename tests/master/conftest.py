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


BEACON_SOURCE = '''
from pythonfmu import Fmi2Slave, Fmi2Causality, Fmi2Variability, Real


class Beacon(Fmi2Slave):
    """A stand-in for a vehicle among others: it publishes WakeSource[1..15] (element 1 is
    1000 Ident + the number of steps made, so a value says whose it is and when it was made;
    the others 0) and takes WakeSources[1..2,1..15]; Heard[k] is the WakeSources[k,1] it was
    given for the step just made, Rho a parameter."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.Ident = 1.0
        self.Rho = 1025.0
        self.steps = 0
        self.rows = [[0.0] * 15 for _ in range(2)]
        self.heard = [0.0, 0.0]
        self.register_variable(Real("Ident", causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed))
        self.register_variable(Real("Rho", causality=Fmi2Causality.parameter, variability=Fmi2Variability.fixed))
        for i in range(15):
            self.register_variable(Real(f"WakeSource[{i + 1}]", causality=Fmi2Causality.output,
                                        getter=(lambda i=i: self.Ident * 1000 + self.steps if i == 0 else 0.0)))
        for k in range(2):
            for i in range(15):
                self.register_variable(Real(f"WakeSources[{k + 1},{i + 1}]", causality=Fmi2Causality.input,
                                            getter=(lambda k=k, i=i: self.rows[k][i]),
                                            setter=(lambda v, k=k, i=i: self.rows[k].__setitem__(i, v))))
        for k in range(2):
            self.register_variable(Real(f"Heard[{k + 1}]", causality=Fmi2Causality.output,
                                        getter=(lambda k=k: self.heard[k])))

    def do_step(self, current_time, step_size):
        self.heard = [self.rows[0][0], self.rows[1][0]]
        self.steps += 1
        return True
'''


def declare_exchanges(fmu: Path, *exchanges) -> None:
    """Write the row exchanges (auv_cosim.fmu.exchanges.Exchange) into the FMU's
    modelDescription.xml, as tools/build_fmus.py does for the project's FMUs."""
    import xml.etree.ElementTree as ET
    import zipfile

    from auv_cosim.fmu.exchanges import annotate

    with zipfile.ZipFile(fmu) as archive:
        members = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    root = ET.fromstring(members["modelDescription.xml"])
    annotate(root, exchanges)
    members["modelDescription.xml"] = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    with zipfile.ZipFile(fmu, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _beacon(tmp_path_factory, source: str, cls: str, exchange) -> Path:
    d = tmp_path_factory.mktemp(cls.lower())
    src = d / f"master_test_{cls.lower()}.py"
    src.write_text(source)
    subprocess.run([sys.executable, "-m", "pythonfmu", "build", "-f", str(src), "-d", str(d)], check=True,
                   capture_output=True, cwd=d)
    declare_exchanges(d / f"{cls}.fmu", exchange)
    return d / f"{cls}.fmu"


@pytest.fixture(scope="session")
def beacon_fmu(tmp_path_factory) -> Path:
    """A pythonfmu FMU with the wake ports of a vehicle and what it heard on them (BEACON_SOURCE),
    declaring them as the vehicles' FMUs do (the wakes' row exchange)."""
    from auv_cosim.fmu.exchanges import Exchange

    return _beacon(tmp_path_factory, BEACON_SOURCE, "Beacon",
                   Exchange("wakes", "WakeSource", "WakeSources", None, ("WakeSource", "WakeSources"), ("Rho",)))


@pytest.fixture(scope="session")
def pinger_fmu(tmp_path_factory) -> Path:
    """The beacon under other names (Ping[1..15] into a row of Pings[k,1..15], an exchange
    named 'pings'): what the master does with a row exchange owes nothing to the wakes' names."""
    from auv_cosim.fmu.exchanges import Exchange

    source = BEACON_SOURCE.replace("WakeSources", "Pings").replace("WakeSource", "Ping").replace("Beacon", "Pinger")
    return _beacon(tmp_path_factory, source, "Pinger", Exchange("pings", "Ping", "Pings", None, ("Ping", "Pings")))
