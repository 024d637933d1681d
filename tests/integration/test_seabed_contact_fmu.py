"""The seabed is solid, through the FMU and the master: a heavy Auv.fmu sinking onto a plane
seabed is stopped on it, its Boolean output SeabedContact rises, and the run's summary names the
time and place of the contact (summary.json and the lines `auv-cosim run` prints)."""
from __future__ import annotations

import numpy as np
import pytest

FLOOR = 25.0


@pytest.fixture(scope="module")
def sunk(tmp_path_factory, fmus_built):
    from auv_cosim.master import run

    out = tmp_path_factory.mktemp("contact")
    scenario = {"stop_time": 40, "instances": {"vehicle": {"fmu": "fmus/Auv.fmu", "parameters": {
        "Pos0": [3.0, -2.0, FLOOR - 1.5], "AverageDensity": 1060.0, "SeaFloorDepth": FLOOR}}}}
    result = run(scenario, out_dir=out, plots=False, progress=False)
    assert result.ok, result.reason
    return result, result.column


def test_the_auv_is_stopped_on_the_seabed_and_says_so(sunk):
    _, column = sunk
    touching = column("vehicle.SeabedContact")
    assert set(np.unique(touching)) == {0.0, 1.0} and touching[-1] == 1.0
    keel = column("vehicle.Depth") + 0.1                  # the default hull's radius
    assert keel.max() < FLOOR + 0.02                      # stopped within 2 cm
    assert np.all(touching == (keel > FLOOR))             # the output is the keel below the seabed
    assert column("vehicle.Altitude")[-1] == pytest.approx(0.1, abs=0.02)   # the body origin, a radius up


def test_the_summary_names_the_contact_s_time_and_place(sunk):
    result, column = sunk
    contacts = result.summary["vehicles"]["vehicle"]["seabed_contacts"]
    first = int(np.argmax(column("vehicle.SeabedContact") > 0.5))
    assert len(contacts) >= 1
    assert contacts[0]["time_s"] == pytest.approx(column("time")[first])
    assert contacts[0]["north_m"] == pytest.approx(column("vehicle.Pos[1]")[first], abs=1e-4)
    assert contacts[0]["depth_m"] == pytest.approx(column("vehicle.Depth")[first], abs=1e-4)
    assert contacts[0]["latitude_deg"] == pytest.approx(column("vehicle.Latitude")[first], abs=1e-9)
    from auv_cosim.vehicles.auv.host.figures import describe_run

    assert any(line.startswith(f"SEABED CONTACT at t={contacts[0]['time_s']:g} s") for line in describe_run(result.summary))
