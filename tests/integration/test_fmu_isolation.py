"""An FMU runs the code it was built with, whatever its host loaded before it.

pythonfmu FMUs run in their host's interpreter and share its modules. Each FMU carries its code
under its build's own package name (auv_cosim/build/carry.py), only the modules its slave needs; FMUs
of one build share that package and join their folders to it. Here all eight FMUs are loaded
into one fresh interpreter in several orders, the H100's control before its instruments among
them, each instantiated, stepped and freed; and the AUV is flown in an interpreter that has a
changed copy of auv_cosim imported, and gives its own build's results."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import FMU_DIR, build

ROOT = Path(__file__).resolve().parents[2]
ALL = ("Auv", "AuvSensors", "AuvControl", "H100Sensors", "H100", "H100Control", "H100_6", "H100Control_6")

LOAD_ALL = r"""
import json, sys
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
steps = {}
for path in sys.argv[1:]:
    md = read_model_description(path)
    name = md.coSimulation.modelIdentifier
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(path), modelIdentifier=name, instanceName=name)
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    for k in range(3):
        fmu.doStep(currentCommunicationPoint=0.1 * k, communicationStepSize=0.1)
    fmu.terminate()
    fmu.freeInstance()
    steps[name] = 3
print(json.dumps(steps))
"""


def _fresh(code: str, *args: str, **env) -> str:
    out = subprocess.run([sys.executable, "-c", code, *args], cwd="/", capture_output=True, text=True,
                         timeout=600, env=dict(os.environ, PYTHONPATH="", **env))
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def fmus():
    build(*ALL)
    return {name: str(FMU_DIR / f"{name}.fmu") for name in ALL}


@pytest.mark.parametrize("order", [
    ALL,
    tuple(reversed(ALL)),
    ("H100Control", "H100Sensors", "H100", "AuvControl", "Auv", "AuvSensors", "H100Control_6", "H100_6"),
    ("AuvSensors", "H100Sensors", "AuvControl", "H100Control_6", "Auv", "H100_6", "H100Control", "H100"),
], ids=["listed", "reversed", "control before instruments", "mixed"])
def test_all_eight_fmus_in_one_interpreter_in_any_order(fmus, order):
    assert json.loads(_fresh(LOAD_ALL, *(fmus[name] for name in order))) == {name: 3 for name in order}


FLY_AUV = r"""
import json, sys
if len(sys.argv) > 2:                      # a changed copy of auv_cosim, imported first
    sys.path.insert(0, sys.argv[2])
    import auv_cosim.vehicles.auv.forces as forces
    assert forces.__file__.startswith(sys.argv[2]), forces.__file__
    from auv_cosim.vehicles import Environment, VehicleSimulator
    from auv_cosim.vehicles.auv import AuvModel, AuvParameters, initial_state, inputs
    sim = VehicleSimulator(AuvModel(AuvParameters(), Environment()), initial_state(LocalVel0=(1.4, 0, 0)))
    for k in range(100):
        sim.advance(0.1 * k, 0.1 * (k + 1), inputs(thrust_power=30.0))
    library = float(sim.state[0])
else:
    library = None
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
md = read_model_description(sys.argv[1])
vr = {v.name: v.valueReference for v in md.modelVariables}
fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(sys.argv[1]), modelIdentifier="Auv", instanceName="auv")
fmu.instantiate()
fmu.setupExperiment(startTime=0.0)
fmu.enterInitializationMode()
fmu.setReal([vr["LocalVel0[1]"], vr["ThrustPower"]], [1.4, 30.0])
fmu.exitInitializationMode()
for k in range(100):
    fmu.doStep(currentCommunicationPoint=0.1 * k, communicationStepSize=0.1)
print(json.dumps({"fmu": fmu.getReal([vr["Pos[1]"]])[0], "library": library,
                  "carried": sorted({m.split(".")[0] for m in sys.modules if m.startswith("_auv_cosim_") and "." in m})}))
"""


def test_an_fmu_beside_a_changed_copy_of_the_package_gives_its_own_results(fmus, tmp_path):
    """The copy doubles the axial drag: the library imported from it flies differently, the FMU
    flies as it does alone, to the last bit."""
    copy = tmp_path / "site"
    shutil.copytree(ROOT / "auv_cosim", copy / "auv_cosim", ignore=shutil.ignore_patterns("__pycache__"))
    forces = copy / "auv_cosim" / "vehicles" / "auv" / "forces.py"
    forces.write_text(_double_axial_drag(forces.read_text()))
    alone = json.loads(_fresh(FLY_AUV, fmus["Auv"]))
    beside = json.loads(_fresh(FLY_AUV, fmus["Auv"], str(copy), AUV_NO_JIT="1"))
    assert beside["fmu"] == alone["fmu"]                          # bit for bit its own build's
    assert abs(beside["library"] - alone["fmu"]) > 1.0, beside    # the copy really flies otherwise
    assert len(beside["carried"]) == 1 and beside["carried"][0].startswith("_auv_cosim_")


def _double_axial_drag(text: str) -> str:
    """forces.py with the axial drag doubled (its coefficient, inside axial_drag_wrench)."""
    start = text.index("def axial_drag_wrench(")
    end = text.index("\ndef ", start)
    call = "drag_per_speed_squared(rho, frontal_area, axial_drag_coeff)"
    assert call in text[start:end]
    return text[:start] + text[start:end].replace(call, call.replace("axial_drag_coeff)", "2.0 * axial_drag_coeff)"), 1) \
        + text[end:]
