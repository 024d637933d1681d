"""The seabed is solid for the H100 too, through H100.fmu and the master: with its thrusters off
the ROV (1 N heavier than the water it displaces) sinks onto the seabed and rests on it, its
Boolean output SeabedContact rises, and the run's summary names the time and place of the
contact (summary.json's seabed_contacts of the vehicle, and the lines `auv-cosim run` prints).

The frame's lowest point is the bottom of the box of height `Height` (0.254 m) centred on the
centre of buoyancy (1 cm above O): O's depth + 0.117 m on an even keel."""
from __future__ import annotations

import numpy as np
import pytest

FLOOR = 12.0
KEEL = 0.254 / 2 - 0.01          # from O down to the frame's lowest point, level


@pytest.fixture(scope="module")
def sunk(tmp_path_factory, fmus_built):
    from auv_cosim.master import run

    out = tmp_path_factory.mktemp("h100_contact")
    scenario = {"stop_time": 40, "step": 0.1, "instances": {"vehicle": {"fmu": "fmus/H100.fmu", "parameters": {
        "Pos0": [3.0, -2.0, FLOOR - KEEL - 0.3], "SeaFloorDepth": FLOOR,
        "OriginLatitude": 59.9, "OriginLongitude": 10.7}}}}
    result = run(scenario, out_dir=out, plots=False, progress=False)
    assert result.ok, result.reason
    return result, result.column


def test_the_h100_comes_to_rest_on_the_seabed_and_says_so(sunk):
    _, column = sunk
    touching = column("vehicle.SeabedContact")
    assert touching[0] == 0.0 and touching[-1] == 1.0
    lowest = column("vehicle.Depth") + KEEL
    assert np.all(touching == (lowest > FLOOR))                 # the output is the frame below the seabed
    assert 0.0 < lowest.max() - FLOOR < 0.003                   # stopped within millimetres
    assert lowest[-1] - FLOOR == pytest.approx(0.001, abs=2e-4)     # at rest 1.0 mm in: K ramp = W - B
    assert abs(column("vehicle.Vel[3]")[-1]) < 1e-5
    assert column("vehicle.Altitude")[-1] == pytest.approx(KEEL, abs=0.002)


def test_the_summary_names_the_contact_s_time_and_place(sunk):
    result, column = sunk
    contacts = result.summary["vehicles"]["vehicle"]["seabed_contacts"]
    first = int(np.argmax(column("vehicle.SeabedContact") > 0.5))
    # touching at 12.4 s, it rebounds by a fraction of a millimetre and touches again for good at 13.2 s
    # (leaving the seabed, the damping pulls for the last millimetre: the price of no kink)
    assert 1 <= len(contacts) <= 2 and contacts[-1]["time_s"] < contacts[0]["time_s"] + 2.0
    assert column("vehicle.SeabedContact")[column("time") >= contacts[-1]["time_s"]].min() == 1.0
    assert contacts[0]["time_s"] == pytest.approx(column("time")[first])
    assert contacts[0]["north_m"] == pytest.approx(3.0, abs=1e-4)        # straight down from Pos0
    assert contacts[0]["east_m"] == pytest.approx(-2.0, abs=1e-4)
    assert contacts[0]["depth_m"] == pytest.approx(FLOOR - KEEL, abs=1e-3)
    assert contacts[0]["latitude_deg"] == pytest.approx(column("vehicle.Latitude")[first], abs=1e-7)   # 10 digits
    from auv_cosim.master.registry import figures

    lines = [line for plugin in figures().values() if plugin.describe for line in plugin.describe(result.summary)]
    assert any(f"SEABED CONTACT at t={contacts[0]['time_s']:g} s: north 3.0 m, east -2.0 m" in line for line in lines)


def test_the_output_comes_after_every_other_variable(fmus_built):
    """No value reference moved (H100.fmu validates in tests/vehicles/h100/test_h100_fmu.py)."""
    from pathlib import Path

    from fmpy import read_model_description

    last = read_model_description(str(Path(__file__).resolve().parents[2] / "fmus" / "H100.fmu")).modelVariables[-1]
    assert (last.name, last.type, last.causality, last.variability) == ("SeabedContact", "Boolean", "output", "discrete")


def test_commanded_below_the_seabed_it_is_held_on_it(fmus_built, tmp_path):
    """h100_hold told to hold 0.5 m below the seabed (the stack's 30 m floor): its vertical
    thrusters saturate pushing down (4 x 40 N), and the seabed holds the frame 13 mm in (measured
    12.7 mm: K ramp(delta) = 160 N + W - B), touching once and for good."""
    from auv_cosim.master import run

    overrides = {"vehicle.Pos0[3]": 29.5, "control.HoldInitialPose": False, "control.HoldPosition[3]": 30.5}
    result = run("h100_hold", out_dir=tmp_path, stop_time=40.0, overrides=overrides, plots=False, progress=False)
    assert result.ok, result.reason
    header = (tmp_path / "results.csv").read_text().split("\n", 1)[0].split(",")
    data = np.loadtxt(tmp_path / "results.csv", delimiter=",", skiprows=1)
    lowest = data[:, header.index("vehicle.Depth")] + KEEL - 30.0
    touching = data[:, header.index("vehicle.SeabedContact")]
    first = int(np.argmax(touching > 0.5))
    assert 0 < first and touching[first:].min() == 1.0
    assert 0.005 < lowest[first + 20:].max() < 0.015
    assert len(result.summary["vehicles"]["vehicle"]["seabed_contacts"]) == 1
