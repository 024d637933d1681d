"""Campaign definitions: the campaign file schema, ``--vary`` parsing and the run planner.

Nothing here runs an FMU: this module turns "a scenario, some varied variables, N seeds" into
an ordered list of runs, each with its own resolved scenario (the base scenario with the
overrides applied, includes merged) and an inputs hash. ``auv_cosim.campaigns`` executes them.

A campaign file (YAML, validated with pydantic; every error names the file and the field)::

    scenario: survey                      # a scenario's name, or its file (relative to this file)
    name: survey-current                  # optional; default: the scenario's name
    vary:                                 # the runs are the product of these lists (in order)
      vehicle.CurrentVelocity[2]: [0.0, 0.2, 0.4]
      control.DepthKp: {start: 0.5, stop: 2.0, num: 4}   # inclusive linspace
    seeds: 3                              # adds sensors.Seed = 1, 2, 3 (innermost)
    seed_variable: sensors.Seed           # default: the scenario's noise_seed
    set: {vehicle.Length: 1.7}            # fixed overrides applied to every run
    stop_time: 300
    step: 0.1
    out: ../results/campaigns/survey-current   # relative to this file
    workers: 2                            # or scheduler: tcp://host:8786
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Optional, Union

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

from auv_cosim.master import (
    ScenarioError,
    find_scenario,
    display_path,
    fmu_reference,
    format_loc,
    load_yaml,
    override_start_value,
    pydantic_problems,
)

#: the most runs a campaign may have: each is planned (its scenario written and hashed), gets a
#: folder and a row; far more would take hours to plan before the first run starts
MAX_RUNS = 100_000
CAMPAIGN_FORMAT = 1  # bumped when the meaning of a run's inputs changes (goes into the hash)
TARGET_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:\[([1-9][0-9]*)\])?$")


class CampaignError(ScenarioError):
    """A campaign that cannot be planned; ``problems`` are (file, field, message) triples."""


# --------------------------------------------------------------------------------------------
# schema
# --------------------------------------------------------------------------------------------

Scalar = Union[StrictBool, StrictInt, StrictFloat, StrictStr]
Value = Union[Scalar, list[Scalar]]


class Linspace(BaseModel):
    """``num`` values from ``start`` to ``stop`` inclusive."""

    model_config = ConfigDict(extra="forbid")
    start: Union[StrictInt, StrictFloat]
    stop: Union[StrictInt, StrictFloat]
    num: Annotated[int, Field(ge=1, le=100_000)]  # MAX_RUNS: more could not be planned, let alone run

    def values(self) -> list[float]:
        return linspace(float(self.start), float(self.stop), self.num)


class CampaignModel(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    scenario: StrictStr
    name: Optional[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+$")]] = None
    description: StrictStr = ""
    vary: dict[StrictStr, Union[Linspace, Annotated[list[Value], Field(min_length=1)]]] = Field(default_factory=dict)
    seeds: Optional[Annotated[int, Field(ge=1, le=100_000)]] = None
    seed_variable: Optional[StrictStr] = None  # default: the scenario's noise_seed
    set: dict[StrictStr, Value] = Field(default_factory=dict)
    stop_time: Optional[Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0)]] = None
    step: Optional[Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0)]] = None
    out: Optional[StrictStr] = None
    workers: Optional[Annotated[int, Field(ge=1)]] = None
    scheduler: Optional[StrictStr] = None
    retry_failed: StrictBool = False
    run_plots: StrictBool = False

    @model_validator(mode="after")
    def _checks(self):
        if self.workers is not None and self.scheduler is not None:
            raise ValueError("give either 'workers' (a local cluster) or 'scheduler' (an existing one), not both")
        return self


def linspace(start: float, stop: float, num: int) -> list[float]:
    if num == 1:
        return [start]
    out = [start + (stop - start) * k / (num - 1) for k in range(num)]
    out[-1] = stop
    return [float(round(x, 12)) for x in out]


@dataclass
class Campaign:
    """A validated campaign, paths resolved. ``source`` is the file it came from (or None)."""

    scenario: Path
    vary: dict[str, list[Any]]
    seeds: int | None = None
    seed_variable: str | None = None  # None: the scenario's noise_seed (CampaignPlan)
    fixed: dict[str, Any] = field(default_factory=dict)
    stop_time: float | None = None
    step: float | None = None
    output_interval: float | None = None   # record every k-th step of each run (--output-interval)
    out: Path | None = None
    workers: int | None = None
    scheduler: str | None = None
    retry_failed: bool = False
    run_plots: bool = False
    name: str | None = None
    description: str = ""
    source: Path | None = None
    # where each varied/fixed variable was given (for error messages): target -> (file, field)
    where: dict[str, tuple[str, str]] = field(default_factory=dict)
    # values that came from the command line as text (typed later against modelDescription)
    text_values: set = field(default_factory=set)

    def origin(self, key: str) -> tuple[str, str]:
        return self.where.get(key, (display_path(self.source) if self.source else "<campaign>", key))


def is_campaign_file(path: str | os.PathLike) -> bool:
    """A YAML mapping with a top-level ``scenario`` field (scenario files have none)."""
    p = Path(path)
    if p.suffix.lower() not in (".yaml", ".yml") or not p.is_file():
        return False
    try:
        with open(p, encoding="utf-8") as f:
            data = load_yaml(f)
    except (OSError, ValueError, yaml.YAMLError):  # ValueError: not UTF-8 text
        return False
    return isinstance(data, dict) and "scenario" in data


def find_scenario_path(text: str, base: Path) -> Path:
    """A scenario named relative to ``base``, the cwd, or by its name in a unit's scenario
    folder (the master's ``find_scenario``)."""
    p = Path(os.path.expanduser(text))
    candidates = [p] if p.is_absolute() else [base / p, Path.cwd() / p, find_scenario(text)]
    for c in candidates:
        if c.is_file():
            return c.resolve()
    return candidates[0].resolve()


def load_campaign_file(path: str | os.PathLike) -> Campaign:
    path = Path(path)
    shown = display_path(path)
    if not path.is_file():
        raise CampaignError(shown, "", f"campaign file not found: {shown}")
    try:
        with open(path, encoding="utf-8") as f:
            raw = load_yaml(f)
    except UnicodeDecodeError as e:
        raise CampaignError(shown, "", f"not a text file in UTF-8 (byte 0x{e.object[e.start]:02x} at offset {e.start})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        pos = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise CampaignError(shown, "", f"not valid YAML{pos}: {getattr(e, 'problem', None) or e}") from None
    if not isinstance(raw, dict):
        raise CampaignError(shown, "", "a campaign file must be a YAML mapping (scenario: ..., vary: ...)")
    try:
        m = CampaignModel.model_validate(raw)
    except ValidationError as e:
        raise CampaignError(pydantic_problems(e, shown, union_tags=("Linspace",))) from None
    base = path.resolve().parent
    scen = find_scenario_path(m.scenario, base)
    if not scen.is_file():
        raise CampaignError(shown, "scenario", f"scenario file not found: {m.scenario} (looked for {display_path(scen)})")
    where = {}
    problems = []
    vary = {}
    for k, v in m.vary.items():
        where[k] = (shown, format_loc(("vary", k)))
        if not TARGET_RE.match(k):
            problems.append((shown, format_loc(("vary", k)), "expected INSTANCE.VARIABLE or INSTANCE.VARIABLE[i]"))
        vary[k] = v.values() if isinstance(v, Linspace) else list(v)
    fixed = {}
    for k, v in m.set.items():
        where[k] = (shown, format_loc(("set", k)))
        if not TARGET_RE.match(k):
            problems.append((shown, format_loc(("set", k)), "expected INSTANCE.VARIABLE or INSTANCE.VARIABLE[i]"))
        fixed[k] = v
    if m.seed_variable is not None and not TARGET_RE.match(m.seed_variable):
        problems.append((shown, "seed_variable", f"expected INSTANCE.VARIABLE (got {m.seed_variable!r})"))
    where["seeds"] = (shown, "seeds")
    where["stop_time"] = (shown, "stop_time")
    if problems:
        raise CampaignError(problems)
    out = None
    if m.out is not None:
        out = Path(os.path.expanduser(m.out))
        out = out if out.is_absolute() else (base / out)
    return Campaign(scenario=scen, vary=vary, seeds=m.seeds, seed_variable=m.seed_variable, fixed=fixed,
                    stop_time=m.stop_time, step=m.step, out=out, workers=m.workers, scheduler=m.scheduler,
                    retry_failed=m.retry_failed, run_plots=m.run_plots, name=m.name, description=m.description,
                    source=path.resolve(), where=where)


# --------------------------------------------------------------------------------------------
# command-line values
# --------------------------------------------------------------------------------------------

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE_RE = re.compile(rf"^\s*({_NUM})\s*:\s*({_NUM})\s*:\s*(\d+)\s*$")


def parse_vary_option(text: str) -> tuple[str, list[Any], bool]:
    """``INSTANCE.VARIABLE=V1,V2,...`` -> (target, values, values_are_text).

    - ``V1,V2,...``: values as text, typed later against the FMU's modelDescription (like
      ``--set``): ``vehicle.Length=1.5,1.6``, ``control.GuidanceMode=mission,hold``;
    - ``START:STOP:NUM``: NUM values from START to STOP inclusive (floats);
    - ``[...]``: a YAML flow list, for vectors and text with commas:
      ``vehicle.CurrentVelocity=[[0,0.2,0],[0,0.4,0]]``.
    """
    if "=" not in text:
        raise CampaignError("--vary", text, "expected INSTANCE.VARIABLE=V1,V2,...")
    target, vals = text.split("=", 1)
    target = target.strip()
    if not TARGET_RE.match(target):
        raise CampaignError("--vary", target, "expected INSTANCE.VARIABLE or INSTANCE.VARIABLE[i] before '='")
    vals = vals.strip()
    if not vals:
        raise CampaignError("--vary", target, "no values after '='")
    if vals.startswith("["):
        try:
            parsed = load_yaml(vals)
        except yaml.YAMLError as e:
            raise CampaignError("--vary", target, f"cannot read {vals!r} as a YAML list: {getattr(e, 'problem', e)}") from None
        if not isinstance(parsed, list) or not parsed:
            raise CampaignError("--vary", target, f"expected a non-empty list, got {vals!r}")
        return target, parsed, False
    m = _RANGE_RE.match(vals)
    if m:
        n = int(m.group(3))
        if n < 1:
            raise CampaignError("--vary", target, "a range START:STOP:NUM needs NUM >= 1")
        if n > MAX_RUNS:
            raise CampaignError("--vary", target, f"a range of {n:,} values; a campaign is limited to {MAX_RUNS:,} runs")
        return target, linspace(float(m.group(1)), float(m.group(2)), n), False
    parts = [p.strip() for p in vals.split(",")]
    if any(p == "" for p in parts):
        raise CampaignError("--vary", target, f"empty value in {vals!r}")
    return target, parts, True


def parse_set_option(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise CampaignError("--set", text, "expected INSTANCE.VARIABLE=VALUE")
    target, val = text.split("=", 1)
    target = target.strip()
    if not TARGET_RE.match(target):
        raise CampaignError("--set", target, "expected INSTANCE.VARIABLE or INSTANCE.VARIABLE[i] before '='")
    return target, val


def parse_set_options(items) -> tuple[dict[str, Any], set[str]]:
    """The fixed overrides of repeated ``--set INSTANCE.VARIABLE=VALUE`` options: ``{target:
    value}`` and the targets whose value is text, to be read by the variable's type (a list in
    brackets is read as YAML, a vector's value)."""
    fixed: dict[str, Any] = {}
    text = set()
    for item in items:
        target, value = parse_set_option(item)
        v = value.strip()
        if v.startswith("["):
            try:
                fixed[target] = load_yaml(v)
            except yaml.YAMLError:
                raise CampaignError("--set", target, f"cannot read {v!r} as a list") from None
        else:
            fixed[target] = value
            text.add(target)
    return fixed, text


# --------------------------------------------------------------------------------------------
# planning
# --------------------------------------------------------------------------------------------


def expand(vary: dict[str, list[Any]], seeds: int | None = None, seed_variable: str | None = None) -> list[dict[str, Any]]:
    """The product of the varied values, in the order given (the last varies fastest), with
    ``seed_variable`` = 1..seeds innermost. One dict per run."""
    axes = dict(vary)
    total = math.prod(len(v) for v in axes.values()) * (seeds or 1)
    if total > MAX_RUNS:
        sizes = " x ".join([str(len(v)) for v in axes.values()] + ([f"{seeds} seeds"] if seeds else []))
        raise CampaignError("--vary", ", ".join(axes) or "--seeds",
                            f"{sizes} = {total:,} runs; a campaign is limited to {MAX_RUNS:,} runs")
    if seeds:
        if seed_variable is None:
            raise CampaignError("--seeds", str(seeds), "no variable to seed: name one with seed_variable (--seed-variable)")
        if seed_variable in axes:
            raise CampaignError("--seeds", seed_variable, f"{seed_variable} is also varied explicitly; use one or the other")
        axes[seed_variable] = list(range(1, seeds + 1))
    if not axes:
        return [{}]
    keys = list(axes)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(axes[k] for k in keys))]


def format_value(v: Any) -> str:
    """Short, exact text of a value (for folder names and tables)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return repr(v)
    if isinstance(v, list):
        return "[" + ",".join(format_value(x) for x in v) + "]"
    return str(v)


_SAFE = re.compile(r"[^A-Za-z0-9._+=,-]")


def short_hash(obj: Any, n: int = 8) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:n]


def run_ids(runs: list[dict[str, Any]], max_len: int = 96) -> list[str]:
    """A readable, stable folder name per run, built from its values only (not its position),
    so a run keeps its folder when the vary lists are extended: ``vehicle.Length=1.5+sensors.Seed=2``.
    Vector elements ``X[2]`` are written ``X_2``; anything unsafe in a file name, over-long
    names and collisions get a hash of the values appended."""
    raw = []
    for values in runs:
        if not values:
            raw.append("base")
            continue
        parts = []
        for k, v in values.items():
            k2 = re.sub(r"\[(\d+)\]$", r"_\1", k)
            parts.append(f"{k2}={format_value(v)}")
        raw.append("+".join(parts))
    ids = []
    for text, values in zip(raw, runs):
        safe = _SAFE.sub("_", text)
        if safe != text or len(safe) > max_len or safe.startswith((".", "-")):
            safe = safe[:max_len].rstrip("_.") + "-" + short_hash(values)
        ids.append(safe)
    counts: dict[str, int] = {}
    for i in ids:
        counts[i] = counts.get(i, 0) + 1
    return [i if counts[i] == 1 else f"{i[:max_len]}-{short_hash(v)}" for i, v in zip(ids, runs)]


def apply_overrides(scenario: dict, values: dict[str, Any]) -> dict:
    """A copy of a resolved scenario mapping with ``instance.Var`` / ``instance.Var[i]`` set.
    An element of a vector given as a list in the scenario replaces that list element."""
    out = copy.deepcopy(scenario)
    instances = out.setdefault("instances", {})
    for target, value in values.items():
        m = TARGET_RE.match(target)
        if not m:
            raise CampaignError("--vary", target, "expected INSTANCE.VARIABLE or INSTANCE.VARIABLE[i]")
        inst, var, idx = m.group(1), m.group(2), m.group(3)
        if inst not in instances:
            known = ", ".join(instances) or "none"
            raise CampaignError("--vary", target, f"unknown instance '{inst}' (instances: {known})")
        params = instances[inst].setdefault("parameters", {})
        # as `run --set` does: the latest setting wins (whole vector or element), and an input
        # the scenario drives with a signal gets the value as a constant signal instead
        override_start_value(params, out.setdefault("signals", {}), target, value)
    return out


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def scenario_yaml(scenario: dict, header: str = "") -> str:
    # libyaml's emitter when PyYAML has it (the same text, six times faster: a campaign of
    # 10,000 runs writes 10,000 of these before the first run starts)
    text = yaml.dump(scenario, Dumper=_DUMPER, sort_keys=False, width=120, allow_unicode=True, default_flow_style=None)
    return (header + text) if header else text


def inputs_hash(scenario_text: str, fmu_hashes: dict[str, str]) -> str:
    """What a run's result depends on: its resolved scenario text and the FMU files' contents."""
    blob = json.dumps({"format": CAMPAIGN_FORMAT, "scenario": scenario_text, "fmus": fmu_hashes}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class RunSpec:
    """One run: its position, folder name and values. Its resolved scenario, the scenario's
    text and the inputs hash are made when first asked for (a dry run of a new campaign of
    100,000 runs needs none of them)."""

    def __init__(self, index: int, run_id: str, values: dict[str, Any], base: dict, header: str,
                 fmu_hashes: dict[str, str], derived: dict[str, Any] | None = None):
        self.index = index  # position in the campaign (0-based)
        self.run_id = run_id  # folder name under runs/
        self.values = values  # varied variable -> value (seed included)
        self.derived = derived or {}  # set from the values: the other vehicles' seeds
        self._base, self._header, self._fmu_hashes = base, header, fmu_hashes
        self._scenario: dict | None = None
        self._body: str | None = None

    @property
    def scenario(self) -> dict:
        """The resolved scenario mapping."""
        if self._scenario is None:
            self._scenario = apply_overrides(self._base, {**self.values, **self.derived})
        return self._scenario

    @property
    def _text(self) -> str:
        if self._body is None:
            self._body = scenario_yaml(self.scenario)
        return self._body

    @property
    def scenario_text(self) -> str:
        """The scenario as written to the run folder."""
        return self._header.replace("{run_id}", self.run_id) + self._text

    @property
    def inputs_hash(self) -> str:
        # the hash covers the scenario itself, not the comment header (which names files as
        # seen from the client's folder)
        return inputs_hash(self._text, self._fmu_hashes)


def fmu_text_for(path: Path) -> str:
    """How a resolved scenario names an FMU: as the master finds it again on every machine that
    has the package installed (``fmu_reference``: a unit's FMU as ``fmus/<Name>.fmu``, a file
    of the clone relative to it, anything else absolute)."""
    return fmu_reference(path)


def derived_seeds(seed: int, others: tuple[str, ...] | list[str]) -> dict[str, int]:
    """The seeds of the other vehicles of a run whose first vehicle has ``seed``: the i-th other
    (from 1) gets ``seed + i * MAX_RUNS``. Every vehicle's noise is then its own, in every run
    (a campaign has at most MAX_RUNS seeds), and a run keeps its seeds when the campaign is
    extended with more."""
    return {target: seed + i * MAX_RUNS for i, target in enumerate(others, start=1)}


def plan_runs(base: dict, vary: dict[str, list[Any]], seeds: int | None, seed_variable: str,
              fmu_hashes: dict[str, str], header: str = "", seed_others: tuple[str, ...] = ()) -> list[RunSpec]:
    """Every run of the campaign: its values, folder, resolved scenario and inputs hash; with
    seeds, the other vehicles' seeds set in its scenario (`derived_seeds`)."""
    runs = expand(vary, seeds, seed_variable)
    ids = run_ids(runs)
    out = []
    for i, (values, rid) in enumerate(zip(runs, ids)):
        derived = derived_seeds(values[seed_variable], seed_others) if seeds and seed_others else {}
        out.append(RunSpec(i, rid, values, base, header, fmu_hashes, derived))
    return out
