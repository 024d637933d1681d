"""`FmuSlave` as a Python object (no FMU build): registration, the FMI rules on setting
variables, the status shield, the FMU state, and the declarations of `auv_cosim.fmu.declare`."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from pythonfmu.enums import Fmi2Status

from auv_cosim.fmu import FmuError, FmuSlave
from auv_cosim.fmu.slave import STATE_FORMAT
from auv_cosim.fmu.declare import Var, parameters_of, register, register_with_real_outputs


class Counter(FmuSlave):
    """Counts up by Rate per second; fails a step when Rate is negative."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.Rate = 1.0
        self.Limit = 10.0
        self.Count = 0.0
        self.Label = "counter"
        self.Wrapped = False
        self.Steps = 0
        self.trace = np.zeros(3)
        self.add_real("Rate", causality="input", unit="1/s", description="Counting rate")
        self.add_real("Limit", causality="parameter", unit="1", description="Largest count")
        self.add_real("Count", causality="output", unit="1", description="The count",
                      depends_on=[])
        self.add_string("Label", causality="parameter", description="A name")
        self.add_boolean("Wrapped", causality="output", description="Count reached Limit")
        self.add_integer("Steps", causality="output", description="Steps taken")
        self.add_real_vector("Trace", 3, causality="output", unit=("1", "1/s", "s"),
                             description=["count", "rate", "time"], attr="trace")
        self.time = 0.0

    def fmu_exit_initialization(self):
        if self.Limit <= 0.0:
            raise FmuError(f"parameter Limit = {self.Limit!r} must be positive")

    def fmu_do_step(self, current_time, step_size):
        if self.Rate < 0.0:
            raise FmuError(f"input Rate = {self.Rate!r} must not be negative")
        self.Count = min(self.Count + self.Rate * step_size, self.Limit)
        self.Wrapped = self.Count >= self.Limit
        self.Steps += 1
        self.time = current_time + step_size
        self.trace[:] = (self.Count, self.Rate, self.time)

    def fmu_get_state(self):
        return {"time": self.time, "trace": self.trace.tolist()}

    def fmu_set_state(self, internal):
        self.time = internal["time"]
        self.trace[:] = internal["trace"]


def vr(slave, name):
    return next(v.value_reference for v in slave.vars.values() if v.name == name)


def errors(slave):
    return [m.msg for m in slave.log_queue if m.status == Fmi2Status.error]


def initialised(**parameters):
    slave = Counter(instance_name="c")
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    for name, value in parameters.items():
        slave.set_real([vr(slave, name)], [value])
    slave.exit_initialization_mode()
    return slave


def test_registration_records_units_dependencies_and_legal_variabilities():
    slave = Counter(instance_name="c")
    assert slave.fmu_meta["Rate"] == {"unit": "1/s", "depends_on": None}
    assert slave.fmu_meta["Count"]["depends_on"] == []
    assert [slave.fmu_meta[f"Trace[{i}]"]["unit"] for i in (1, 2, 3)] == ["1", "1/s", "s"]
    variability = {v.name: v.variability.name for v in slave.vars.values()}
    assert variability["Limit"] == "fixed" and variability["Label"] == "fixed"
    assert variability["Rate"] == "continuous"
    assert variability["Wrapped"] == "discrete" and variability["Steps"] == "discrete"


@pytest.mark.parametrize("kwargs, message", [
    (dict(unit="furlong", description="x"), "unknown unit 'furlong'"),
    (dict(unit="m", description=""), "a description is required"),
])
def test_registration_refuses_an_unknown_unit_or_no_description(kwargs, message):
    slave = Counter(instance_name="c")
    slave.Extra = 0.0
    with pytest.raises(ValueError, match=message):
        slave.add_real("Extra", causality="input", **kwargs)


def test_registration_refuses_a_name_twice_and_a_missing_attribute():
    slave = Counter(instance_name="c")
    with pytest.raises(ValueError, match="Rate registered twice"):
        slave.add_real("Rate", causality="input", unit="1/s", description="again")
    with pytest.raises(ValueError, match="attribute self.Nothing does not exist"):
        slave.add_real("Nothing", causality="input", unit="1", description="none")


def test_a_step_advances_and_outputs_read_as_one_slice():
    slave = initialised()
    assert slave.do_step(0.0, 0.5) is True
    assert slave.get_real([vr(slave, "Count")]) == [0.5]
    refs = [vr(slave, f"Trace[{i}]") for i in (1, 2, 3)]
    assert slave.get_real(refs) == [0.5, 1.0, 0.5]
    assert slave.get_integer([vr(slave, "Steps")]) == [1]
    assert slave.get_boolean([vr(slave, "Wrapped")]) == [False]


def test_a_fixed_parameter_or_an_output_set_after_initialisation_is_an_error_naming_it():
    slave = initialised(Limit=4.0)
    with pytest.raises(FmuError, match="fmi2SetReal: cannot set Limit now: it is a fixed parameter"):
        slave.set_real([vr(slave, "Limit")], [99.0])
    assert slave.Limit == 4.0 and slave._phase == "error"   # FMI 2.0: fmi2Error, then Error
    slave = initialised()
    with pytest.raises(FmuError, match="cannot set Count now: its causality is output"):
        slave.set_real([vr(slave, "Count")], [7.0])
    assert slave.Count == 0.0
    slave = initialised()
    slave.set_real([vr(slave, "Rate")], [2.0])   # an input: fine at any time
    assert slave.Rate == 2.0


def test_a_failed_step_is_a_discard_that_leaves_the_instance_usable():
    slave = initialised()
    slave.do_step(0.0, 1.0)
    slave.set_real([vr(slave, "Rate")], [-1.0])
    assert slave.do_step(1.0, 1.0) is False
    assert "input Rate = -1.0 must not be negative" in errors(slave)[-1]
    assert slave.Count == 1.0
    slave.set_real([vr(slave, "Rate")], [1.0])
    assert slave.do_step(1.0, 1.0) is True and slave.Count == 2.0


def test_a_step_before_initialisation_is_refused():
    slave = Counter(instance_name="c")
    assert slave.do_step(0.0, 1.0) is False
    assert "fmi2DoStep at t=0.0: not allowed in state Instantiated" in errors(slave)[-1]


def test_under_the_native_wrapper_a_failed_step_leaves_the_instance_in_error_until_a_state_is_restored():
    slave = Counter(instance_name="c", fmi2_exception_status=True)
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    slave.exit_initialization_mode()
    slave.do_step(0.0, 1.0)
    saved = slave._get_fmu_state()
    slave.set_real([vr(slave, "Rate")], [-1.0])
    with pytest.raises(FmuError, match="input Rate = -1.0 must not be negative"):
        slave.do_step(1.0, 1.0)
    with pytest.raises(FmuError, match="fmi2SetReal: not allowed in state Error .*fmi2Reset"):
        slave.set_real([vr(slave, "Rate")], [1.0])
    with pytest.raises(FmuError, match="fmi2DoStep at t=1.0: not allowed in state Error"):
        slave.do_step(1.0, 1.0)
    assert slave.get_real([vr(slave, "Count")]) == [1.0]   # the getters stay allowed in Error
    slave._set_fmu_state(saved)
    assert slave.do_step(1.0, 1.0) is True and slave.Count == 2.0


def test_an_unknown_value_reference_names_the_fmu_and_the_reference_not_a_file():
    slave = initialised()
    with pytest.raises(FmuError) as failure:
        slave.get_real([999999])
    assert str(failure.value) == "fmi2GetReal: Counter has no variable with value reference 999999"
    slave = initialised()
    with pytest.raises(FmuError, match="^fmi2SetInteger: Counter has no variable with value reference 42$"):
        slave.set_integer([42], [1])


def test_an_unexpected_exception_names_its_type_and_logs_where_only_as_information():
    slave = initialised()
    with pytest.raises(FmuError) as failure:
        slave.get_real([vr(slave, "Count"), object()])
    assert ".py" not in str(failure.value), failure.value


class Ranged(Counter):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.Gain = 1.0
        self.add_real("Gain", causality="input", unit="1", description="A clamped gain",
                      minimum=-1.0, maximum=2.0)


def test_a_value_beyond_a_declared_range_is_set_with_a_warning_once_per_variable():
    slave = Ranged(instance_name="r")
    assert (slave.fmu_meta["Gain"]["min"], slave.fmu_meta["Gain"]["max"]) == (-1.0, 2.0)
    gain, rate = vr(slave, "Gain"), vr(slave, "Rate")
    assert slave.set_real([gain], [2.0]) is None                 # the bounds are inside
    assert slave.set_real([rate, gain], [1.0, 5.0]) == int(Fmi2Status.warning)
    assert slave.Gain == 5.0                                     # the model is what limits it
    warnings = [m.msg for m in slave.log_queue if m.status == Fmi2Status.warning]
    assert warnings == ["fmi2SetReal: Gain = 5.0 is outside its range [-1.0, 2.0] (modelDescription "
                        "min/max): the model limits it to the range (said once per variable)"]
    assert slave.set_real([gain], [-7.0]) is None                # said once
    assert slave.set_real([gain, rate], [float("nan"), 1.0]) is None


@pytest.mark.parametrize("bounds, message", [
    (dict(minimum=3.0, maximum=1.0), "minimum 3.0 above maximum 1.0"),
    (dict(maximum=float("inf")), "maximum inf is not a finite number"),
])
def test_a_range_must_be_finite_and_not_empty(bounds, message):
    slave = Counter(instance_name="c")
    slave.Extra = 0.0
    with pytest.raises(ValueError, match=message):
        slave.add_real("Extra", causality="input", unit="1", description="x", **bounds)


def test_a_bad_parameter_fails_initialisation_naming_it():
    slave = Counter(instance_name="c")
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    slave.set_real([vr(slave, "Limit")], [-3.0])
    with pytest.raises(FmuError, match="parameter Limit = -3.0 must be positive"):
        slave.exit_initialization_mode()
    assert "initialisation of c failed: parameter Limit = -3.0" in errors(slave)[-1]


def test_a_wrongly_typed_reference_fails_the_call_naming_the_variable():
    slave = initialised()
    with pytest.raises(FmuError, match=r"value reference \d+ of Counter is Label, a String, not a Real"):
        slave.get_real([vr(slave, "Label")])


def test_the_fmu_state_round_trips_through_bytes_and_continues_identically():
    slave = initialised()
    slave.do_step(0.0, 1.0)
    saved = slave._fmu_state_from_bytes(slave._fmu_state_to_bytes(slave._get_fmu_state()))
    slave.do_step(1.0, 1.0)
    after_two = (slave.Count, slave.Steps, slave.trace.tolist())
    slave._set_fmu_state(saved)
    assert (slave.Count, slave.Steps) == (1.0, 1)
    slave.do_step(1.0, 1.0)
    assert (slave.Count, slave.Steps, slave.trace.tolist()) == after_two


def test_a_foreign_state_is_refused():
    slave = initialised()
    with pytest.raises(FmuError, match="not an FMU state of this FMU"):
        slave._set_fmu_state({"format": None, "error": "garbage"})


def test_a_state_of_another_format_is_refused_by_its_format():
    slave = initialised()
    saved = slave._get_fmu_state()
    saved["format"] = STATE_FORMAT - 1
    with pytest.raises(FmuError, match=f"another build of this FMU \\(state format {STATE_FORMAT - 1}; "
                                       f"this build reads format {STATE_FORMAT}\\)"):
        slave._set_fmu_state(saved)


def test_a_percent_sign_reaches_the_host_escaped():
    slave = Counter(instance_name="c")
    slave.log_warning("50% done")
    assert slave.log_queue[-1].msg == "50%% done"


# ---------------------------------------------------------------------- declarations
def parameter(default, unit, description, variability="fixed"):
    return field(default=default, metadata={"unit": unit, "description": description,
                                            "variability": variability})


@dataclass
class Settings:
    Gain: float = parameter(2.0, "1", "A gain")
    Mode: str = parameter("fast", None, "A mode")
    Seed: int = parameter(3, None, "A seed")
    Offset: float = parameter(0.5, "m", "A tunable offset", "tunable")


class Declared(FmuSlave):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.values = {}
        register(self, parameters_of(Settings) + [
            Var("In", "Real", "input", 0.0, "m", "An input"),
            Var("Out", "Boolean", "output", False, None, "An output")], self.values)

    def fmu_do_step(self, current_time, step_size):
        self.values["Out"] = self.values["In"] > self.values["Offset"]


def test_parameters_are_declared_once_beside_their_fields():
    rows = {row.name: row for row in parameters_of(Settings)}
    assert rows["Gain"] == Var("Gain", "Real", "parameter", 2.0, "1", "A gain", "fixed")
    assert rows["Mode"].type == "String" and rows["Seed"].type == "Integer"
    assert rows["Offset"].variability == "tunable"


def test_declared_variables_register_with_their_types_units_and_variabilities():
    slave = Declared(instance_name="d")
    kinds = {v.name: (type(v).__name__, v.causality.name, v.variability.name)
             for v in slave.vars.values()}
    assert kinds == {"Gain": ("Real", "parameter", "fixed"),
                     "Mode": ("String", "parameter", "fixed"),
                     "Seed": ("Integer", "parameter", "fixed"),
                     "Offset": ("Real", "parameter", "tunable"),
                     "In": ("Real", "input", "continuous"),
                     "Out": ("Boolean", "output", "discrete")}
    assert slave.fmu_meta["Offset"]["unit"] == "m" and slave.fmu_meta["Out"]["depends_on"] == []
    assert slave.values == {"Gain": 2.0, "Mode": "fast", "Seed": 3, "Offset": 0.5, "In": 0.0,
                            "Out": False}


def test_a_tunable_declared_parameter_may_change_during_the_run():
    slave = Declared(instance_name="d")
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    slave.exit_initialization_mode()
    refs = {v.name: v.value_reference for v in slave.vars.values()}
    slave.set_real([refs["Offset"], refs["In"]], [2.0, 1.0])
    assert slave.values["Offset"] == 2.0
    slave.do_step(0.0, 1.0)
    assert slave.get_boolean([refs["Out"]]) == [False]


def test_an_undeclared_field_or_a_unit_on_a_string_is_refused():
    @dataclass
    class Bare:
        Gain: float = 1.0

    with pytest.raises(ValueError, match=r"Bare.Gain: declared without unit and description"):
        parameters_of(Bare)
    with pytest.raises(ValueError, match="a String has no unit"):
        register(FmuSlave(instance_name="x"), [Var("S", "String", "parameter", "", "m", "s")], {})


def test_a_vector_field_declares_one_real_per_element():
    @dataclass
    class Mounted:
        Offset: tuple = field(default=(1.0, 2.0, 3.0), metadata={
            "unit": "m", "description": "Mounting offset", "size": 3,
            "labels": ("x", "y", "z")})

    rows = parameters_of(Mounted)
    assert [(r.name, r.start, r.unit, r.description) for r in rows] == [
        ("Offset[1]", 1.0, "m", "Mounting offset: x"), ("Offset[2]", 2.0, "m", "Mounting offset: y"),
        ("Offset[3]", 3.0, "m", "Mounting offset: z")]


def test_a_configuration_comes_back_from_the_registered_values():
    from auv_cosim.fmu.declare import config_of

    @dataclass
    class Mounted:
        Name: str = field(default="a", metadata={"unit": None, "description": "A name"})
        Offset: tuple = field(default=(1.0, 2.0, 3.0), metadata={
            "unit": "m", "description": "Mounting offset", "size": 3, "labels": ("x", "y", "z")})

    values = {"Name": "b", "Offset[1]": 4.0, "Offset[2]": 5.0, "Offset[3]": 6.0}
    assert config_of(Mounted, values) == Mounted("b", (4.0, 5.0, 6.0))
    assert config_of(Mounted, {row.name: row.start for row in parameters_of(Mounted)}) == Mounted()


class Outputs(FmuSlave):
    """Real outputs around a Boolean one, registered with `register_with_real_outputs`."""

    TABLE = [Var("In", "Real", "input", 1.0, "m", "An input"),
             Var("A", "Real", "output", 0.0, "m", "First"),
             Var("Flag", "Boolean", "output", False, None, "A flag"),
             Var("B", "Real", "output", 2.0, "s", "Second"),
             Var("C", "Real", "output", 3.0, "1", "Third")]

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.values = {}
        self.at = register_with_real_outputs(self, self.TABLE)

    def fmu_do_step(self, current_time, step_size):
        self.real_outputs[self.at["A"]:self.at["C"] + 1] = [self.values["In"], 5.0, 6.0]
        self.values["Flag"] = True


def test_real_outputs_kept_in_one_list_read_as_one_slice_and_restored():
    slave = Outputs(instance_name="o")
    assert slave.at == {"A": 0, "B": 1, "C": 2} and slave.real_outputs == [0.0, 2.0, 3.0]
    assert slave.values == {"In": 1.0, "Flag": False}
    assert slave.fmu_meta["B"] == {"unit": "s", "depends_on": []}
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    slave.exit_initialization_mode()
    refs = {v.name: v.value_reference for v in slave.vars.values()}
    outputs = [refs["A"], refs["B"], refs["C"]]
    state = slave._get_fmu_state()
    slave.do_step(0.0, 1.0)
    assert slave._reader(outputs) is not None          # the Flag between them does not matter
    assert slave.get_real(outputs) == [1.0, 5.0, 6.0] and slave.get_boolean([refs["Flag"]]) == [True]
    slave._set_fmu_state(state)
    assert slave.get_real(outputs) == [0.0, 2.0, 3.0]


# ---------------------------------------------------------------------- prepared transfers
class Places(FmuSlave):
    """Real inputs in each place FmuSlave knows (plain attributes, elements of a list, entries
    of a dict), one behind a property, and outputs in each place."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.A, self.B, self.P, self.X, self.Y = 0.0, 0.0, 1.0, 0.25, 0.5
        self.u = [0.0, 0.0, 0.0, 0.0]
        self.out = np.array([0.1 + 0.2, 1.0 / 3.0, 2.0])
        self.values = {}
        self.gain_sets = []
        self._gain = 1.0
        self.add_real("A", causality="input", unit="1", description="a")
        self.add_real("B", causality="input", unit="1", description="b")
        self.add_real("P", causality="parameter", unit="1", description="a fixed parameter")
        self.add_real("Gain", causality="input", unit="1", description="behind a property")
        self.add_real_vector("U", 4, causality="input", unit="1", description="u", attr="u")
        register(self, [Var("In1", "Real", "input", 0.0, "m", "first entry"),
                        Var("In2", "Real", "input", 0.0, "m", "second entry"),
                        Var("Out1", "Real", "output", 3.0, "m", "an entry output"),
                        Var("Out2", "Real", "output", 4.5, "m", "another entry output")], self.values)
        self.add_real("X", causality="output", unit="1", description="x")
        self.add_real("Y", causality="output", unit="1", description="y")
        self.add_real_vector("Out", 3, causality="output", unit="1", description="out", attr="out")

    @property
    def Gain(self):
        return self._gain

    @Gain.setter
    def Gain(self, value):
        self.gain_sets.append(value)
        self._gain = 2.0 * value

    def fmu_do_step(self, current_time, step_size):
        pass


def places(phase="stepping", per_value=False):
    slave = Places(instance_name="p")
    if phase == "stepping":
        slave.setup_experiment(0.0)
        slave.enter_initialization_mode()
        slave.exit_initialization_mode()
    if per_value:   # no prepared writer or reader: every value through its setter or getter
        slave._writer = lambda vrs, setup: None
        slave._reader = lambda vrs: None
    slave.values_changed = slave.parameters_changed = False
    return slave


def refs(slave, *names):
    return [vr(slave, name) for name in names]


def observed(slave):
    return (slave.A, slave.B, slave.P, slave._gain, list(slave.u), dict(slave.values),
            slave.values_changed, slave.parameters_changed, errors(slave))


SETS = [  # (phase, names, values): each takes a prepared writer
    ("stepping", ("A", "B"), [1.5, -2.25]),
    ("stepping", ("U[3]", "U[1]", "U[2]", "U[4]"), [3.0, 1.0, 2.0, 4.0]),   # a range, reordered
    ("stepping", ("U[4]", "U[2]"), [7.0, 8.0]),                            # not a range
    ("stepping", ("In2", "In1"), [5, np.float64(0.1)]),                     # int, numpy float
    ("initialization", ("P", "A"), [9.0, 0.5]),                            # a parameter: both flags
]


@pytest.mark.parametrize("phase, names, values", SETS)
def test_a_prepared_set_has_the_effect_and_the_flags_of_the_per_value_path(phase, names, values):
    fast, slow = places(phase), places(phase, per_value=True)
    setup = phase != "stepping"
    assert fast._writer(refs(fast, *names), setup) is not None
    for slave in (fast, slow):
        slave.set_real(refs(slave, *names), list(values))
    assert observed(fast) == observed(slow)
    assert fast.values_changed and fast.parameters_changed == ("P" in names)
    assert all(type(v) is float for v in [fast.A, fast.B, *fast.u, fast.values["In1"], fast.values["In2"]])


@pytest.mark.parametrize("names", [("A", "B"), ("U[1]", "U[2]"), ("U[4]", "U[2]"), ("In1", "In2")])
def test_a_value_float_refuses_fails_as_the_per_value_path_did(names):
    for values in (["x", 1.0], [2.0, "x"], [2.0, None]):   # the first, the second value bad
        fast, slow = places(), places(per_value=True)
        failures = []
        for slave in (fast, slow):
            with pytest.raises(FmuError) as failure:
                slave.set_real(refs(slave, *names), values)
            failures.append(str(failure.value))
        assert failures[0] == failures[1] and "fmi2SetReal: " in failures[0]
        assert observed(fast) == observed(slow)
        assert fast.values_changed == (values[0] == 2.0)   # the first value was set


def test_a_set_with_a_refused_value_is_an_error_naming_it():
    slave = places()
    names = refs(slave, "P", "A")
    assert slave._writer(names, False) is None            # P is a fixed parameter after initialisation
    with pytest.raises(FmuError, match="cannot set P now: it is a fixed parameter"):
        slave.set_real(names, [99.0, 3.0])
    assert slave.P == 1.0 and not slave.parameters_changed


def test_a_property_backed_attribute_is_set_and_read_through_the_property():
    slave = places()
    names = refs(slave, "Gain", "A")
    assert slave._writer(names, False) is None
    slave.set_real(names, [3, 4.0])
    assert slave.gain_sets == [3.0] and slave._gain == 6.0 and "Gain" not in vars(slave)
    assert slave.get_real(refs(slave, "A", "Gain")) == [4.0, 6.0]


def test_a_prepared_read_returns_the_getters_doubles():
    fast, slow = places(), places(per_value=True)
    for slave in (fast, slow):
        slave.values["Out2"] = 7            # an int in the dict: read as 7.0
        slave.X = np.float64(0.1) * 3
    for names, prepared in ((("X", "Y"), True), (("Out1", "Out2"), True),
                            (("Out[1]", "Out[2]", "Out[3]"), True),
                            (("Out[3]", "Out[1]"), False),         # not one slice in order
                            (("X", "Out1", "Out[2]"), False)):     # not one place
        assert (fast._reader(refs(fast, *names)) is not None) == prepared
        got = fast.get_real(refs(fast, *names))
        assert got == slow.get_real(refs(slow, *names))
        assert all(type(v) is float for v in got)
    assert fast.get_real(refs(fast, "Out[1]", "Out[2]", "Out[3]")) == [0.1 + 0.2, 1.0 / 3.0, 2.0]


def test_a_short_array_fails_a_prepared_transfer_as_the_per_value_path_did():
    fast, slow = places(), places(per_value=True)
    failures = []
    for slave in (fast, slow):
        slave.u = [0.0, 0.0]                # shorter than the four U elements registered
        with pytest.raises(FmuError) as failure:
            slave.set_real(refs(slave, "U[1]", "U[2]", "U[3]", "U[4]"), [1.0, 2.0, 3.0, 4.0])
        failures.append(str(failure.value))
        slave.out = np.array([1.0])
        with pytest.raises(FmuError) as failure:
            slave.get_real(refs(slave, "Out[1]", "Out[2]", "Out[3]"))
        failures.append(str(failure.value))
    assert failures[:2] == failures[2:] and all("IndexError" in f for f in failures)
    assert fast.u == [1.0, 2.0] == slow.u   # set up to the missing element, never extended
    assert fast.values_changed and slow.values_changed


def test_prepared_transfers_are_rebuilt_after_a_registration():
    slave = places()
    names = refs(slave, "X", "Y") + [max(slave.vars) + 1]         # a reference not yet registered
    assert slave._reader(names) is None
    with pytest.raises(FmuError, match="fmi2SetReal"):
        slave.set_real(refs(slave, "A") + names[-1:], [1.0, 2.0])
    slave._phase = "stepping"   # as a restored FMU state would (the failure left it in Error)
    slave.Z = 0.75
    slave.add_real("Z", causality="input", unit="1", description="registered later")
    assert vr(slave, "Z") == names[-1]
    assert slave.get_real(names) == [0.25, 0.5, 0.75] and slave._reader(names) is not None
    slave.set_real(refs(slave, "A", "Z"), [1.0, 2.0])
    assert (slave.A, slave.Z) == (1.0, 2.0) and slave._writer(refs(slave, "A", "Z"), False) is not None


def test_an_entry_names_a_key_of_its_mapping_and_excludes_getters():
    slave = FmuSlave(instance_name="e")
    with pytest.raises(ValueError, match="has no key 'K'"):
        slave.add_real("K", causality="input", unit="1", description="k", entry=({}, "K"))
    with pytest.raises(ValueError, match="not both"):
        slave.add_real("K", causality="input", unit="1", description="k", entry=({"K": 1.0}, "K"),
                       getter=lambda: 1.0)


# ------------------------------------------------------------------ the native wrapper's plans
def test_a_native_plan_names_where_each_value_lives_in_the_stepping_phase_only():
    slave = places()
    sources, slots = slave._native_plan("Real", tuple(refs(slave, "Out[2]", "Out2", "U[4]", "Out[1]")), False)
    assert sources == (("a", "out"), ("m", slave.values), ("a", "u")) and sources[1][1] is slave.values
    assert slots == ((0, 1), (1, "Out2"), (2, 3), (0, 0))
    assert slave._native_plan("Real", tuple(refs(slave, "In1", "U[1]")), True) is not None
    before = places("initialization")
    assert before._native_plan("Real", tuple(refs(before, "Out[1]")), False) is None


@pytest.mark.parametrize("kind, names, setting", [
    ("Real", ("A", "U[1]"), False),            # a plain attribute: read through getattr
    ("Real", ("Gain",), True),                 # behind a property
    ("Real", ("P",), True),                    # a fixed parameter: refused now
    ("Real", ("Out[1]",), True),               # an output: refused
    ("Real", ("U[1]", "U[1]"), True),          # twice in one set
    ("Integer", ("Out1",), False),             # a Real read as an Integer: the Python path's error
    ("String", ("Out1",), False),
])
def test_no_native_plan_where_the_python_path_does_more_than_copy(kind, names, setting):
    slave = places()
    assert slave._native_plan(kind, tuple(refs(slave, *names)), setting) is None


def test_a_native_set_plan_carries_the_declared_ranges_and_a_new_range_starts_a_new_epoch():
    """The wrapper serves a set of ranged Reals only within their ranges (beyond one, the
    Python path warns): the plan says the range of each value, None for one without."""
    slave = Places(instance_name="r")
    slave.v = np.zeros(2)
    slave.add_real("V1", causality="input", unit="1", description="ranged", element=("v", 0),
                   minimum=-1.0, maximum=2.0)
    slave.add_real("V2", causality="input", unit="1", description="ranged", element=("v", 1), minimum=0.0)
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    slave.exit_initialization_mode()
    v1, v2, u1 = refs(slave, "V1", "V2", "U[1]")
    sources, slots, bounds = slave._native_plan("Real", (u1, v1, v2), True)
    assert sources == (("a", "u"), ("a", "v")) and slots == ((0, 0), (1, 0), (1, 1))
    assert bounds == (None, (-1.0, 2.0), (0.0, float("inf")))
    assert len(slave._native_plan("Real", (u1,), True)) == 2          # no ranged value: no bounds
    assert len(slave._native_plan("Real", (v1,), False)) == 2         # a read: no bounds
    epoch = slave._native_epoch
    slave.set_range(v1, -5.0, 5.0)
    assert slave._native_epoch is not epoch
    assert slave._native_plan("Real", (v1,), True)[2] == ((-5.0, 5.0),)
    assert slave.set_real([v1], [4.0]) is None                           # within the new range
    assert slave.set_real([v1], [6.0]) == int(Fmi2Status.warning)
    assert any("V1 = 6.0 is outside its range [-5.0, 5.0]" in m.msg for m in slave.log_queue)


def test_no_native_plan_when_a_subclass_overrides_the_transfer_and_a_new_phase_changes_the_epoch():
    class Reads(Places):
        def get_real(self, vrs):
            return [0.0 for _ in vrs]

    slave = Reads(instance_name="r")
    slave.setup_experiment(0.0)
    slave.enter_initialization_mode()
    slave.exit_initialization_mode()
    assert slave._native_plan("Real", tuple(refs(slave, "Out[1]")), False) is None
    assert slave._native_plan("Real", tuple(refs(slave, "In1")), True) is not None
    epoch = slave._native_epoch
    slave.terminate()
    assert slave._native_epoch is not epoch
    assert slave._native_plan("Real", tuple(refs(slave, "In1")), True) is None
