"""The ranges a vehicle's FMU declares where its model clamps an input (`Signal.limits`), and the
warning a set beyond one gets: from the parameters of the run, not only the defaults the
modelDescription shows. As Python objects (the AUV's and the H100's slaves), no FMU build."""
from __future__ import annotations

import pytest
from pythonfmu.enums import Fmi2Status

from auv_cosim.vehicles import Signal
from auv_cosim.vehicles.auv.slave import Auv
from auv_cosim.vehicles.h100.slave import H100

WARNING = int(Fmi2Status.warning)


def vr(slave, name):
    return next(v.value_reference for v in slave.vars.values() if v.name == name)


def started(slave, **parameters):
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    for name, value in parameters.items():
        slave.set_real([vr(slave, name)], [value])
    slave.exit_initialization_mode()
    return slave


def test_a_signal_resolves_its_limits_from_the_first_parameter_set_that_has_them():
    class P:
        Max = 2.5
    signal = Signal("U", 1, "1", "u", limits=("-Max", "Max"))
    assert signal.bounds([object(), P()]) == (-2.5, 2.5)
    assert Signal("V", 1, "1", "v", limits=(0, 1)).bounds([]) == (0.0, 1.0)
    assert Signal("W", 1, "1", "w").bounds([P()]) is None
    with pytest.raises(ValueError, match="signal U: no parameter Max"):
        signal.bounds([object()])


def test_the_auv_declares_its_clamped_inputs_from_the_default_parameters():
    slave = Auv(instance_name="a")
    meta = slave.fmu_meta
    assert (meta["ThrustPower"]["min"], meta["ThrustPower"]["max"]) == (0.0, 120.0)
    assert (meta["RudderYaw"]["min"], meta["RudderYaw"]["max"]) == (-0.35, 0.35)
    assert (meta["RudderDive"]["min"], meta["RudderDive"]["max"]) == (-0.35, 0.35)
    assert "min" not in meta["ExternalForce[1]"]


def test_a_set_beyond_the_run_s_range_warns_once_and_the_model_still_clamps():
    slave = started(Auv(instance_name="a"), MaxPropulsionPower=200.0)
    power = vr(slave, "ThrustPower")
    assert slave.set_real([power], [150.0]) is None            # within this run's 200 W
    assert slave.set_real([power], [1e30]) == WARNING
    assert any("ThrustPower = 1e+30 is outside its range [0.0, 200.0]" in m.msg
               for m in slave.log_queue if m.status == Fmi2Status.warning)
    assert slave.set_real([power], [1e30]) is None             # once per variable
    assert slave.do_step(0.0, 0.1) is not False                # the model limits it, as before


def test_the_h100_declares_its_thruster_commands_within_plus_minus_one():
    slave = started(H100(instance_name="h"))
    meta = slave.fmu_meta
    assert all((meta[f"ThrusterCommand[{i}]"]["min"], meta[f"ThrusterCommand[{i}]"]["max"]) == (-1.0, 1.0)
               for i in range(1, 9))
    assert slave.set_real([vr(slave, "ThrusterCommand[3]")], [5.0]) == WARNING
