"""Issue 17, the campaign findings (numbered as in the issue): `python -m master sweep` through
the CLI in a fresh process, as users run it."""
from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "master"))
from master_helpers import master  # noqa: E402

DEPTH_STEP = (REPO / "scenarios" / "depth_step.yaml").as_posix()


@pytest.fixture(scope="module")
def fmus_built():
    missing = [n for n in ("Auv", "AuvSensors", "AuvControl") if not (REPO / "fmus" / f"{n}.fmu").is_file()]
    if missing:
        pytest.fail(f"the FMUs are not built ({', '.join(missing)} missing): run ./build.sh first")


pytestmark = pytest.mark.usefixtures("fmus_built")


def rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_02_03_vary_drives_signal_inputs_and_elements_as_set_does(tmp_path):
    """2: --vary of a signal-driven input replaced nothing (identical runs); 3: --vary of an
    element lost to the file's own element setting."""
    scen = tmp_path / "elem.yaml"
    scen.write_text(f"include: {DEPTH_STEP}\ninstances:\n  vehicle:\n    parameters:\n      'Pos0[3]': 10\n")
    r = master("sweep", str(scen), "--vary", "control.SpeedCommand=0.8,1.4", "--vary", "vehicle.Pos0[3]=3,6",
               "--stop-time", "0.2", "--workers", "1", "--no-progress", "--no-plots", out=tmp_path / "c")
    assert r.rc == 0, r
    runs = {(float(x["control.SpeedCommand"]), float(x["vehicle.Pos0[3]"])): x for x in rows(tmp_path / "c" / "campaign.csv")}
    assert len(runs) == 4
    for (speed, z0), row in runs.items():
        run_dir = tmp_path / "c" / row["run_dir"]
        data = rows(run_dir / "results.csv")
        assert float(data[0]["vehicle.Pos[3]"]) == z0
        assert float(data[1]["control.SpeedCommand"]) == speed
        scenario = yaml.safe_load((run_dir / "scenario.yaml").read_text())
        assert scenario["signals"]["control.SpeedCommand"] == {"constant": speed}
    # a connection-driven input cannot be varied (it would be overwritten), like run --set
    r = master("sweep", "survey", "--vary", "vehicle.ThrustPower=0,100", "--stop-time", "20", "--dry-run",
               out=tmp_path / "d")
    assert r.rc == 2, r
    assert "--vary: vehicle.ThrustPower: vehicle.ThrustPower is driven by connection" in r.stderr


def test_21_vary_of_an_element_past_the_end_names_the_index(tmp_path):
    r = master("sweep", "depth_step", "--vary", "vehicle.Pos0[4]=1,2", "--dry-run", out=tmp_path / "c")
    assert r.rc == 2, r
    assert "--vary: vehicle.Pos0[4]: vehicle.Pos0 has 3 elements (Pos0[1] .. Pos0[3]); there is no element [4]" in r.stderr


def test_04_vary_refuses_integers_beyond_32_bits(tmp_path):
    r = master("sweep", "depth_step", "--vary", "sensors.Seed=1,4294967297", "--dry-run", out=tmp_path / "c")
    assert r.rc == 2 and "4294967297 is outside" in r.stderr, r
