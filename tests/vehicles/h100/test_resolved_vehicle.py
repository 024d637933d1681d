"""A vehicle file resolved at build (auv_cosim/vehicles/h100/resolved.py): the FMU reads it
instead of the YAML, with the standard library only, and gets the same vehicle to the bit."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from auv_cosim.vehicles.h100 import VEHICLES_DIR, VehicleFileError, load_vehicle, vehicle_for
from auv_cosim.vehicles.h100.resolved import RESOLVED_SUFFIX, load_resolved, resolved_text

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", ["H100.yaml", "H100_6_slanted.yaml"])
def test_the_resolved_vehicle_is_the_loaded_one_to_the_bit(tmp_path, name):
    shutil.copytree(VEHICLES_DIR, tmp_path / "vehicles")
    loaded = load_vehicle(str(tmp_path / "vehicles" / name))
    (tmp_path / "vehicles" / (name + RESOLVED_SUFFIX)).write_text(resolved_text(loaded))
    (tmp_path / "vehicles" / name).write_text("not: [valid")   # the YAML is not read any more
    again = vehicle_for(str(tmp_path), f"vehicles/{name}")
    assert again == loaded


def test_reading_a_resolved_vehicle_imports_no_yaml_reader_and_no_pydantic(tmp_path):
    """(numba imports yaml for its own configuration file: the vehicle code imports none.)"""
    path = tmp_path / ("H100.yaml" + RESOLVED_SUFFIX)
    path.write_text(resolved_text(load_vehicle()))
    code = ("import sys\nfrom auv_cosim.vehicles.h100 import vehicle_for\n"
            f"vehicle_for({str(tmp_path)!r}, 'H100.yaml')\n"
            "print(sorted(m for m in ('pydantic', 'auv_cosim.vehicles.h100.vehicle_file') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_a_resolved_file_of_another_format_asks_for_a_rebuild(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"format": 0}))
    with pytest.raises(VehicleFileError, match="rebuild the FMU"):
        load_resolved(str(path))
