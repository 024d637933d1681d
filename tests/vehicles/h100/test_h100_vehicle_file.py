"""Vehicle files: loading, and errors that name the file and the field."""
import math
from pathlib import Path

import pytest
import yaml

from auv_cosim.vehicles.h100 import H100Parameters, VehicleFileError, load_vehicle
from auv_cosim.vehicles.h100.vehicle_file import VEHICLES_DIR


def test_the_vehicle_files_load():
    for name, count in (("H100", 8), ("H100_6_slanted", 6), ("BlueROV2", 6)):
        vehicle = load_vehicle(f"{VEHICLES_DIR}/{name}.yaml")
        assert vehicle.name == name and vehicle.params.thruster_count == count
        assert len(vehicle.thruster_names) == count


def write_vehicle(tmp_path, body_changes=None, thrusters_changes=None, drop=()):
    with open(f"{VEHICLES_DIR}/h100/body.yaml") as f:
        body = yaml.safe_load(f)
    with open(f"{VEHICLES_DIR}/h100/thrusters_8.yaml") as f:
        thrusters = yaml.safe_load(f)
    body.update(body_changes or {})
    thrusters.update(thrusters_changes or {})
    for key in drop:
        body.pop(key, None)
    (tmp_path / "body.yaml").write_text(yaml.safe_dump(body))
    (tmp_path / "thrusters.yaml").write_text(yaml.safe_dump(thrusters))
    (tmp_path / "vehicle.yaml").write_text("name: X\nbody: body.yaml\nthrusters: thrusters.yaml\n")
    return str(tmp_path / "vehicle.yaml")


@pytest.mark.parametrize("changes, file, words", [
    (dict(Mass=-1.0), "body.yaml", ["field Mass", "must be positive"]),
    (dict(Volume=0.0), "body.yaml", ["field Volume", "must be positive"]),
    (dict(Rho=float("nan")), "body.yaml", ["field Rho", "finite"]),
    (dict(Inertia=[[0.26, 0.1, 0], [0, 0.23, 0], [0, 0, 0.37]]), "body.yaml", ["Inertia[1,2]", "symmetric"]),
    (dict(Inertia=[-0.26, 0.23, 0.37]), "body.yaml", ["Inertia", "positive definite"]),
    (dict(AddedMass=[-30.0, 7.12, 18.68, 0.189, 0.135, 0.222]), "body.yaml", ["AddedMass", "positive definite"]),
    (dict(Masss=13.5), "body.yaml", ["field Masss", "Extra inputs"]),
    (dict(LinearDamping=[1, 2, 3]), "body.yaml", ["field LinearDamping"]),
    (dict(MaxThrustForward=50.0), "body.yaml", ["MaxThrustForward", "thrusters file"]),
])
def test_bad_body_names_the_file_and_field(tmp_path, changes, file, words):
    path = write_vehicle(tmp_path, body_changes=changes)
    with pytest.raises(VehicleFileError) as error:
        load_vehicle(path)
    message = str(error.value)
    assert str(tmp_path / file) in message
    for word in words:
        assert word in message


def test_bad_thrusters_name_the_thrusters_file(tmp_path):
    path = write_vehicle(tmp_path, thrusters_changes={"thrusters": [
        {"position": [0, 0, 0], "direction": [0, 0, 0]}]})
    with pytest.raises(VehicleFileError, match=r"thrusters\.yaml: .*ThrusterDir\[1,1..3\].*zero length"):
        load_vehicle(path)
    path = write_vehicle(tmp_path, thrusters_changes={"thrusters": [{"position": [0, 0], "direction": [1, 0, 0]}]})
    with pytest.raises(VehicleFileError, match=r"thrusters\.yaml: field thrusters\[1\]\.position"):
        load_vehicle(path)
    path = write_vehicle(tmp_path, thrusters_changes={"ThrusterTimeConstant": -0.1})
    with pytest.raises(VehicleFileError, match=r"thrusters\.yaml: field ThrusterTimeConstant: .*must be positive"):
        load_vehicle(path)


def test_missing_or_broken_files(tmp_path):
    with pytest.raises(VehicleFileError, match="cannot read"):
        load_vehicle(str(tmp_path / "nothing.yaml"))
    (tmp_path / "v.yaml").write_text("name: [unclosed\n")
    with pytest.raises(VehicleFileError, match="not valid YAML"):
        load_vehicle(str(tmp_path / "v.yaml"))


def test_parameters_refuse_a_layout_without_thrusters():
    with pytest.raises(ValueError, match="no thruster"):
        H100Parameters()
    with pytest.raises(ValueError, match="has 1 directions for 2 thrusters"):
        H100Parameters(ThrusterPos=(0, 0, 0, 1, 0, 0), ThrusterDir=(1, 0, 0))
    with pytest.raises(ValueError, match="ThrusterPos .* rows of 3"):
        H100Parameters(ThrusterPos=(0, 0, 0, 1), ThrusterDir=(1, 0, 0))
    params = H100Parameters(ThrusterPos=(0, 0, 0), ThrusterDir=(2, 0, 0))
    assert params.unit_thruster_directions()[0] == pytest.approx([1, 0, 0])
    assert math.isclose(params.Mass, 13.5)


def test_every_vehicle_file_reads_the_same_with_the_loader_used():
    """vehicle_file.SAFE_LOADER (libyaml's parser where PyYAML has it, for start-up time) gives
    what PyYAML's pure-Python safe loader gives, for every vehicle file shipped."""
    from auv_cosim.vehicles.h100 import vehicle_file

    from auv_cosim.vehicles.h100.resolved import VEHICLES_DIR

    files = sorted(Path(VEHICLES_DIR).rglob("*.yaml"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=vehicle_file.SAFE_LOADER) == yaml.safe_load(text), path.name
