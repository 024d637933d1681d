"""Scenario files: YAML loading, includes, merging and schema validation (pydantic v2).

A scenario file is a YAML mapping validated by :class:`ScenarioModel` (``extra='forbid'``
everywhere, so a misspelt field is an error, not a silent default). ``include:`` pulls in other
files (a shared wiring such as ``stacks/survey.yaml``) that are merged *before* the including
file, so the including file overrides them. The merge rules are deliberately simple:

- scalar fields (``name``, ``stop_time``, ``step``, ``order``, ``stop_when``, ``record`` ...):
  the later file wins;
- ``instances``: merged per instance; ``fmu`` is replaced, ``parameters`` are merged per name;
  ``instance: null`` removes the instance *and every connection that touches it*;
- ``connections``: concatenated, included files first;
- ``disconnect``: concatenated; applied after the merge, removes the connections into the
  listed inputs (so a signal can drive them instead);
- ``signals``: merged per target variable;
- ``analysis``: merged per analysis name;
- ``noise_seed`` (``INSTANCE.VARIABLE``, the Integer parameter that seeds the stack's random
  noise: what a campaign's ``seeds`` vary): the later file wins, and it goes with its instance
  when that is removed.

Every error is reported as ``<file>: <field path>: <message>``; the file is the one that set the
offending value, also when it sits in an included file.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from auv_cosim.compiled.numbers import number_loader

from . import registry

REPO_ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIR = REPO_ROOT / "scenarios"


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------


class ScenarioError(Exception):
    """A scenario that cannot be run. Carries one or more (file, field, message) triples."""

    def __init__(self, problems: list[tuple[str, str, str]] | str, field: str = "", message: str = ""):
        if isinstance(problems, str):
            problems = [(problems, field, message)]
        self.problems = problems
        super().__init__(self.format())

    def format(self) -> str:
        lines = []
        for file, field, message in self.problems:
            where = f"{file}: {field}" if field else f"{file}"
            lines.append(f"{where}: {message}")
        return "\n".join(lines)


def display_path(path: str | os.PathLike) -> str:
    """A path as people want to read it: relative to the cwd when it is below it."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


def format_loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and any(c in part for c in ".[] "):
            out += f'["{part}"]'
        else:
            out += ("." if out else "") + str(part)
    return out


_UNION_HINTS = {
    "signals": "expected a number, true/false, a signal term ({constant: ...}, {step: ...}, {ramp: ...}, "
               "{sine: ...}, {chirp: ...}) or a list of them",
    "stop_when": "expected a condition ('instance.Variable OP value'), {condition: ..., after: seconds} or a list of them",
    "record": "expected 'all' or a list of 'instance.variable' patterns",
    "include": "expected a file name or a list of file names",
    "instances": "expected {fmu: ..., parameters: {...}} or null (to remove an included instance)",
}


def pydantic_problems(err: ValidationError, file: str, prefix: tuple = (), hints: dict[str, str] | None = None,
                      union_tags: tuple[str, ...] = ()) -> list[tuple[str, str, str]]:
    """pydantic's errors as (file, field path, message), for the scenario and campaign files. A
    value that fits no member of a union (a signal, a stop condition ...) gives one error per
    member in pydantic; they are folded into the most specific one (an unknown field inside a
    signal term, say) or into one message that says what is expected: ``hints`` by top-level
    field. ``union_tags``: the names of the file's own models that can be members of a union."""
    hints = hints or {}

    def _is_union_tag(p: str) -> bool:
        return p in union_tags or _is_builtin_union_tag(p)

    plain: list[tuple[tuple, str]] = []
    unions: dict[tuple, list[tuple[tuple, str]]] = {}
    for e in err.errors(include_url=False):
        raw = e["loc"]
        loc = tuple(p for p in raw if not (isinstance(p, str) and _is_union_tag(p)))
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown field"
        inp = e.get("input")
        if e["type"] not in ("extra_forbidden", "missing") and not isinstance(inp, (dict, list)):
            msg += f" (got {inp!r})"
        cut = next((k for k, p in enumerate(raw) if isinstance(p, str) and _is_union_tag(p)), None)
        if cut is None:
            plain.append((loc, msg))
        else:
            root = tuple(p for p in raw[:cut] if not (isinstance(p, str) and _is_union_tag(p)))
            unions.setdefault(root, []).append((loc, msg))
    out: list[tuple[tuple, str]] = list(plain)
    for root, items in unions.items():
        deeper = [(loc, msg) for loc, msg in items if len(loc) > len(root)
                  and not msg.startswith("Input should be a valid")]
        if deeper:
            out += deeper
        else:
            if len(root) >= 4 and root[0] == "instances" and root[2] == "parameters":
                hint = "expected a number, true/false, text or a list of them"
            elif root and (root[0] != "instances" or len(root) == 2):
                hint = hints.get(root[0])
            else:
                hint = None
            got = next((m[m.index(" (got "):] for _, m in items if " (got " in m), "")
            out.append((root, (hint + got) if hint else " or ".join(dict.fromkeys(m for _, m in items))))
    problems, seen = [], set()
    for loc, msg in out:
        if (loc, msg) in seen:
            continue
        seen.add((loc, msg))
        problems.append((file, format_loc(prefix + loc), msg))
    return problems


def _is_builtin_union_tag(p: str) -> bool:
    if p in _UNION_TAGS or p.startswith("function-") or p.startswith("constrained-"):
        return True
    return "[" in p and p.split("[")[0] in ("list", "dict", "tuple", "literal", "union")


_UNION_TAGS = {"str", "int", "float", "bool", "list", "dict", "none", "literal['all']", "literal['outputs']"}
_SCENARIO_MODELS = ("Term", "StopCondition", "InstanceSpec", "VehicleSpec")


# --------------------------------------------------------------------------------------------
# schema
# --------------------------------------------------------------------------------------------


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Number = Union[StrictInt, StrictFloat]  # a signal value: NaN allowed (how the FMUs' NaN handling is tested)
# times and sizes: a number written as a number (not `yes`, not "0.5"), finite
Time = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Duration = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0)]
Scalar = Union[StrictBool, StrictInt, StrictFloat, StrictStr]
ParamValue = Union[Scalar, list[Scalar]]


class InstanceSpec(Strict):
    """One FMU instance: the FMU file and the start values of its parameters (or inputs)."""

    fmu: Optional[StrictStr] = None
    parameters: dict[str, ParamValue] = Field(default_factory=dict)
    description: StrictStr = ""


class StepArgs(Strict):
    """``before`` until ``time``, ``after`` from ``time`` on."""

    time: Time
    after: Number
    before: Number = 0.0


class RampArgs(Strict):
    """``before`` until ``time``, then linear: either ``slope`` (per second, optionally for
    ``duration`` seconds) or from ``before`` to ``after`` over ``duration`` seconds."""

    time: Time = 0.0
    before: Number = 0.0
    slope: Optional[Number] = None
    after: Optional[Number] = None
    duration: Optional[Duration] = None

    @model_validator(mode="after")
    def _one_law(self):
        if self.slope is None and (self.after is None or self.duration is None):
            raise ValueError("a ramp needs either 'slope' or both 'after' and 'duration'")
        if self.slope is not None and self.after is not None:
            raise ValueError("give either 'slope' or 'after' (with 'duration'), not both")
        return self


class SineArgs(Strict):
    """``amplitude * sin(2 pi (t - start) / period + phase)`` for ``start <= t < stop``, else 0."""

    amplitude: Number
    period: Duration
    phase: Number = 0.0
    start: Time = 0.0
    stop: Optional[Time] = None


class ChirpArgs(Strict):
    """A linear frequency sweep, ``amplitude * sin(2 pi (f0 tau + (f1 - f0) tau^2 / (2 T)))``
    with ``tau = t - start`` and ``T = stop - start``, for ``start <= t < stop``, else 0: the
    frequency goes from ``f0`` to ``f1`` (Hz), an excitation of every frequency in between
    (identification manoeuvres)."""

    amplitude: Number
    start: Number
    stop: Number
    f0: Annotated[float, Field(ge=0)]
    f1: Annotated[float, Field(ge=0)]

    @model_validator(mode="after")
    def _stop_after_start(self):
        if not self.stop > self.start:
            raise ValueError(f"a chirp's stop ({self.stop}) must come after its start ({self.start})")
        return self


class Term(Strict):
    """One term of a signal; exactly one of the five kinds."""

    constant: Optional[Union[StrictBool, StrictInt, StrictFloat]] = None
    step: Optional[StepArgs] = None
    ramp: Optional[RampArgs] = None
    sine: Optional[SineArgs] = None
    chirp: Optional[ChirpArgs] = None

    @model_validator(mode="after")
    def _exactly_one(self):
        kinds = [k for k in ("constant", "step", "ramp", "sine", "chirp") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a signal term needs exactly one of constant, step, ramp, sine, chirp"
                             + (f" (got {', '.join(kinds)})" if kinds else ""))
        return self


SignalSpec = Union[StrictBool, StrictInt, StrictFloat, Term, list[Union[StrictInt, StrictFloat, Term]]]


class StopCondition(Strict):
    """``condition`` like ``control.MissionFinished == true``; the run ends successfully
    ``after`` seconds after the condition first holds."""

    condition: StrictStr
    after: Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0)] = 0.0


class VehicleSpec(Strict):
    """One vehicle of a scenario with several (``vehicles: {NAME: ...}``): its stack (the files
    it includes, as a scenario includes them) and what this scenario changes in it, written
    with the stack's own instance names (``vehicle``, ``sensors``, ``control``). The vehicle's
    instances are named after it: the stack's ``vehicle`` is ``NAME`` itself, every other
    instance ``X`` is ``NAME_X`` (``leader``, ``leader_sensors``, ``leader_control``)."""

    include: Union[StrictStr, list[StrictStr]] = Field(default_factory=list)
    description: StrictStr = ""
    instances: dict[Ident, Optional[InstanceSpec]] = Field(default_factory=dict)
    connections: list[StrictStr] = Field(default_factory=list)
    disconnect: list[StrictStr] = Field(default_factory=list)
    signals: dict[StrictStr, SignalSpec] = Field(default_factory=dict)


class ScenarioModel(Strict):
    """The scenario file schema (one file; after the merge the same model is re-applied)."""

    include: Union[StrictStr, list[StrictStr]] = Field(default_factory=list)
    name: Optional[Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]+$")]] = None
    description: StrictStr = ""
    start_time: Time = 0.0
    stop_time: Optional[Duration] = None
    step: Duration = 0.1
    tolerance: Optional[Duration] = None
    algorithm: Literal["gauss-seidel", "jacobi"] = "gauss-seidel"
    order: Optional[list[Ident]] = None
    instances: dict[Ident, Optional[InstanceSpec]] = Field(default_factory=dict)
    connections: list[StrictStr] = Field(default_factory=list)
    disconnect: list[StrictStr] = Field(default_factory=list)
    signals: dict[StrictStr, SignalSpec] = Field(default_factory=dict)
    stop_when: Optional[Union[StrictStr, StopCondition, list[Union[StrictStr, StopCondition]]]] = None
    record: Union[Literal["all"], list[StrictStr]] = "all"
    plots: StrictBool = True
    analysis: dict[StrictStr, Any] = Field(default_factory=dict)  # name -> options (registry.analyses())
    # the Integer parameter that seeds the stack's random noise (a campaign's `seeds` vary it)
    noise_seed: Optional[Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$")]] = None
    # several vehicles, each with its stack (expanded into prefixed instances when loaded)
    vehicles: dict[Ident, VehicleSpec] = Field(default_factory=dict)
    # 'A -> B' or 'A -> B[k]': A's WakeSource into row k (default: the first free one) of B's
    # WakeSources (SPEC 9.4)
    wakes: list[StrictStr] = Field(default_factory=list)

    @field_validator("analysis", mode="before")
    @classmethod
    def _analysis_forms(cls, v):
        # accept `analysis: [turning_circle]` and `analysis: {turning_circle: }` (null = defaults)
        if v is None:
            return {}
        if isinstance(v, str):
            v = [v]
        if isinstance(v, list):
            out = {}
            for item in v:
                if isinstance(item, str):
                    out[item] = {}
                elif isinstance(item, dict):
                    out.update({k: ({} if a is None else a) for k, a in item.items()})
                else:
                    raise ValueError("analysis entries are names or {name: options}")
            return out
        if isinstance(v, dict):
            return {k: ({} if a is None else a) for k, a in v.items()}
        return v


# --------------------------------------------------------------------------------------------
# loading and merging
# --------------------------------------------------------------------------------------------


class LoadedScenario:
    """A merged, schema-valid scenario plus the provenance of its values.

    ``origin`` maps a field key (a tuple like ``("connections", 3)`` or
    ``("instances", "vehicle", "fmu")``) to ``(file, field path in that file)``.
    """

    def __init__(self, model: ScenarioModel, file: Path, origin: dict, connections: list[tuple[str, str, str]],
                 fmu_dirs: dict[str, Path]):
        self.model = model
        self.file = file
        self.origin = origin
        # (connection text, file, field path in that file), after `disconnect` and instance removal
        self.connections = connections
        self.fmu_dirs = fmu_dirs  # instance -> directory of the file that named its FMU
        # parameter keys (instance, name) or (instance, vector, element) whose values are text
        # from the command line, read later as the variable's declared type
        self.text_values: set[tuple] = set()
        self.files: tuple[Path, ...] = ()  # the scenario files read, included ones first
        self.name = model.name or (file.stem if not file.name.startswith("<") else "scenario")

    def where(self, *key) -> tuple[str, str]:
        """(file, field) for a merged key, falling back to the top file."""
        if key in self.origin:
            return self.origin[key]
        return display_path(self.file), format_loc(key)

    def error(self, key: tuple, message: str) -> tuple[str, str, str]:
        file, field = self.where(*key)
        return (file, field, message)


#: YAML as the project reads every file: `1e3` a number, a key given twice in a mapping an error
#: (the one number rule of the files, shared with the vehicle files: auv_cosim.compiled.numbers)
_Loader = number_loader(yaml.SafeLoader)


def load_yaml(stream) -> Any:
    """YAML text (a string or an open file) as every file and command-line list of the master
    and its clients reads it: `1e3` is a number, a key given twice in a mapping an error
    (yaml.YAMLError, as PyYAML's own errors)."""
    return yaml.load(stream, Loader=_Loader)  # noqa: S506 (a SafeLoader)


def _read_yaml(path: Path, via: str | None) -> dict:
    shown = display_path(path)
    if path.is_dir():
        raise ScenarioError(via or shown, "", f"{shown} is a directory, not a scenario file")
    if not path.is_file():
        raise ScenarioError(via or shown, "", f"scenario file not found: {shown}")
    try:
        with open(path, encoding="utf-8") as f:
            data = load_yaml(f)
    except UnicodeDecodeError as e:
        raise ScenarioError(shown, "", f"not a text file in UTF-8 (byte 0x{e.object[e.start]:02x} at offset {e.start}); "
                                       f"a scenario is a YAML file") from None
    except OSError as e:
        raise ScenarioError(shown, "", f"cannot read the file: {e.strerror or e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        pos = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(e, "problem", None) or str(e)
        raise ScenarioError(shown, "", f"not valid YAML{pos}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ScenarioError(shown, "", "a scenario file must be a YAML mapping (field: value ...)")
    return data


def _load_tree(path: Path, stack: tuple[Path, ...], via: str | None,
               seen: set | None = None) -> list[tuple[Path, dict]]:
    """The files in merge order (includes first, depth first), each schema-checked on its own.
    A file is merged once, where it is first included: two files that both include the same
    stack (a diamond) share it rather than merging its connections twice."""
    path = path.resolve()
    if path in stack:
        chain = " -> ".join(display_path(p) for p in stack + (path,))
        raise ScenarioError(display_path(stack[-1]), "include", f"include cycle: {chain}")
    seen = set() if seen is None else seen
    if path in seen:
        return []
    raw = _read_yaml(path, via)
    shown = display_path(path)
    try:
        ScenarioModel.model_validate(raw)
    except ValidationError as e:
        raise ScenarioError(pydantic_problems(e, shown, hints=_UNION_HINTS, union_tags=_SCENARIO_MODELS)) from None
    inc = raw.get("include") or []
    if isinstance(inc, str):
        inc = [inc]
    files: list[tuple] = []
    for i, rel in enumerate(inc):
        target = Path(rel) if os.path.isabs(rel) else path.parent / rel
        if not target.is_file():
            raise ScenarioError(shown, f"include[{i}]", f"included file not found: {rel} (looked for {display_path(target)})")
        files += _load_tree(target, stack + (path,), shown, seen)
    for name, spec in (raw.get("vehicles") or {}).items():
        files += _vehicle_files(path, shown, name, spec or {}, stack + (path,))
    seen.add(path)
    files.append((path, raw, shown, None))
    return files


# --------------------------------------------------------------------------------------------
# several vehicles: each one's stack, its instances named after it
# --------------------------------------------------------------------------------------------


def vehicle_instance(vehicle: str, instance: str) -> str:
    """The name in the scenario of a vehicle's instance: the stack's ``vehicle`` is the vehicle
    itself (its name is the name the user gave it), any other instance ``X`` is
    ``VEHICLE_X``."""
    return vehicle if instance == "vehicle" else f"{vehicle}_{instance}"


def _renamed_target(text: Any, vehicle: str) -> Any:
    """``instance.Rest`` with its instance renamed for ``vehicle`` (anything else as it is:
    the validation names it)."""
    if not isinstance(text, str) or "." not in text:
        return text
    inst, rest = text.split(".", 1)
    head = inst.strip()
    if not head.isidentifier():
        return text
    return inst[: len(inst) - len(inst.lstrip())] + vehicle_instance(vehicle, head) + "." + rest


def _renamed_connection(text: Any, vehicle: str) -> Any:
    if not isinstance(text, str) or text.count("->") != 1:
        return text
    left, right = text.split("->")
    return f"{_renamed_target(left.strip(), vehicle)} -> {_renamed_target(right.strip(), vehicle)}"


def _renamed_stop(item: Any, vehicle: str) -> Any:
    if isinstance(item, str):
        return _renamed_target(item.strip(), vehicle)
    if isinstance(item, dict) and "condition" in item:
        return {**item, "condition": _renamed_target(str(item["condition"]).strip(), vehicle)}
    return item


#: what a vehicle's files may not hold: they describe one vehicle, the scenario the rest
_NOT_IN_A_VEHICLE = {
    "analysis": "an analysis names the scenario's instances: ask for it in the scenario, with the "
                "vehicle's instance names",
    "vehicles": "a vehicle's stack holds one vehicle",
    "wakes": "wakes are wired in the scenario, between its vehicles",
}


def _vehicle_files(path: Path, shown: str, vehicle: str, spec: dict, stack: tuple[Path, ...]) -> list[tuple]:
    """The files of one vehicle of ``path`` (the files it includes, then its own block), each
    renamed for it (``_renamed_for``) and labelled ``FILE (vehicle NAME)`` in messages. Every
    vehicle reads its stack anew: two vehicles of one stack are two copies of it."""
    inc = spec.get("include") or []
    if isinstance(inc, str):
        inc = [inc]
    out: list[tuple] = []
    seen: set = set()
    for i, rel in enumerate(inc):
        target = Path(rel) if os.path.isabs(rel) else path.parent / rel
        if not target.is_file():
            raise ScenarioError(shown, f"vehicles.{vehicle}.include[{i}]",
                                f"included file not found: {rel} (looked for {display_path(target)})")
        for p, raw, label, _ in _load_tree(target, stack, shown, seen):
            where = f"{label} (vehicle {vehicle})"
            out.append((p, _renamed_for(raw, vehicle, where), where, vehicle))
    own = {k: v for k, v in spec.items() if k != "include"}
    where = f"{shown} (vehicles.{vehicle})"
    out.append((path, _renamed_for(own, vehicle, where), where, vehicle))
    return out


def _renamed_for(raw: dict, vehicle: str, where: str) -> dict:
    """One file of a vehicle's stack with every instance it names renamed for the vehicle
    (``vehicle_instance``): its instances, connections, disconnects, signals, order, stop
    conditions, recorded patterns and noise seed. The rest (step, algorithm ...) is kept."""
    for key, why in _NOT_IN_A_VEHICLE.items():
        if raw.get(key):
            raise ScenarioError(where, key, f"not in a vehicle's files: {why}")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("include", *_NOT_IN_A_VEHICLE):
            continue
        if key == "instances":
            value = {vehicle_instance(vehicle, k): v for k, v in (value or {}).items()}
        elif key == "connections":
            value = [_renamed_connection(c, vehicle) for c in value or []]
        elif key == "disconnect":
            value = [_renamed_target(d, vehicle) for d in value or []]
        elif key == "signals":
            value = {_renamed_target(k, vehicle): v for k, v in (value or {}).items()}
        elif key == "order" and isinstance(value, list):
            value = [vehicle_instance(vehicle, n) if isinstance(n, str) else n for n in value]
        elif key == "stop_when" and value is not None:
            value = [_renamed_stop(i, vehicle) for i in value] if isinstance(value, list) else _renamed_stop(value, vehicle)
        elif key == "record" and isinstance(value, list):
            value = [r if r == "all" else _renamed_target(r, vehicle) for r in value]
        elif key == "noise_seed" and isinstance(value, str):
            value = _renamed_target(value, vehicle)
        out[key] = value
    return out


def _combine_vehicles(per_vehicle: dict[str, dict], merged: dict, origin: dict, top: str) -> list[tuple[str, str, str]]:
    """The scenario-wide fields that the vehicles' files set and no other file did: the order
    (each vehicle's in turn, the vehicles as declared), the stop conditions (any vehicle's ends
    the run), the recorded patterns (all of them), the noise seed (the first vehicle's); the
    step and the algorithm must agree. Returns the disagreements."""
    problems = []
    for key in ("step", "algorithm", "start_time", "tolerance"):
        values = {v: f[key] for v, f in per_vehicle.items() if key in f}
        if key in merged or not values:
            continue
        if len({repr(x[0]) for x in values.values()}) > 1:
            told = ", ".join(f"{v}: {x[0]!r} ({x[1]})" for v, x in values.items())
            problems.append((top, key, f"the vehicles' stacks disagree ({told}); set {key} in the scenario"))
            continue
        first = next(iter(values.values()))
        merged[key] = first[0]
        origin[(key,)] = (first[1], key)
    if "order" not in merged:
        orders = [f["order"] for f in per_vehicle.values() if "order" in f]
        if orders:
            merged["order"] = [n for o, _ in orders for n in (o if isinstance(o, list) else [])]
            origin[("order",)] = (orders[0][1], "order")
    if "stop_when" not in merged:
        stops = [f["stop_when"] for f in per_vehicle.values() if f.get("stop_when", (None,))[0] is not None]
        if stops:
            merged["stop_when"] = [i for s, _ in stops for i in (s if isinstance(s, list) else [s])]
            origin[("stop_when",)] = (stops[0][1], "stop_when")
    if "record" not in merged:
        records = [f["record"][0] for f in per_vehicle.values() if "record" in f]
        if records and any(r != "all" for r in records):
            merged["record"] = list(dict.fromkeys(x for r in records for x in (["all"] if r == "all" else r)))
    if "noise_seed" not in merged:
        seeds = [f["noise_seed"] for f in per_vehicle.values() if f.get("noise_seed", (None,))[0] is not None]
        if seeds:
            merged["noise_seed"] = seeds[0][0]
            origin[("noise_seed",)] = (seeds[0][1], "noise_seed")
    for key in ("stop_time", "plots", "name"):
        if key not in merged:
            values = [f[key] for f in per_vehicle.values() if key in f]
            if values:
                merged[key] = values[-1][0]
                origin[(key,)] = (values[-1][1], key)
    return problems


def _match_disconnect(dst: str, pattern: str) -> bool:
    """`vehicle.RudderYaw` matches itself; `vehicle.ExternalForce` matches its elements."""
    return dst == pattern or (dst.startswith(pattern + "[") and dst.endswith("]"))


def parse_connection(text: str) -> tuple[str, str, str, str] | None:
    """'a.X -> b.Y' -> (a, X, b, Y), or None when malformed."""
    if text.count("->") != 1:
        return None
    left, right = (s.strip() for s in text.split("->"))
    if "." not in left or "." not in right:
        return None
    a, x = left.split(".", 1)
    b, y = right.split(".", 1)
    if not (a.isidentifier() and b.isidentifier() and x and y):
        return None
    return a, x.strip(), b, y.strip()


def load_scenario(source: str | os.PathLike | dict, overrides: dict[str, Any] | None = None,
                  override_origins: dict[str, tuple[str, str]] | None = None) -> LoadedScenario:
    """Load, merge and schema-check a scenario (file path or an already loaded mapping).

    ``overrides`` (``instance.Var`` or ``instance.Var[i]`` -> value) are applied after every
    file; a text value is read later as the variable's declared type (a command-line value).
    ``override_origins`` names where each came from in error messages (default ``--set``)."""
    if isinstance(source, dict):
        # an in-memory scenario: includes and relative paths resolve against the cwd
        file = Path.cwd() / "<scenario>.yaml"
        raw = source
        shown = "<scenario>"
        try:
            ScenarioModel.model_validate(raw)
        except ValidationError as e:
            raise ScenarioError(pydantic_problems(e, shown, hints=_UNION_HINTS, union_tags=_SCENARIO_MODELS)) from None
        files = []
        seen: set = set()
        inc = raw.get("include") or []
        for i, rel in enumerate([inc] if isinstance(inc, str) else inc):
            target = Path(rel)
            if not target.is_file():
                target = SCENARIO_DIR / rel
            if not target.is_file():
                raise ScenarioError(shown, f"include[{i}]", f"included file not found: {rel}")
            files += _load_tree(target, (), shown, seen)
        for name, spec in (raw.get("vehicles") or {}).items():
            files += _vehicle_files(file, shown, name, spec or {}, ())
        files.append((file, raw, shown, None))
    else:
        file = Path(source).resolve()
        files = _load_tree(file, (), None)

    merged: dict[str, Any] = {}
    origin: dict[tuple, tuple[str, str]] = {}
    instances: dict[str, dict] = {}
    connections: list[tuple[str, str, str]] = []
    disconnects: list[tuple[str, str, str]] = []
    signals: dict[str, Any] = {}
    analysis: dict[str, Any] = {}
    fmu_dirs: dict[str, Path] = {}

    used: list[bool] = []
    wakes: list[tuple[str, str, str]] = []
    per_vehicle: dict[str, dict] = {}  # vehicle -> scenario-wide field -> (value, file), its files'
    owners: dict[str, str] = {}        # instance -> the vehicle whose files made it
    for path, raw, shown, vehicle in files:
        own_connections: list[tuple[str, str, str]] = []
        own_disconnects: list[int] = []
        for key, value in raw.items():
            if key in ("include", "vehicles"):
                continue
            if key == "wakes":
                for i, w in enumerate(value or []):
                    wakes.append((w, shown, f"wakes[{i}]"))
                continue
            if vehicle is not None and key not in ("instances", "connections", "disconnect", "signals", "description"):
                per_vehicle.setdefault(vehicle, {})[key] = (value, shown)
                continue
            if key == "instances":
                for inst, spec in (value or {}).items():
                    if vehicle is not None and owners.setdefault(inst, vehicle) != vehicle:
                        raise ScenarioError(shown, f"instances.{inst}", f"the instance '{inst}' is vehicle "
                                            f"{owners[inst]}'s and vehicle {vehicle}'s: rename one of the vehicles")
                    if spec is None:
                        instances.pop(inst, None)
                        instances[inst] = None  # tombstone: removed, drop its connections
                        origin[("instances", inst)] = (shown, f"instances.{inst}")
                        continue
                    cur = instances.get(inst) or {"parameters": {}}
                    cur = {"parameters": dict(cur.get("parameters", {})), **{k: v for k, v in cur.items() if k != "parameters"}}
                    for k, v in spec.items():
                        if k == "parameters":
                            for pname, pval in (v or {}).items():
                                key = set_start_value(cur["parameters"], pname, pval)
                                origin[("instances", inst, "parameters") + key] = (
                                    shown, format_loc(("instances", inst, "parameters", pname)))
                        else:
                            cur[k] = v
                            origin[("instances", inst, k)] = (shown, f"instances.{inst}.{k}")
                            if k == "fmu":
                                fmu_dirs[inst] = path.parent
                    instances[inst] = cur
                    origin.setdefault(("instances", inst), (shown, f"instances.{inst}"))
            elif key == "connections":
                for i, c in enumerate(value or []):
                    own_connections.append((c, shown, f"connections[{i}]"))
            elif key == "disconnect":
                for i, c in enumerate(value or []):
                    disconnects.append((c, shown, f"disconnect[{i}]"))
                    own_disconnects.append(len(disconnects) - 1)
            elif key == "signals":
                for target, spec in (value or {}).items():
                    signals[target] = spec
                    origin[("signals", target)] = (shown, format_loc(("signals", target)))
            elif key == "analysis":
                # normalise through the validator, then merge per analysis
                norm = ScenarioModel._analysis_forms(value)
                for k, v in norm.items():
                    analysis[k] = v
                    origin[("analysis", k)] = (shown, f"analysis.{k}")
            else:
                merged[key] = value
                origin[(key,)] = (shown, key)
        # a file's `disconnect` removes the connections merged before it (those of the files it
        # includes), never its own new ones
        used += [False] * len(own_disconnects)
        if own_disconnects:
            kept = []
            for c, f, fld in connections:
                parsed = parse_connection(c)
                drop = False
                if parsed:
                    dst = f"{parsed[2]}.{parsed[3]}"
                    for j in own_disconnects:
                        pat = disconnects[j][0].strip()
                        if _match_disconnect(dst, pat) or _match_disconnect(pat, dst):
                            drop = used[j] = True
                if not drop:
                    kept.append((c, f, fld))
            connections = kept
        connections += own_connections

    top = "<scenario>" if isinstance(source, dict) else display_path(file)
    if per_vehicle:
        problems = _combine_vehicles(per_vehicle, merged, origin, top)
        if problems:
            raise ScenarioError(problems)
    for k, (w, f, fld) in enumerate(wakes):
        origin[("wakes", k)] = (f, fld)

    removed = {k for k, v in instances.items() if v is None}
    instances = {k: v for k, v in instances.items() if v is not None}

    # overrides (--set INSTANCE.VARIABLE=VALUE, a campaign's values): after every file, so they
    # win over the files, whole vector or element alike
    text_values: set[tuple] = set()
    for target, value in (overrides or {}).items():
        where = (override_origins or {}).get(target, ("--set", target))
        if "." not in target:
            raise ScenarioError(*where, "expected INSTANCE.VARIABLE=VALUE")
        inst, var = target.split(".", 1)
        if inst not in instances:
            known = ", ".join(instances) or "none"
            raise ScenarioError(*where, f"unknown instance '{inst}' (instances: {known})")
        key = override_start_value(instances[inst]["parameters"], signals, target, value)
        if key is None:  # an input the scenario drives with a signal: the override replaced it
            if isinstance(value, str):
                signals[target] = {"constant": _number(value, target, where)}
            origin[("signals", target)] = where
            continue
        origin[("instances", inst, "parameters") + key] = where
        if isinstance(value, str) or (isinstance(value, list) and any(isinstance(v, str) for v in value)):
            text_values.add((inst,) + key)

    # drop connections touching removed instances
    final = []
    for c, f, fld in connections:
        parsed = parse_connection(c)
        if parsed and (parsed[0] in removed or parsed[2] in removed):
            continue
        final.append((c, f, fld))
    problems = [(f, fld, f"'{pat}' matches no connection (nothing is connected to it)")
                for (pat, f, fld), u in zip(disconnects, used) if not u]
    if problems:
        raise ScenarioError(problems)

    if removed and isinstance(merged.get("order"), list):
        merged["order"] = [n for n in merged["order"] if n not in removed]
    if removed and isinstance(merged.get("noise_seed"), str) and merged["noise_seed"].split(".")[0] in removed:
        del merged["noise_seed"]  # the noise of a removed instance: the stack has no seed left
    merged["instances"] = instances
    merged["connections"] = [c for c, _, _ in final]
    merged["disconnect"] = [d for d, _, _ in disconnects]
    merged["signals"] = signals
    merged["analysis"] = analysis
    merged["wakes"] = [w for w, _, _ in wakes]
    try:
        model = ScenarioModel.model_validate(merged)
    except ValidationError as e:
        raise ScenarioError(pydantic_problems(e, top, hints=_UNION_HINTS, union_tags=_SCENARIO_MODELS)) from None

    problems = []
    if model.stop_time is None:
        problems.append((top, "stop_time", "missing: the scenario (or a file it includes) must set stop_time"))
    if not model.instances:
        problems.append((top, "instances", "no instances: the scenario needs at least one FMU instance"))
    for inst, spec in model.instances.items():
        if spec.fmu is None:
            f, fld = origin.get(("instances", inst), (top, f"instances.{inst}"))
            problems.append((f, fld + ".fmu", "missing: every instance needs an fmu"))
    if model.stop_time is not None and model.stop_time <= model.start_time:
        problems.append((top, "stop_time", f"must be after start_time ({model.start_time})"))
    problems += _check_analyses(model, origin, top)
    if problems:
        raise ScenarioError(problems)
    loaded = LoadedScenario(model, file, origin, final, fmu_dirs)
    loaded.text_values = text_values
    loaded.files = tuple(dict.fromkeys(path for path, *_ in files if not (isinstance(source, dict) and path == file)))
    return loaded


def _check_analyses(model: ScenarioModel, origin: dict, top: str) -> list[tuple[str, str, str]]:
    """Each ``analysis:`` entry validated against the options model of the analysis of that
    name (registered by a vehicle's package, registry.analyses()); the options replace the
    mapping in ``model.analysis``."""
    problems = []
    available = registry.analyses()
    for name, options in list(model.analysis.items()):
        file, fld = origin.get(("analysis", name), (top, f"analysis.{name}"))
        spec = available.get(name)
        if spec is None:
            problems.append((file, fld, f"unknown analysis (known: {', '.join(sorted(available)) or 'none'})"))
            continue
        try:
            model.analysis[name] = spec.options.model_validate(options)
        except ValidationError as e:
            problems += pydantic_problems(e, file, prefix=("analysis", name))
    return problems


def _number(text: str, target: str, where: tuple[str, str]) -> float | bool:
    t = text.strip().lower()
    if t in ("true", "false"):
        return t == "true"
    try:
        value = float(t)
    except ValueError:
        raise ScenarioError(*where, f"{target} is driven by a signal; expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise ScenarioError(*where, f"{target} is driven by a signal; expected a finite number, got {text!r}")
    return value


_ELEMENT_RE = re.compile(r"^(.+)\[([1-9][0-9]*)\]$")


def set_start_value(parameters: dict, name: str, value: Any) -> tuple:
    """Set ``name`` (a scalar, a whole vector or one element ``V[i]``) in a parameters mapping so
    that this setting, the latest, wins: a whole vector replaces every element setting of it
    made before; an element of a vector given whole as a list replaces that list element.
    Returns the key it went under: ``(name,)``, or ``(V, i)`` for an element inside a list."""
    m = _ELEMENT_RE.match(name)
    if m:
        base, i = m.group(1), int(m.group(2))
        whole = parameters.get(base)
        if isinstance(whole, list) and i <= len(whole):
            whole = list(whole)
            whole[i - 1] = value
            parameters[base] = whole
            return (base, i)
        parameters[name] = value
        return (name,)
    for k in [k for k in parameters if (mk := _ELEMENT_RE.match(k)) and mk.group(1) == name]:
        del parameters[k]
    parameters[name] = value
    return (name,)


def override_start_value(parameters: dict, signals: dict, target: str, value: Any) -> tuple | None:
    """One override (``--set``, a campaign's ``--vary``/``set``) of ``instance.Var[i]``: an
    input the scenario drives with a signal gets the value as a constant signal instead (None
    is returned), anything else a start value (see ``set_start_value``; its key is returned)."""
    if target in signals:
        signals[target] = {"constant": value}
        return None
    return set_start_value(parameters, target.split(".", 1)[1], value)


def resolve_fmu_path(text: str, declared_in: Path | None) -> tuple[Path | None, list[Path]]:
    """Find an FMU named relative to the declaring file, the repo root or the cwd."""
    p = Path(os.path.expanduser(text))
    if p.is_absolute():
        return (p if p.is_file() else None), [p]
    candidates = []
    for base in ([declared_in] if declared_in else []) + [REPO_ROOT, Path.cwd()]:
        c = (base / p).resolve()
        if c not in candidates:
            candidates.append(c)
    for c in candidates:
        if c.is_file():
            return c, candidates
    return None, candidates


def scenario_fmus(directory: Path | None = None) -> list[Path]:
    """The FMU files the scenarios under ``directory`` (default: the project's, ``scenarios/``,
    with their ``stacks/``) name as ``instances.NAME.fmu``, found as a run finds them, sorted
    and once each: what ``auv-cosim validate`` checks by default. The master knows no
    vehicle, so which FMUs make the project is the scenarios' word. An FMU not found is listed
    where the project keeps it (under the project root), so that it can be reported missing;
    a scenario file that cannot be read names none (``list`` and ``run`` report it)."""
    directory = directory or SCENARIO_DIR
    found: dict[Path, None] = {}
    for path in sorted(directory.glob("*.y*ml")) + sorted(directory.glob("*/*.y*ml")):
        try:
            raw = _read_yaml(path, None)
        except ScenarioError:
            continue
        instances = raw.get("instances") if isinstance(raw, dict) else None
        for spec in (instances or {}).values() if isinstance(instances, dict) else ():
            text = spec.get("fmu") if isinstance(spec, dict) else None
            if isinstance(text, str) and text.strip():
                where, _ = resolve_fmu_path(text, path.parent)
                found[where or (REPO_ROOT / text).resolve()] = None
    return sorted(found)


def list_scenarios(directory: Path | None = None) -> list[tuple[str, str, Path]]:
    """(name, description, path) of every scenario file directly under ``directory``."""
    directory = directory or SCENARIO_DIR
    out = []
    for path in sorted(directory.glob("*.yaml")) + sorted(directory.glob("*.yml")):
        try:
            raw = _read_yaml(path, None)
            name = raw.get("name") or path.stem
            desc = raw.get("description") or ""
        except ScenarioError as e:
            name, desc = path.stem, f"(unreadable: {e})"
        out.append((str(name), " ".join(str(desc).split()), path))
    return out

