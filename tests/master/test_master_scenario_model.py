"""Scenario loading, merging and resolution against the modelDescriptions, in process (no FMU
is instantiated here)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.cli import _parse_set
from auv_cosim.master.plan import build_plan, compute_order
from auv_cosim.master.scenario import ScenarioError, load_scenario
from auv_cosim.master.signals import evaluate, find_step

from master_helpers import REPO
from auv_cosim.master import find_scenario, list_scenarios

STACK = (find_scenario("stacks/survey")).as_posix()
pytestmark = pytest.mark.usefixtures("fmus_built")


def plan_of(tmp_path, text: str, name="s.yaml", **kw):
    p = tmp_path / name
    p.write_text(text)
    return build_plan(load_scenario(p, kw.pop("overrides", None)), **kw)


def problems_of(tmp_path, text: str, name="s.yaml", overrides=None) -> str:
    with pytest.raises(ScenarioError) as e:
        plan_of(tmp_path, text, name, overrides=overrides)
    return str(e.value)


@pytest.mark.parametrize("scenario", sorted(p.stem for _, _, p in list_scenarios()))
def test_every_scenario_file_resolves(scenario):
    plan = build_plan(load_scenario(find_scenario(scenario)))
    assert plan.n_steps > 0
    assert plan.model.description


def test_survey_stack_order_and_what_each_connection_reads():
    plan = build_plan(load_scenario(find_scenario("survey")))
    assert plan.order == ["control", "vehicle", "sensors"]
    assert plan.init_order == ["vehicle", "sensors", "control"]
    kinds = {(c.src, c.dst): c.kind for c in plan.connections}
    assert kinds == {("control", "vehicle"): "forward", ("vehicle", "sensors"): "forward",
                     ("sensors", "control"): "backward"}
    assert len(plan.connections) == 23  # 3 actuators + 12 truth + 8 measurements


def test_default_order_is_topological_with_cycles_broken_by_declaration_order():
    edges = {("c", "v"), ("v", "s"), ("s", "c")}
    assert compute_order(["c", "v", "s"], edges) == ["c", "v", "s"]
    assert compute_order(["v", "s", "c"], edges) == ["v", "s", "c"]
    assert compute_order(["b", "a"], {("a", "b")}) == ["a", "b"]


def test_included_stack_is_overridden_and_vectors_expand(tmp_path):
    plan = plan_of(tmp_path, f"""
include: {STACK}
stop_time: 1
instances:
  vehicle: {{parameters: {{Pos0: [1, 2, 3], "Quater0[1]": 1}}}}
  control: {{parameters: {{GuidanceMode: hold, Seed: 3}}}}
""".replace(", Seed: 3", ""))
    params = {(v.name): val for v, val in plan.instances["vehicle"].params}
    assert params["Pos0[1]"] == 1.0 and params["Pos0[3]"] == 3.0 and params["Quater0[1]"] == 1.0
    ctl = {v.name: val for v, val in plan.instances["control"].params}
    assert ctl["GuidanceMode"] == "hold" and ctl["CruiseSpeed"] == 1.4  # from the stack
    sens = {v.name: val for v, val in plan.instances["sensors"].params}
    assert sens["Seed"] == 1 and isinstance(sens["Seed"], int)


def test_a_signal_cannot_drive_a_connected_input_without_disconnect(tmp_path):
    text = f"include: {STACK}\nstop_time: 1\nsignals:\n  vehicle.RudderYaw: 0.2\n"
    msg = problems_of(tmp_path, text)
    assert "s.yaml: signals[\"vehicle.RudderYaw\"]: vehicle.RudderYaw is also driven by connection" in msg
    assert "add 'vehicle.RudderYaw' to `disconnect:`" in msg
    plan = plan_of(tmp_path, text + "disconnect: [vehicle.RudderYaw]\n", name="ok.yaml")
    assert [s.target for s in plan.signals] == ["vehicle.RudderYaw"]
    assert len(plan.connections) == 22


def test_errors_name_the_included_file_when_the_mistake_is_there(tmp_path):
    stack = tmp_path / "stack.yaml"
    stack.write_text("instances:\n  vehicle: {fmu: fmus/Auv.fmu}\nconnections:\n  - vehicle.Depth -> vehicle.Deptj\n")
    msg = problems_of(tmp_path, "include: stack.yaml\nstop_time: 1\n")
    assert "stack.yaml: connections[0]: 'vehicle.Depth -> vehicle.Deptj': vehicle" in msg


def test_various_semantic_errors_are_all_reported(tmp_path):
    msg = problems_of(tmp_path, f"""
include: {STACK}
stop_time: 1
order: [control, vehicle]
disconnect: [vehicle.Nothing]
""")
    assert "s.yaml: disconnect[0]: 'vehicle.Nothing' matches no connection" in msg
    msg = problems_of(tmp_path, f"""
include: {STACK}
stop_time: 1
order: [control, vehicle]
stop_when: vehicle.Dept < 3
record: [vehicle.Nope*]
instances:
  vehicle: {{parameters: {{Depth: 3, Pos0: 1}}}}
connections:
  - vehicle.Depth -> control.ThrustPower
  - sensors.MeasuredDepth -> control.MeasuredDepth
""")
    assert "order: unknown" not in msg
    assert "stop_when: 'vehicle.Dept < 3': vehicle has no output 'Dept' (did you mean 'Depth'" in msg
    assert "record[0]: 'vehicle.Nope*' matches no output or input" in msg
    assert "vehicle.Depth is an output; only parameters and inputs can be given start values" in msg
    assert "'Pos0' is a vector of 3 elements" in msg
    assert "control.ThrustPower is output, not an input" in msg
    assert "control.MeasuredDepth is already driven by connection" in msg


def test_yaml_syntax_and_missing_include(tmp_path):
    assert "s.yaml: not valid YAML (line 3, column 1)" in problems_of(tmp_path, "stop_time: 1\ninstances: [\n")
    assert "include[0]: included file not found: nowhere.yaml" in problems_of(tmp_path, "include: nowhere.yaml\n")


def test_overrides_are_read_as_the_variable_type(tmp_path):
    ov = _parse_set(["vehicle.Battery0=5000", "sensors.Seed=7", "control.Waypoints=0,0,5; 10,0,5",
                     "vehicle.Pos0=[0,0,5]"])
    plan = plan_of(tmp_path, f"include: {STACK}\nstop_time: 1\n", overrides=ov)
    v = {x.name: val for x, val in plan.instances["vehicle"].params}
    assert v["Battery0"] == 5000.0 and v["Pos0[3]"] == 5.0
    assert {x.name: val for x, val in plan.instances["sensors"].params}["Seed"] == 7
    assert {x.name: val for x, val in plan.instances["control"].params}["Waypoints"] == "0,0,5; 10,0,5"
    msg = problems_of(tmp_path, f"include: {STACK}\nstop_time: 1\n", name="t.yaml", overrides=_parse_set(["sensors.Seed=x"]))
    assert "--set: sensors.Seed: sensors.Seed is an Integer; cannot read 'x' as a number" in msg


def test_stop_time_must_be_whole_steps(tmp_path):
    plan = plan_of(tmp_path, f"include: {STACK}\nstop_time: 10.0\nstep: 0.1\n")
    assert plan.n_steps == 100 and plan.step_times()[-1] == 10.0
    # a step that does not divide the run is refused (the FMUs must not step past the stop time)
    msg = problems_of(tmp_path, f"include: {STACK}\nstop_time: 10.05\n", name="b.yaml")
    assert "b.yaml: stop_time: the step 0.1 s does not divide the run from 0 to 10.05 s" in msg


def test_signals():
    from auv_cosim.master.scenario_schema import ScenarioModel

    def sig(spec):
        return ScenarioModel.model_validate({"signals": {"a.b": spec}}).signals["a.b"]

    t = np.round(np.arange(0, 101) * 0.1, 10)
    assert np.all(evaluate(sig(0.2), t, 0.1) == 0.2)
    s = evaluate(sig({"step": {"time": 6.0, "before": 1, "after": 2}}), t, 0.1)
    assert s[59] == 1 and s[60] == 2  # switches exactly at the 60th step
    r = evaluate(sig({"ramp": {"time": 2, "before": 1, "after": 3, "duration": 4}}), t, 0.1)
    assert r[20] == 1 and r[40] == pytest.approx(2) and r[60] == 3 and r[100] == 3
    r = evaluate(sig({"ramp": {"time": 0, "slope": 0.5}}), t, 0.1)
    assert r[100] == pytest.approx(5.0)
    w = evaluate(sig({"sine": {"amplitude": 2, "period": 4, "start": 1}}), t, 0.1)
    assert w[5] == 0 and w[20] == pytest.approx(2.0) and w[30] == pytest.approx(0.0, abs=1e-12)
    total = sig([{"step": {"time": 1, "after": 5}}, {"sine": {"amplitude": 1, "period": 2}}, 0.5])
    v = evaluate(total, t, 0.1)
    assert v[15] == pytest.approx(5 + 0.5 + math.sin(2 * math.pi * 1.5 / 2))
    assert find_step(total) == (1.0, 0.5, 5.5)
    with pytest.raises(Exception):
        sig({"constant": 1, "step": {"time": 1, "after": 2}})
    with pytest.raises(Exception):
        sig({"ramp": {"time": 1}})


def test_set_replaces_a_signal_and_refuses_a_connected_input():
    from auv_cosim.master.signals import evaluate as ev

    loaded = load_scenario(find_scenario("depth_step"), _parse_set(["control.DepthCommand=12"]))
    plan = build_plan(loaded)
    sig = next(s for s in plan.signals if s.target == "control.DepthCommand")
    assert np.all(ev(sig.spec, np.array([0.0, 100.0]), 0.1) == 12.0)
    with pytest.raises(ScenarioError) as e:
        build_plan(load_scenario(find_scenario("depth_step"), _parse_set(["vehicle.ThrustPower=50"])))
    assert "--set: vehicle.ThrustPower: vehicle.ThrustPower is driven by connection" in str(e.value)


def test_exponent_numbers_without_a_dot_are_numbers(tmp_path):
    plan = plan_of(tmp_path, f"include: {STACK}\nstop_time: 1\ntolerance: 1e-6\n"
                             "instances:\n  vehicle: {parameters: {RelativeTolerance: 1e-7}}\n")
    assert plan.tolerance == 1e-6
    assert {v.name: val for v, val in plan.instances["vehicle"].params}["RelativeTolerance"] == 1e-7


def test_record_all_leaves_local_variables_out_and_a_list_may_add_them_to_all(tmp_path):
    """`record: all` is every output and signal; an FMU's local variables (Auv.fmu's
    SurfaceElevation) only when named; `all` inside a list stands for that default set."""
    default = plan_of(tmp_path, f"include: {STACK}\nstop_time: 1\n", name="a.yaml").record
    assert "vehicle.SurfaceElevation" not in default and "vehicle.Depth" in default
    extended = plan_of(tmp_path, f"include: {STACK}\nstop_time: 1\nrecord: [all, vehicle.SurfaceElevation, vehicle.Depth]\n",
                       name="b.yaml").record
    assert extended == default + ["vehicle.SurfaceElevation"]
    chosen = plan_of(tmp_path, f"include: {STACK}\nstop_time: 1\nrecord: [vehicle.Surface*]\n", name="c.yaml").record
    assert chosen == ["vehicle.SurfaceElevation"]
