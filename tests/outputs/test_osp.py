"""``export-osp``: libcosim (libcosimpy) loads the OspSystemStructure.xml of the survey stack
and runs it; the vehicle's position agrees with the master's Jacobi run of the same scenario to
1e-9 m at every checkpoint (libcosim's fixedStep is Jacobi). The convoy, two vehicles and a
wake, in libcosim and in Ecos. The refusals of every command."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.integration.test_other_hosts import largest_difference, master_run, need, run_host
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")
ROOT = Path(__file__).resolve().parents[2]
STOP = 30.0


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "auv_cosim", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("osp")
    scenario = folder / "survey_jacobi.yaml"
    scenario.write_text(textwrap.dedent(f"""\
        include: {find_scenario('survey')}
        name: survey_jacobi
        algorithm: jacobi
        stop_time: {STOP}
        """))
    out = folder / "out"
    out.mkdir()                                   # an existing empty folder is fine
    done = _cli("export-osp", str(scenario), str(out))
    assert done.returncode == 0, done.stderr
    return scenario, out, done


def test_the_structure_names_the_fmus_beside_it(exported):
    _, out, done = exported
    root = ET.parse(out / "OspSystemStructure.xml").getroot()
    ns = {"o": "http://opensimulationplatform.com/MSMI/OSPSystemStructure"}
    sims = {s.get("name"): s.get("source") for s in root.iterfind("o:Simulators/o:Simulator", ns)}
    assert sims == {"vehicle": "Auv.fmu", "sensors": "AuvSensors.fmu", "control": "AuvControl.fmu"}
    assert all((out / f).is_file() for f in sims.values())
    # 3 actuators, 12 truth elements (Pos, Euler, Vel by element; Depth, Speed, Altitude), 8 measurements
    assert len(root.findall("o:Connections/o:VariableConnection", ns)) == 23
    assert root.findtext("o:BaseStepSize", namespaces=ns) == "0.1"
    assert "stop conditions" in done.stderr     # what OSP does not carry is said


def test_libcosim_runs_it_as_the_jacobi_master(exported, tmp_path):
    need("libcosimpy")
    scenario, out, _ = exported
    rows = master_run(scenario, tmp_path / "master")
    result = run_host("libcosim", out / "OspSystemStructure.xml", STOP, 50)
    assert result["steps"][-1] == 300
    assert largest_difference(result, rows) <= 1e-9
    assert abs(float(rows[-1]["vehicle.Pos[1]"]) - float(rows[0]["vehicle.Pos[1]"])) > 20.0   # it went somewhere


def test_refusals(exported, tmp_path):
    scenario, out, _ = exported
    again = _cli("export-osp", str(scenario), str(out))
    assert again.returncode == 2 and "--force" in again.stderr and "OspSystemStructure.xml" in again.stderr
    assert _cli("export-osp", str(scenario), str(out), "--force").returncode == 0
    a_file = tmp_path / "file"
    a_file.write_text("x")
    bad = _cli("export-osp", str(scenario), str(a_file))
    assert bad.returncode == 2 and "not a folder" in bad.stderr
    fmus = _cli("export-osp", str(scenario), str(ROOT / "fmus"))
    assert fmus.returncode == 2 and "is the FMU the scenario names" in fmus.stderr



CONVOY_READ = ["leader.Pos[1]", "follower.Pos[1]", "follower.Pos[3]", "follower.WakeVelocity[1]"]


@pytest.fixture(scope="module")
def convoy(tmp_path_factory):
    """(the convoy's Jacobi scenario, the master's rows of it, libcosim's run of its export-osp)."""
    need("libcosimpy")
    folder = tmp_path_factory.mktemp("convoy")
    scenario = folder / "convoy_jacobi.yaml"
    scenario.write_text(f"include: {find_scenario('convoy')}\nname: convoy_jacobi\nalgorithm: jacobi\n"
                        f"stop_time: 40\nstop_when: null\n")
    done = _cli("export-osp", str(scenario), str(folder / "osp"))
    assert done.returncode == 0, done.stderr
    rows = master_run(scenario, folder / "master")
    result = run_host("libcosim", folder / "osp" / "OspSystemStructure.xml", 40.0, 50, "--read", *CONVOY_READ)
    return scenario, rows, result


def test_libcosim_flies_the_convoy_with_its_wake(convoy):
    """Two vehicles and a wake in another engine: the convoy exported for libcosim (six
    simulators, the leader's WakeSource into the follower's WakeSources) against the master's
    Jacobi run. The leader agrees to 1e-9 m. The follower differs by under a millimetre over
    40 s, by the engines' initialisation alone: libcosim hands the control's first ThrustPower to
    the vehicle before it leaves initialisation mode, so the leader's source at t = 0 carries
    its thrust; the master initialises each vehicle before its control (the loop is cut
    there), and at t = 0 the source has the thrust of the inputs set before
    fmi2ExitInitializationMode, none (SPEC 9.1). Both are what the SPEC says; the wake is the
    same from the first step on."""
    _, rows, result = convoy
    worst = {name: max(abs(v - float(rows[k][name])) for k, v in zip(result["steps"], result["values"][name]))
             for name in CONVOY_READ}
    assert worst["leader.Pos[1]"] <= 1e-9, worst
    assert worst["follower.Pos[1]"] < 1e-3 and worst["follower.Pos[3]"] < 1e-4, worst
    assert min(result["values"]["follower.WakeVelocity[1]"]) > 5e-3     # in the wake all along
    assert worst["follower.WakeVelocity[1]"] < 1e-5, worst


def test_ecos_flies_the_convoy_as_libcosim_does(convoy, tmp_path):
    """Ecos, given the convoy's SSP (its parameter set named), initialises as libcosim does:
    the two engines agree with each other to 1e-9 on both vehicles and the wake."""
    need("ecospy")
    scenario, _, result = convoy
    ssp = tmp_path / "convoy.ssp"
    done = _cli("export-ssp", str(scenario), str(ssp))
    assert done.returncode == 0, done.stderr
    ecos = run_host("ecos-api", ssp, 40.0, 50, "--parameter-set", "convoy_jacobi", "--read", *CONVOY_READ)
    assert ecos["steps"] == result["steps"]
    for name in CONVOY_READ:
        assert max(abs(a - b) for a, b in zip(ecos["values"][name], result["values"][name])) <= 1e-9, name
