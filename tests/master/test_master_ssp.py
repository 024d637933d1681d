"""`auv-cosim export-ssp` and `auv-cosim run X.ssp` (auv_cosim/master/ssp.py)."""
from __future__ import annotations

import zipfile
from xml.etree import ElementTree as ET

import pytest

from master_helpers import master

from auv_cosim.master.plan import build_plan
from auv_cosim.master.runner import find_scenario
from auv_cosim.master.scenario import ScenarioError, load_scenario
from auv_cosim.master.ssp import OSP, SSD, SSV, SSD_NAME, export_ssp, scenario_from_ssp, schema_problems


def _plan(name, **kwargs):
    return build_plan(load_scenario(find_scenario(name)), **kwargs)


@pytest.fixture(scope="module")
def survey_ssp(tmp_path_factory, fmus_built):
    out = tmp_path_factory.mktemp("ssp") / "survey.ssp"
    run = master("export-ssp", "survey", str(out), "--stop-time", "5")
    assert run.rc == 0, run
    assert "3 instances, 23 connections, step 0.1 s, stop time 5 s, parameter set 'survey'" in run.stdout
    return out


def test_archive_holds_a_schema_valid_ssd_and_the_fmus(survey_ssp):
    with zipfile.ZipFile(survey_ssp) as archive:
        names = set(archive.namelist())
        document = archive.read(SSD_NAME)
    assert names == {SSD_NAME, "resources/Auv.fmu", "resources/AuvSensors.fmu", "resources/AuvControl.fmu"}
    assert schema_problems(document) == []
    root = ET.fromstring(document)
    step = root.find(f"{{{SSD}}}DefaultExperiment/{{{SSD}}}Annotations/*/{{{OSP}}}Algorithm/{{{OSP}}}FixedStepAlgorithm")
    assert step.get("baseStepSize") == "0.1"
    assert root.find(f"{{{SSD}}}DefaultExperiment").get("stopTime") == "5.0"
    sets = root.findall(f".//{{{SSV}}}ParameterSet")
    assert len(sets) == 3 and {s.get("name") for s in sets} == {"survey"}
    vehicle = root.find(f".//{{{SSD}}}Component[@name='vehicle']")
    pos0 = vehicle.find(f".//{{{SSV}}}Parameter[@name='Pos0[1]']/{{{SSV}}}Real")
    assert pos0.get("value") == "-20.0"                        # survey.yaml overrides the stack
    waypoints = root.find(f".//{{{SSD}}}Component[@name='control']//{{{SSV}}}Parameter[@name='Waypoints']")
    assert "500,50,10" in waypoints[0].get("value")
    # every connection end is a declared connector (libcosim refuses the file otherwise)
    connectors = {(c.get("name"), comp.get("name")) for comp in root.iter(f"{{{SSD}}}Component")
                  for c in comp.iter(f"{{{SSD}}}Connector")}
    for c in root.iter(f"{{{SSD}}}Connection"):
        assert (c.get("startConnector"), c.get("startElement")) in connectors
        assert (c.get("endConnector"), c.get("endElement")) in connectors


def test_reading_it_back_gives_the_same_plan(survey_ssp, tmp_path):
    original = _plan("survey", stop_time=5.0)
    again = build_plan(load_scenario(scenario_from_ssp(survey_ssp, tmp_path)))
    assert (again.name, again.step, again.stop_time, again.algorithm, again.order) == \
           ("survey", 0.1, 5.0, "gauss-seidel", ["control", "vehicle", "sensors"])
    assert [c.text for c in again.connections] == [c.text for c in original.connections]
    for name, ip in original.instances.items():
        assert [(v.name, value) for v, value in again.instances[name].params] == \
               [(v.name, value) for v, value in ip.params]
    assert [s.text for s in again.stops] == [s.text for s in original.stops]


def test_the_master_runs_the_ssp_as_the_scenario(survey_ssp, tmp_path):
    from_ssp = master("run", str(survey_ssp), "--no-plots", out=tmp_path / "ssp")
    from_yaml = master("run", "survey", "--stop-time", "5", "--no-plots", out=tmp_path / "yaml")
    assert from_ssp.rc == 0 and from_yaml.rc == 0, (from_ssp, from_yaml)
    assert from_ssp.csv_path.read_bytes() == from_yaml.csv_path.read_bytes()


def test_what_ssp_cannot_carry_is_named(tmp_path, fmus_built):
    run = master("export-ssp", "depth_step", str(tmp_path / "d.ssp"))
    assert run.rc == 0, run
    assert "not exported (SSP has no input signals): control.SpeedCommand" in run.stderr


def test_a_bad_scenario_or_archive_is_refused_naming_it(tmp_path, fmus_built):
    run = master("export-ssp", "no_such_scenario", str(tmp_path / "x.ssp"))
    assert run.rc == 2 and "no_such_scenario" in run.stderr and not (tmp_path / "x.ssp").exists()
    junk = tmp_path / "junk.ssp"
    junk.write_text("not a zip")
    run = master("run", str(junk), "--no-plots", out=tmp_path / "out")
    assert run.rc == 2 and "junk.ssp" in run.stderr and "cannot read the SSP archive" in run.stderr


def test_a_connection_with_a_transformation_is_refused(survey_ssp, tmp_path):
    with zipfile.ZipFile(survey_ssp) as archive:
        document = archive.read(SSD_NAME).decode()
    document = document.replace(
        'endConnector="ThrustPower" />',
        'endConnector="ThrustPower"><ssc:LinearTransformation factor="2.0" /></ssd:Connection>', 1)
    edited = tmp_path / "edited.ssp"
    with zipfile.ZipFile(survey_ssp) as source, zipfile.ZipFile(edited, "w") as target:
        for name in source.namelist():
            target.writestr(name, document if name == SSD_NAME else source.read(name))
    with pytest.raises(ScenarioError, match="transformation"):
        scenario_from_ssp(edited, tmp_path / "x")


def test_export_refuses_an_invalid_document(tmp_path, monkeypatch):
    from auv_cosim.master import ssp

    monkeypatch.setattr(ssp, "ssd_document", lambda plan, sources: b"<ssd:SystemStructureDescription "
                        b"xmlns:ssd='http://ssp-standard.org/SSP1/SystemStructureDescription'/>")
    with pytest.raises(ScenarioError, match="not valid SSP 1.0"):
        export_ssp(_plan("survey"), tmp_path / "bad.ssp")
    assert not (tmp_path / "bad.ssp").exists()
