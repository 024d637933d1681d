"""The slave classes as Python objects: their variable tables follow the plain-Python
configurations, and units / variabilities are declared for the builder."""
from dataclasses import fields

import pytest

from auv_cosim.vehicles.auv.stack import control_slave as auv_control_fmu, instruments_slave as auv_sensors_fmu
from auv_cosim.vehicles.auv.stack.control import ControlConfig
from auv_cosim.vehicles.auv.stack.instruments import SensorConfig
from auv_cosim.fmu.units import is_known


@pytest.mark.parametrize("module, config", [(auv_sensors_fmu, SensorConfig), (auv_control_fmu, ControlConfig)])
def test_every_configuration_field_is_a_parameter_with_its_default(module, config):
    params = {v.name: v for v in module.PARAMETERS}
    assert set(params) == {f.name for f in fields(config)}
    defaults = config()
    for name, row in params.items():
        assert row.start == getattr(defaults, name), name
        assert row.description, name


@pytest.mark.parametrize("module, cls", [(auv_sensors_fmu, "AuvSensors"), (auv_control_fmu, "AuvControl")])
def test_units_and_variabilities(module, cls):
    slave = getattr(module, cls)(instance_name="x")
    for row in module.TABLE:
        if row.type == "Real":
            assert row.unit and is_known(row.unit), row.name
            assert slave.fmu_meta[row.name]["unit"] == row.unit
        else:
            assert row.unit is None
    for var in slave.vars.values():
        assert var.variability is not None, var.name
        if var.causality.name == "parameter":
            assert var.variability.name == "fixed", var.name
        elif type(var).__name__ != "Real":
            assert var.variability.name == "discrete", var.name
        if var.causality.name == "output":
            assert slave.fmu_meta[var.name]["depends_on"] == []   # no direct feedthrough


def test_interface_names_match_the_contract():
    sensors = {r.name: r for r in auv_sensors_fmu.TABLE}
    control = {r.name: r for r in auv_control_fmu.TABLE}
    assert {n for n, r in sensors.items() if r.causality == "input"} == {
        "Pos[1]", "Pos[2]", "Pos[3]", "Euler[1]", "Euler[2]", "Euler[3]", "Depth", "Speed",
        "Altitude", "Vel[1]", "Vel[2]", "Vel[3]"}
    sensor_outputs = {n for n, r in sensors.items() if r.causality == "output"}
    control_inputs = {n for n, r in control.items() if r.causality == "input"}
    # every sensor output the controller uses has the same name on both sides (the altimeter and
    # the DVL's beam count are for the records and other controllers)
    assert sensor_outputs - {"MeasuredRoll", "MeasuredAltimeter", "AltimeterValid", "DvlBeamsInRange"} <= control_inputs
    assert control_inputs - sensor_outputs == {"SpeedCommand", "HeadingCommand", "DepthCommand"}
