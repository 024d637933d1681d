"""Resolution of a loaded scenario against the FMUs' modelDescription.xml: every instance,
parameter, connection, signal, stop condition and recorded variable is checked *before*
anything is instantiated, and every error names the scenario file and the field.

Also computes the calling order (see docs/master.md):

- step order: the ``order`` of the scenario, else a topological order of the connection graph
  (Kahn; ties and cycles broken by the declaration order of ``instances``);
- connection kind: *forward* when its source is stepped before its destination in the same
  communication step (the destination sees the value at the end of the step), *backward*
  otherwise (the destination sees the value at the start of the step, produced by the previous
  step); with ``algorithm: jacobi`` every connection is backward;
- initialisation order: instances leave initialisation mode so that each one is initialised
  after the instances it reads from; the edges out of *sampling* instances (those that read a
  backward connection, e.g. the controller) are ignored for that purpose, which is what breaks
  the control loop at the controller's outputs.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from fmpy import read_model_description


from . import registry
from .variables import FMI_INT_MAX, FMI_INT_MIN, Var, coerce_value, expand, fmu_variables, suggest
from . import drawing as drawings
from . import exchanges
from .scenario import (
    LoadedScenario,
    ScenarioError,
    display_path,
    parse_connection,
    resolve_fmu_path,
)
from .scenario_schema import StopCondition

@dataclass
class InstancePlan:
    name: str
    fmu_path: Path
    md: Any
    vars: dict[str, Var]
    params: list[tuple[Var, Any]] = field(default_factory=list)
    # the start values as given (name or vector -> value or list), typed: what the run used
    start_values: dict[str, Any] = field(default_factory=dict)
    param_where: dict[str, tuple[str, str]] = field(default_factory=dict)  # variable -> (file, field)
    #: the row exchanges its FMU declares, by name (auv_cosim.master.exchanges)
    exchanges: dict[str, exchanges.Exchange] = field(default_factory=dict)
    #: how a viewer draws it, as its FMU declares it (None: it declares none; auv_cosim.master.drawing)
    drawing: drawings.Drawing | None = None
    #: variables the run leaves alone (the ports of the exchanges a scenario does not wire)
    quiet: frozenset = frozenset()

    @property
    def outputs(self) -> list[Var]:
        return [v for v in self.vars.values() if v.causality == "output" and v.name not in self.quiet]

    @property
    def inputs(self) -> list[Var]:
        return [v for v in self.vars.values() if v.causality == "input" and v.name not in self.quiet]


@dataclass
class Connection:
    src: str
    src_var: Var
    dst: str
    dst_var: Var
    file: str
    field: str
    kind: str = "forward"  # or "backward", filled in once the order is known
    #: the row exchange it belongs to (its destination is an element of the exchange's input;
    #: auv_cosim.master.exchanges), or None
    exchange: str | None = None

    @property
    def early(self) -> bool:
        """An exchange's connection is read at the communication point before any instance
        steps from it, whatever the order, so it is always "backward" and orders nothing."""
        return self.exchange is not None

    @property
    def text(self) -> str:
        return f"{self.src}.{self.src_var.name} -> {self.dst}.{self.dst_var.name}"


@dataclass
class SignalPlan:
    inst: str
    var: Var
    spec: Any
    file: str
    field: str

    @property
    def target(self) -> str:
        return f"{self.inst}.{self.var.name}"


_OPS = {"==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}


@dataclass
class StopPlan:
    text: str
    inst: str
    var: Var
    op: str
    value: float
    after: float

    @property
    def func(self):
        return _OPS[self.op]


@dataclass
class Plan:
    loaded: LoadedScenario
    name: str
    instances: dict[str, InstancePlan]
    connections: list[Connection]
    signals: list[SignalPlan]
    stops: list[StopPlan]
    record: list[str]
    order: list[str]
    init_order: list[str]
    algorithm: str
    start_time: float
    stop_time: float
    step: float
    n_steps: int
    tolerance: float | None
    unconnected_inputs: list[str]
    #: what the run can go on with but the user should hear (wired vehicles of different Rho ...)
    warnings: list[str] = field(default_factory=list)
    #: the rows recorded: every ``output_every``-th communication point (the initial one first)
    #: and the last one (``output_interval`` / ``step``; 1: every point)
    output_every: int = 1

    @property
    def model(self):
        return self.loaded.model

    @property
    def input_files(self) -> list[Path]:
        """The files the plan reads: its scenario files (included ones too) and its FMUs; no
        command writes over them."""
        return list(self.loaded.files) + [ip.fmu_path for ip in self.instances.values()]

    def step_times(self, first: int = 0, stop: int | None = None) -> np.ndarray:
        """The times of communication points ``first`` .. ``stop - 1`` (default: all of them)."""
        stop = self.n_steps + 1 if stop is None else stop
        d = time_decimals(self.step)
        return np.array([round(self.start_time + k * self.step, d) for k in range(first, stop)])


def _discrete_signal_problem(var: Var, spec) -> str | None:
    """Why a signal cannot drive an Integer or Boolean input (None when it can): the master
    hands such inputs whole numbers, so a value in between, a NaN or a number beyond 32 bits
    would be truncated or wrapped silently. Only constants and steps of allowed values."""
    from itertools import product

    terms = spec if isinstance(spec, list) else [spec]
    base, steps = 0.0, []
    for term in terms:
        if isinstance(term, (bool, int, float)):
            base += float(term)
        elif term.constant is not None:
            base += float(term.constant)
        elif term.step is not None:
            steps.append((float(term.step.before), float(term.step.after)))
        else:
            return "only constant and step signals can drive it (a ramp or a sine gives values in between)"
    if len(steps) > 10:
        return "at most 10 steps can drive it"
    for combo in product(*steps):
        v = base + sum(combo)
        if var.type == "Boolean" and v not in (0.0, 1.0):
            return f"the signal takes the value {v:g}; a Boolean input takes 0 or 1 (false or true)"
        if not (math.isfinite(v) and v.is_integer() and FMI_INT_MIN <= v <= FMI_INT_MAX):
            return f"the signal takes the value {v:g}; it must take whole numbers of 32 bits"
    return None


def _no_variable(inst: str, ip: InstancePlan, name: str, causalities: tuple[str, ...], what: str = "") -> str:
    """Why ``name`` names nothing in ``inst``: an element past the end of a vector, a misspelling."""
    m = re.match(r"^(.+)\[(\d+)\]$", name)
    if m:
        vs = expand(ip.vars, m.group(1))
        if vs is not None and (len(vs) > 1 or vs[0].name != m.group(1)):
            return (f"{inst}.{m.group(1)} has {len(vs)} elements ({vs[0].name} .. {vs[-1].name}); "
                    f"there is no element [{m.group(2)}]")
        if vs is not None:
            return f"{inst}.{m.group(1)} is a scalar, not a vector; there is no element [{m.group(2)}]"
    return (f"{what or inst + ' (' + display_path(ip.fmu_path) + ') has no variable'} '{name}'"
            + suggest(name, [v.name for v in ip.vars.values() if v.causality in causalities]))


_STOP_RE = re.compile(r"^\s*([A-Za-z_]\w*)\.(\S+?)\s*(==|!=|<=|>=|<|>)\s*(\S+)\s*$")


def _parse_literal(text: str) -> float | None:
    t = text.strip().lower()
    if t in ("true", "yes", "on"):
        return 1.0
    if t in ("false", "no", "off"):
        return 0.0
    try:
        return float(t)
    except ValueError:
        return None


def compute_order(names: list[str], edges: set[tuple[str, str]]) -> list[str]:
    """Kahn's topological order; among ready instances, and to break a cycle, the one declared
    first wins."""
    remaining = list(names)
    order = []
    while remaining:
        ready = [n for n in remaining if not any(s in remaining and s != n and d == n for s, d in edges)]
        pick = ready[0] if ready else remaining[0]
        order.append(pick)
        remaining.remove(pick)
    return order


def compute_init_order(order: list[str], edges: set[tuple[str, str]], kinds: dict[tuple[str, str], str]) -> list[str]:
    samplers = {d for (s, d), k in kinds.items() if k == "backward"}
    init_edges = {(s, d) for (s, d) in edges if s not in samplers and s != d}
    return compute_order(order, init_edges)


def _plan_instances(loaded: LoadedScenario, problems: list):
    """The first phase: each instance's FMU found, read and checked (FMI 2.0, co-simulation)."""
    model = loaded.model
    err = lambda key, msg: problems.append(loaded.error(key, msg))  # noqa: E731
    instances: dict[str, InstancePlan] = {}
    md_cache: dict[Path, Any] = {}
    for name, spec in model.instances.items():
        path, looked = resolve_fmu_path(spec.fmu, loaded.fmu_dirs.get(name))
        if path is None:
            where = ", ".join(display_path(p) for p in looked)
            err(("instances", name, "fmu"), f"FMU file not found: {spec.fmu} (looked for {where}); "
                                            f"build the FMUs with ./build.sh")
            continue
        if path not in md_cache:
            try:
                md_cache[path] = read_model_description(str(path), validate=False)
            except Exception as e:  # a corrupt zip, a missing modelDescription.xml ...
                err(("instances", name, "fmu"), f"cannot read {display_path(path)} as an FMU: {e}")
                continue
        md = md_cache[path]
        if md.fmiVersion != "2.0":
            err(("instances", name, "fmu"), f"{display_path(path)} is FMI {md.fmiVersion}; the master runs FMI 2.0 FMUs")
            continue
        if md.coSimulation is None:
            err(("instances", name, "fmu"), f"{display_path(path)} has no co-simulation interface")
            continue
        try:
            declared = exchanges.read_exchanges(path)
        except Exception as e:  # an annotation that cannot be read
            err(("instances", name, "fmu"), f"{display_path(path)}: cannot read its row exchanges: {e}")
            continue
        try:
            drawn = drawings.read_drawing(path)
        except Exception as e:
            err(("instances", name, "fmu"), f"{display_path(path)}: cannot read its drawing: {e}")
            continue
        instances[name] = InstancePlan(name, path, md, fmu_variables(md), exchanges=declared, drawing=drawn)
        for problem in exchanges.declaration_problems(name, instances[name]):
            err(("instances", name, "fmu"), problem)
    return instances


def _plan_parameters(loaded: LoadedScenario, instances: dict, problems: list):
    """Each instance's parameter entries typed against its variables, into its start values."""
    model = loaded.model
    err = lambda key, msg: problems.append(loaded.error(key, msg))  # noqa: E731
    for name, spec in model.instances.items():
        ip = instances.get(name)
        if ip is None:
            continue
        for pname, value in spec.parameters.items():
            key = ("instances", name, "parameters", pname)
            vs = expand(ip.vars, pname)
            if vs is None:
                err(key, _no_variable(name, ip, pname, ("parameter", "input")))
                continue
            if isinstance(value, list):
                if len(vs) == 1 and vs[0].name == pname:
                    err(key, f"'{pname}' is a scalar; got a list of {len(value)} values")
                    continue
                if len(value) != len(vs):
                    err(key, f"'{pname}' has {len(vs)} elements ({vs[0].name} .. {vs[-1].name}); got {len(value)} values")
                    continue
                pairs = [(var, val, (name, pname, i + 1)) for i, (var, val) in enumerate(zip(vs, value))]
            else:
                if len(vs) > 1 or vs[0].name != pname:
                    err(key, f"'{pname}' is a vector of {len(vs)} elements; give a list of {len(vs)} values "
                             f"or set one element, e.g. {vs[0].name}")
                    continue
                pairs = [(vs[0], value, (name, pname))]
            typed = []
            for var, val, vkey in pairs:
                # an element replaced inside a file's list (--set V[i]=...) is blamed on its setter
                ekey = ("instances",) + vkey[:1] + ("parameters",) + vkey[1:]
                where = loaded.origin.get(ekey) or loaded.where(*key)
                if var.causality not in ("parameter", "input"):
                    err(key, f"{name}.{var.name} is {'an' if var.causality[0] in 'aeiou' else 'a'} {var.causality}; "
                             f"only parameters and inputs can be given start values")
                    continue
                if var.variability == "constant":
                    err(key, f"{name}.{var.name} is a constant and cannot be set")
                    continue
                try:
                    text = vkey in loaded.text_values or (len(vkey) == 3 and vkey[:2] in loaded.text_values)
                    conv = coerce_value(val, var.type, f"{name}.{var.name}", from_text=text)
                except ValueError as e:
                    problems.append((*where, str(e)))
                    continue
                if var.type == "Real" and not math.isfinite(conv):
                    problems.append((*where, f"{name}.{var.name}: a parameter must be finite, got {conv}"))
                    continue
                ip.params.append((var, conv))
                ip.param_where[var.name] = where
                typed.append(conv)
            if len(typed) == len(pairs):
                ip.start_values[pname] = typed if isinstance(value, list) else typed[0]


def _plan_connections(loaded: LoadedScenario, instances: dict, problems: list):
    """The connections (and the exchanges' lines, such as the wakes', each one source's row of
    connections), checked; returns them, what drives each input, and the wiring's warnings."""
    model = loaded.model
    connections: list[Connection] = []
    driven: dict[tuple[str, str], str] = {}
    warnings: list[str] = []
    wake_lines, wake_problems = exchanges.scenario_connections(loaded, instances, "wakes")
    problems += wake_problems
    for text, file, fld in list(loaded.connections) + wake_lines:
        parsed = parse_connection(text)
        if parsed is None:
            problems.append((file, fld, f"malformed connection '{text}'; expected 'instance.Output -> instance.Input'"))
            continue
        a, x, b, y = parsed
        ok = True
        for inst in (a, b):
            if inst not in model.instances:
                problems.append((file, fld, f"'{text}': unknown instance '{inst}' (instances: {', '.join(model.instances)})"
                                 + suggest(inst, model.instances)))
                ok = False
        if not ok or a not in instances or b not in instances:
            continue
        sv = expand(instances[a].vars, x)
        dv = expand(instances[b].vars, y)
        if sv is None:
            problems.append((file, fld, f"'{text}': " + _no_variable(a, instances[a], x, ("output",))))
        if dv is None:
            problems.append((file, fld, f"'{text}': " + _no_variable(b, instances[b], y, ("input",))))
        if sv is None or dv is None:
            continue
        if len(sv) != len(dv):
            problems.append((file, fld, f"'{text}': {a}.{x} has {len(sv)} elements but {b}.{y} has {len(dv)}"))
            continue
        for s, d in zip(sv, dv):
            if s.causality != "output":
                problems.append((file, fld, f"'{text}': {a}.{s.name} is {s.causality}, not an output"))
                continue
            if d.causality != "input":
                problems.append((file, fld, f"'{text}': {b}.{d.name} is {d.causality}, not an input"))
                continue
            if s.type == "String" or d.type == "String":
                problems.append((file, fld, f"'{text}': String variables cannot be connected"))
                continue
            if s.type != d.type and not (d.type == "Real" and s.type in ("Integer", "Boolean", "Enumeration")):
                problems.append((file, fld, f"'{text}': type mismatch, {a}.{s.name} is {s.type} but {b}.{d.name} is {d.type}"))
                continue
            key = (b, d.name)
            if key in driven:
                problems.append((file, fld, f"'{text}': {b}.{d.name} is already driven by {driven[key]}"))
                continue
            driven[key] = f"connection '{a}.{s.name} -> {b}.{d.name}' ({file}, {fld})"
            into = exchanges.exchange_into(instances[b], d.name)
            connections.append(Connection(a, s, b, d, file, fld, exchange=into[0].name if into else None))
    problems += exchanges.wiring_problems(connections, instances)
    warnings += exchanges.warnings(instances, connections)
    return connections, driven, warnings


def _plan_signals(loaded: LoadedScenario, instances: dict, driven: dict, problems: list):
    """The signals driving inputs, checked (each input driven once: `driven` gains them)."""
    model = loaded.model
    err = lambda key, msg: problems.append(loaded.error(key, msg))  # noqa: E731
    signals: list[SignalPlan] = []
    for target, spec in model.signals.items():
        key = ("signals", target)
        file, fld = loaded.where(*key)
        if "." not in target:
            err(key, f"signal target '{target}' must be INSTANCE.INPUT")
            continue
        inst, vname = target.split(".", 1)
        if inst not in model.instances:
            err(key, f"unknown instance '{inst}' (instances: {', '.join(model.instances)})" + suggest(inst, model.instances))
            continue
        if inst not in instances:
            continue
        var = instances[inst].vars.get(vname)
        if var is None:
            vs = expand(instances[inst].vars, vname)
            if vs:
                err(key, f"{inst} ({display_path(instances[inst].fmu_path)}) has no scalar variable '{vname}' "
                         f"('{vname}' is a vector: drive its elements, e.g. {vs[0].name})")
            else:
                err(key, _no_variable(inst, instances[inst], vname, ("input",)))
            continue
        if var.causality != "input":
            err(key, f"{target} is {var.causality}; signals drive inputs only (set parameters under instances.{inst}.parameters)")
            continue
        if var.type not in ("Real", "Integer", "Boolean", "Enumeration"):
            err(key, f"{target} is a {var.type}; signals drive Real, Integer and Boolean inputs")
            continue
        if (inst, vname) in driven:
            err(key, f"{target} is also driven by {driven[(inst, vname)]}; add '{target}' to `disconnect:` "
                     f"to drive it with this signal")
            continue
        why = _discrete_signal_problem(var, spec) if var.type != "Real" else None
        if why:
            err(key, f"{target} is {'an' if var.type[0] in 'AEIOU' else 'a'} {var.type}: {why}")
            continue
        driven[(inst, vname)] = f"signal ({file}, {fld})"
        signals.append(SignalPlan(inst, var, spec, file, fld))
    return signals


def _check_driven_inputs(loaded: LoadedScenario, instances: dict, driven: dict, problems: list):
    """A start value for an input that a connection or a signal drives is refused."""
    # a start value for an input that a connection drives is overwritten before the FMU leaves
    # initialisation: refuse it rather than ignore it (a signal-driven input set by --set or a
    # campaign got the value as a constant signal when the scenario was loaded)
    for name, ip in instances.items():
        for var, _val in ip.params:
            if var.causality == "input" and (name, var.name) in driven:
                where = ip.param_where.get(var.name) or loaded.where("instances", name, "parameters", var.name)
                problems.append((*where, f"{name}.{var.name} is driven by {driven[(name, var.name)]}, which "
                                 f"would overwrite this start value; `disconnect: [{name}.{var.name}]` in a "
                                 f"scenario to set it"))


def _unconnected_inputs(instances: dict, driven: dict) -> list:
    """The inputs nothing drives: those given a start value by a parameter entry are fine, the
    others keep the FMU's start value."""
    return [f"{n}.{v.name}" for n, ip in instances.items() for v in ip.inputs if (n, v.name) not in driven]


def _plan_order(loaded: LoadedScenario, instances: dict, connections: list, problems: list):
    """The stepping order (the scenario's, else the data flow's), each connection's kind (forward or backward) and the initialisation order."""
    model = loaded.model
    err = lambda key, msg: problems.append(loaded.error(key, msg))  # noqa: E731
    names = list(instances)
    # the wakes are read before anyone steps: they order nothing (and break no loop)
    edges = {(c.src, c.dst) for c in connections if not c.early}
    if model.order is not None:
        key = ("order",)
        unknown = [n for n in model.order if n not in model.instances]
        dup = sorted({n for n in model.order if model.order.count(n) > 1})
        if unknown:
            err(key, f"unknown instance(s) {', '.join(unknown)} (instances: {', '.join(model.instances)})")
        if dup:
            err(key, f"lists {', '.join(dup)} more than once")
        # instances the order does not list (say, one added to an included stack) come after
        # the listed ones, in the default order among themselves
        order = [n for n in model.order if n in instances]
        order += [n for n in compute_order(names, edges) if n not in order]
    else:
        order = compute_order(names, edges)
    pos = {n: i for i, n in enumerate(order)}
    kinds = {}
    for c in connections:
        if c.early or model.algorithm == "jacobi" or c.src not in pos or c.dst not in pos or pos[c.src] >= pos[c.dst]:
            c.kind = "backward"
        else:
            c.kind = "forward"
        if not c.early:
            kinds[(c.src, c.dst)] = "backward" if kinds.get((c.src, c.dst)) == "backward" else c.kind
    if model.algorithm == "jacobi":
        # initialisation still follows the data flow of the Gauss-Seidel order
        gs_kinds = {(s, d): ("forward" if pos[s] < pos[d] else "backward") for (s, d) in edges if s in pos and d in pos}
        init_order = compute_init_order(order, edges, gs_kinds)
    else:
        init_order = compute_init_order(order, edges, kinds)
    return order, init_order


def _plan_stops(loaded: LoadedScenario, instances: dict, problems: list):
    """The stop conditions, each read and checked against its instance's variables."""
    model = loaded.model
    stops: list[StopPlan] = []
    sw = model.stop_when
    items = [] if sw is None else (sw if isinstance(sw, list) else [sw])
    for i, item in enumerate(items):
        cond = item if isinstance(item, StopCondition) else StopCondition(condition=item)
        key = ("stop_when",) if not isinstance(sw, list) else ("stop_when", i)
        file, _ = loaded.where("stop_when")
        fld = format_key(key)
        m = _STOP_RE.match(cond.condition)
        if not m:
            problems.append((file, fld, f"cannot read condition '{cond.condition}'; expected "
                                        f"'instance.Variable OP value' with OP one of == != < <= > >="))
            continue
        inst, vname, op, lit = m.groups()
        value = _parse_literal(lit)
        if value is None:
            problems.append((file, fld, f"'{cond.condition}': '{lit}' is not a number or true/false"))
            continue
        if inst not in model.instances:
            problems.append((file, fld, f"'{cond.condition}': unknown instance '{inst}'" + suggest(inst, model.instances)))
            continue
        if inst not in instances:
            continue
        var = instances[inst].vars.get(vname)
        if var is None:
            vs = expand(instances[inst].vars, vname)
            if vs is not None:
                problems.append((file, fld, f"'{cond.condition}': {inst}.{vname} is a vector of {len(vs)} elements; "
                                            f"compare one of them, e.g. {inst}.{vs[-1].name}"))
            else:
                problems.append((file, fld, f"'{cond.condition}': "
                                 + _no_variable(inst, instances[inst], vname, ("output",), f"{inst} has no output")))
            continue
        if var.causality not in ("output", "input"):
            problems.append((file, fld, f"'{cond.condition}': {inst}.{vname} is {'an' if var.causality[0] in 'aeiou' else 'a'} "
                                        f"{var.causality}; a stop condition compares an output or an input"))
            continue
        if var.type == "String":
            problems.append((file, fld, f"'{cond.condition}': String variables cannot be compared"))
            continue
        stops.append(StopPlan(cond.condition.strip(), inst, var, op, value, cond.after))
    return stops


def _plan_record(loaded: LoadedScenario, instances: dict, signals: list, problems: list):
    """The recorded columns: every output and driven input ('all'), or the patterns named."""
    model = loaded.model
    err = lambda key, msg: problems.append(loaded.error(key, msg))  # noqa: E731
    all_outputs = [f"{n}.{v.name}" for n, ip in instances.items() for v in ip.outputs]
    signal_inputs = [s.target for s in signals]
    everything = all_outputs + [t for t in signal_inputs if t not in all_outputs]
    if model.record == "all":
        record = everything
    else:
        # outputs, inputs and an FMU's local variables (values it exposes for plots, not outputs:
        # recorded only when named); 'all' in the list stands for the default set
        recordable = [f"{n}.{v.name}" for n, ip in instances.items() for v in ip.vars.values()
                      if v.causality in ("output", "input", "local") and v.type != "String"]
        record = []
        for i, pat in enumerate(model.record):
            if pat == "all":
                record += [r for r in everything if r not in record]
                continue
            rx = re.compile("^" + re.escape(pat).replace(r"\*", ".*") + "$")
            hits = [r for r in recordable if rx.match(r)]
            if not hits:
                base = [r for r in recordable if r.startswith(pat + "[")]
                hits = base
            if not hits:
                err(("record", i), f"'{pat}' matches no output or input (or local variable) of any instance"
                                   + suggest(pat, recordable))
            for h in hits:
                if h not in record:
                    record.append(h)
    return record


def _plan_timing(loaded: LoadedScenario, instances: dict, signals: list, stop_time, step, problems: list):
    """Start, stop and step (the command line's before the file's) and the number of steps."""
    model = loaded.model
    t0 = float(model.start_time)
    t1 = float(stop_time if stop_time is not None else model.stop_time)
    h = float(step if step is not None else model.step)
    # blame the command line when it set the value, else the file and field that did
    step_where = ("--step", "step") if step is not None else loaded.where("step")
    stop_where = ("--stop-time", "stop_time") if stop_time is not None else loaded.where("stop_time")
    if not (math.isfinite(h) and h > 0):
        problems.append((*step_where, f"must be a positive finite number, got {h}"))
    if not (math.isfinite(t1) and t1 > t0):
        problems.append((*stop_where, f"must be a finite time after start_time ({t0}), got {t1}"))
    n_steps = 0
    if not any(p[:2] in (step_where, stop_where) for p in problems) and math.isfinite(t0):
        n_steps, why = _count_steps(t0, t1, h)
        if why:
            problems.append((*(step_where if step is not None else stop_where), why))
    return t0, t1, h, n_steps


def _plan_output_every(loaded: LoadedScenario, h: float, interval: float | None, problems: list) -> int:
    """``output_interval`` (the command line's before the file's) as a number of steps: it
    must be a whole multiple of the step (to a millionth), else refused naming it."""
    given = interval if interval is not None else loaded.model.output_interval
    if given is None:
        return 1
    where = ("--output-interval", f"{given:g}") if interval is not None else loaded.where("output_interval")
    if not (math.isfinite(given) and given > 0):
        problems.append((*where, f"must be a positive finite number of seconds, got {given}"))
        return 1
    if not (math.isfinite(h) and h > 0):
        return 1
    k = round(given / h)
    if k < 1 or abs(given / h - k) > 1e-6 * max(1, k):
        problems.append((*where, f"{given:g} s is not a whole multiple of the step {h:g} s ({given / h:.6g} steps); "
                                 f"give {max(1, k) * h:g} s, or another step"))
        return 1
    return int(k)


def build_plan(loaded: LoadedScenario, stop_time: float | None = None, step: float | None = None,
               output_interval: float | None = None) -> Plan:
    """The run's plan from a loaded scenario, phase by phase (each phase a function above, in
    this order: the later ones use what the earlier found). Every problem of every phase is
    collected (file, field, message), and all of them raised together (ScenarioError), so that
    one run of `auv-cosim validate` names every mistake of a scenario."""
    model = loaded.model
    problems: list[tuple[str, str, str]] = []
    instances = _plan_instances(loaded, problems)
    _plan_parameters(loaded, instances, problems)
    connections, driven, warnings = _plan_connections(loaded, instances, problems)
    signals = _plan_signals(loaded, instances, driven, problems)
    _check_driven_inputs(loaded, instances, driven, problems)
    exchanges.quiet_ports(instances, connections, signals, loaded.model.record)
    unconnected = _unconnected_inputs(instances, driven)
    order, init_order = _plan_order(loaded, instances, connections, problems)
    stops = _plan_stops(loaded, instances, problems)
    record = _plan_record(loaded, instances, signals, problems)
    t0, t1, h, n_steps = _plan_timing(loaded, instances, signals, stop_time, step, problems)
    every = _plan_output_every(loaded, h, output_interval, problems)
    problems += _check_analysis(loaded, instances, signals)
    problems += _check_noise_seed(loaded, instances)

    if problems:
        raise ScenarioError(_with_removals(problems, getattr(loaded, "removed", {})))

    return Plan(
        loaded=loaded, name=loaded.name, instances=instances, connections=connections, signals=signals,
        stops=stops, record=record, order=order, init_order=init_order, algorithm=model.algorithm,
        start_time=t0, stop_time=t1, step=h, n_steps=n_steps, tolerance=model.tolerance,
        unconnected_inputs=unconnected, warnings=warnings, output_every=every,
    )


def _with_removals(problems: list, removed: dict) -> list:
    """The problems, each that names an instance the scenario took out (``vehicles: {NAME:
    null}``, ``INSTANCE: null``) told so, and what else must go with it: a stop condition or an
    analysis of a removed vehicle is not dropped silently (the run would stop otherwise)."""
    if not removed:
        return problems
    out = []
    for file, fld, message in problems:
        gone = [name for name in removed if f"unknown instance '{name}'" in message]
        if gone:
            message += (f"; '{gone[0]}' was taken out by {removed[gone[0]]}: take this {fld.split('.')[0].split('[')[0]} "
                        f"out too, or give it anew in the including file")
        out.append((file, fld, message))
    return out


#: the most steps of a run: its step index and row count stay exact integers in a double
#: (a run's memory does not grow with its length: its summary streams, its rows are written)
MAX_STEPS = 2 ** 53


def _count_steps(t0: float, t1: float, h: float) -> tuple[int, str | None]:
    """The number of steps from t0 to t1, or why the run cannot be made of steps of h. The FMUs
    are told the stop time (fmi2SetupExperiment) and must not be stepped past it, so h must
    divide the duration (to a millionth of a step)."""
    ratio = (t1 - t0) / h
    if not math.isfinite(ratio) or ratio > MAX_STEPS:
        return 0, (f"{_fmt(t1 - t0)} s in steps of {_fmt(h)} s is {ratio:.3g} steps; a run is limited to "
                   f"2**53 steps: use a longer step or a shorter run")
    n = int(round(ratio))
    if abs(ratio - n) >= 1e-6 or n < 1:
        lo, hi = math.floor(ratio), math.ceil(ratio)
        alternatives = " or ".join(f"{_fmt(t0 + k * h)} s" for k in (lo, hi) if k >= 1)
        return 0, (f"the step {_fmt(h)} s does not divide the run from {_fmt(t0)} to {_fmt(t1)} s ({ratio:.6g} steps); "
                   f"the FMUs must not be stepped past the stop time: choose a step that divides it, "
                   f"or stop at {alternatives}")
    # the times of the time column must be distinct and increasing as written
    last = t0 + (n - 1) * h
    if not (step_time(t0, h, n) > step_time(t0, h, n - 1) and last + h > last and t0 + h > t0):
        return 0, (f"the step {_fmt(h)} s is too small for times around {_fmt(max(abs(t0), abs(t1)))} s "
                   f"(consecutive times would be equal)")
    return n, None


def _fmt(x: float) -> str:
    return f"{x:.10g}"


def time_decimals(h: float) -> int:
    """Decimals the step times are rounded to: 10 (so 0.1 * 3 is written 0.3), more for steps
    below 1e-9 s, so that consecutive times stay distinct."""
    return max(10, 9 - math.floor(math.log10(h)))


def step_time(t0: float, h: float, k: int) -> float:
    """The time of communication point k (rounded as written to results.csv)."""
    return round(t0 + k * h, time_decimals(h))


def _check_analysis(loaded, instances: dict, signals: list) -> list[tuple[str, str, str]]:
    """What the requested analyses name (instances, signals) exists, as each analysis's own
    ``check`` sees it (registry.Analysis): checked before the run, since an analysis that can
    only fail would otherwise surface after it, in summary.json."""
    problems = []
    available = registry.analyses()
    targets = [s.target for s in signals]
    for name, opts in loaded.model.analysis.items():
        check = available[name].check if name in available else None
        if check is None:
            continue
        file, where = loaded.where("analysis", name)
        for fld, message in check(opts, list(loaded.model.instances), targets):
            problems.append((file, f"{where}.{fld}", message))
    return problems


def _check_noise_seed(loaded, instances: dict) -> list[tuple[str, str, str]]:
    """``noise_seed`` names Integer parameters of instances of the scenario."""
    file, where = loaded.where("noise_seed")
    problems = []
    for target in loaded.model.noise_seeds():
        inst, name = target.split(".", 1)
        if inst not in loaded.model.instances:
            problems.append((file, where, f"'{target}': unknown instance '{inst}' (instances: "
                                          f"{', '.join(loaded.model.instances)})" + suggest(inst, loaded.model.instances)))
            continue
        if inst not in instances:
            continue  # its FMU did not load: reported with it
        var = instances[inst].vars.get(name)
        if var is None:
            problems.append((file, where, _no_variable(inst, instances[inst], name, ("parameter",))))
        elif var.type != "Integer" or var.causality != "parameter":
            problems.append((file, where, f"'{target}' is a {var.type} {var.causality}, not an Integer parameter"))
    return problems


def format_key(key: tuple) -> str:
    from .scenario import format_loc
    return format_loc(key)
