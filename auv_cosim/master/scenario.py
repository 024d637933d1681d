"""Scenario files: YAML loading, includes, merging and schema validation (pydantic v2).

A scenario file is a YAML mapping validated by :class:`ScenarioModel` (its schema:
auv_cosim/master/scenario_schema.py; ``extra='forbid'`` everywhere, so a misspelt field is an
error, not a silent default); the stacks of its vehicles are renamed for them by
auv_cosim/master/scenario_vehicles.py before they are merged. ``include:`` pulls in other
files (a shared wiring such as ``stacks/survey.yaml``) that are merged *before* the including
file, so the including file overrides them; a relative include is the file beside the including
one, else the same name in a registered unit's scenario folder (``_included``). The merge rules
are deliberately simple:

- scalar fields (``name``, ``stop_time``, ``step``, ``order``, ``stop_when``, ``record`` ...):
  the later file wins;
- ``instances``: merged per instance; ``fmu`` is replaced, ``parameters`` are merged per name;
  ``instance: null`` removes the instance *and every connection that touches it*;
- ``connections``: concatenated, included files first;
- ``disconnect``: concatenated; applied after the merge, removes the connections into the
  listed inputs (so a signal can drive them instead);
- ``signals``: merged per target variable;
- ``analysis``: merged per analysis name;
- a String parameter named ``...File`` given as a relative path is the file beside the file
  that sets it, when there is one (``files.file_parameter``): a unit's scenario carries its data;
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
from typing import Any

import yaml
from pydantic import ValidationError

from auv_cosim.compiled.numbers import number_loader

from auv_cosim import units
from . import registry
from .files import file_parameter
from .scenario_schema import ScenarioModel
from .scenario_lookup import _included, find_scenario, fmu_reference, resolve_fmu_path, scenario_folders  # noqa: F401 (public here too)
from .scenario_vehicles import NOT_IN_A_VEHICLE, combine_vehicles, renamed_for


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
        self.removed: dict[str, str] = {}  # instance taken out -> where ("file: vehicles.NAME")
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
        target, looked = _included(rel, path.parent)
        if not target.is_file():
            raise ScenarioError(shown, f"include[{i}]", f"included file not found: {rel} (looked for {display_path(looked)})")
        files += _load_tree(target, stack + (path,), shown, seen)
    for name, spec in (raw.get("vehicles") or {}).items():
        if spec is not None:   # null removes an included vehicle (_Merge.remove_vehicle)
            files += _vehicle_files(path, shown, name, spec, stack + (path,))
    seen.add(path)
    files.append((path, raw, shown, None))
    return files


# --------------------------------------------------------------------------------------------
# several vehicles: each one's stack, its instances named after it (scenario_vehicles.py)
# --------------------------------------------------------------------------------------------


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
        target, looked = _included(rel, path.parent)
        if not target.is_file():
            raise ScenarioError(shown, f"vehicles.{vehicle}.include[{i}]",
                                f"included file not found: {rel} (looked for {display_path(looked)})")
        for p, raw, label, _ in _load_tree(target, stack, shown, seen):
            where = f"{label} (vehicle {vehicle})"
            out.append((p, _renamed_for(raw, vehicle, where), where, vehicle))
    own = {k: v for k, v in spec.items() if k != "include"}
    where = f"{shown} (vehicles.{vehicle})"
    out.append((path, _renamed_for(own, vehicle, where), where, vehicle))
    return out


def _renamed_for(raw: dict, vehicle: str, where: str) -> dict:
    """One file of a vehicle's stack renamed for it (scenario_vehicles.renamed_for), refused when
    it holds what only the scenario may (`NOT_IN_A_VEHICLE`)."""
    for key, why in NOT_IN_A_VEHICLE.items():
        if raw.get(key):
            raise ScenarioError(where, key, f"not in a vehicle's files: {why}")
    return renamed_for(raw, vehicle)


def _wake_ends(text: str) -> tuple | None:
    """A wakes line ``A -> B`` or ``A -> B[k]`` as (A, B, k or None); None for anything else."""
    m = re.match(r"^\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?\s*$", text)
    return (m.group(1), m.group(2), int(m.group(3)) if m.group(3) else None) if m else None


def _same_wake(line: tuple | None, entry: tuple) -> bool:
    """Whether a disconnect entry (A, B, k or None: any row) names the wakes line."""
    return line is not None and line[:2] == entry[:2] and (entry[2] is None or line[2] == entry[2])


def _suggest(name: str, candidates) -> str:
    from .variables import suggest

    return suggest(name, candidates)


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


def _scenario_files(source: str | os.PathLike | dict) -> tuple[Path, list[tuple]]:
    """The scenario's file (for an in-memory scenario, a name in the cwd) and every file it
    reads, in merge order (`_load_tree`): (path, mapping, name in messages, vehicle or None).
    An in-memory scenario's includes resolve against the cwd, then the units' scenario folders."""
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
            target, _ = _included(rel, Path.cwd())
            if not target.is_file():
                raise ScenarioError(shown, f"include[{i}]", f"included file not found: {rel}")
            files += _load_tree(target, (), shown, seen)
        for name, spec in (raw.get("vehicles") or {}).items():
            if spec is not None:
                files += _vehicle_files(file, shown, name, spec, ())
        files.append((file, raw, shown, None))
    else:
        file = Path(source).resolve()
        files = _load_tree(file, (), None)
    return file, files


class _Merge:
    """The scenario as merged so far, one file after another in merge order (the rules: this
    module's docstring), with where each value came from (``origin``, as LoadedScenario's).
    What a vehicle's files set of the scenario-wide fields waits in ``per_vehicle`` until every
    file is in (`finish`): the vehicles' values are combined, not the last one kept."""

    def __init__(self):
        self.merged: dict[str, Any] = {}
        self.origin: dict[tuple, tuple[str, str]] = {}
        self.instances: dict[str, dict] = {}
        self.connections: list[tuple[str, str, str]] = []
        self.disconnects: list[tuple[str, str, str]] = []
        self.used: list[bool] = []  # per entry of `disconnects`: whether it removed a connection
        self.signals: dict[str, Any] = {}
        self.analysis: dict[str, Any] = {}
        self.fmu_dirs: dict[str, Path] = {}
        self.wakes: list[tuple[str, str, str]] = []
        self.per_vehicle: dict[str, dict] = {}  # vehicle -> scenario-wide field -> (value, file), its files'
        self.owners: dict[str, str] = {}        # instance -> the vehicle whose files made it

    def add_file(self, path: Path, raw: dict, shown: str, vehicle: str | None) -> None:
        """One file merged over those before it, field by field."""
        own_connections: list[tuple[str, str, str]] = []
        own_disconnects: list[int] = []
        wakes_before = len(self.wakes)   # a file's `disconnect` removes only the wakes of the files it includes
        for key, value in raw.items():
            if key == "vehicles":
                for name, spec in (value or {}).items():
                    if spec is None:
                        self.remove_vehicle(name, shown)
                continue
            if key == "include":
                continue
            if key == "wakes":
                for i, w in enumerate(value or []):
                    self.wakes.append((w, shown, f"wakes[{i}]"))
                continue
            if vehicle is not None and key not in ("instances", "connections", "disconnect", "signals", "description"):
                self.per_vehicle.setdefault(vehicle, {})[key] = (value, shown)
                continue
            if key == "instances":
                self._add_instances(path, shown, vehicle, value)
            elif key == "connections":
                for i, c in enumerate(value or []):
                    own_connections.append((c, shown, f"connections[{i}]"))
            elif key == "disconnect":
                for i, c in enumerate(value or []):
                    self.disconnects.append((c, shown, f"disconnect[{i}]"))
                    own_disconnects.append(len(self.disconnects) - 1)
            elif key == "signals":
                for target, spec in (value or {}).items():
                    self.signals[target] = spec
                    self.origin[("signals", target)] = (shown, format_loc(("signals", target)))
            elif key == "analysis":
                # normalise through the validator, then merge per analysis
                norm = ScenarioModel._analysis_forms(value)
                for k, v in norm.items():
                    if v is False:   # `analysis: {NAME: false}` removes an included analysis
                        self.analysis.pop(k, None)
                        self.origin.pop(("analysis", k), None)
                        continue
                    self.analysis[k] = v
                    self.origin[("analysis", k)] = (shown, f"analysis.{k}")
            else:
                self.merged[key] = value
                self.origin[(key,)] = (shown, key)
        self._disconnect(own_disconnects, wakes_before)
        self.connections += own_connections

    def remove_vehicle(self, name: str, shown: str) -> None:
        """``vehicles: {NAME: null}``: the included vehicle NAME goes, every instance its files
        made (and so every connection touching them), the wakes lines naming it, and what its
        files set of the scenario-wide fields."""
        owned = [inst for inst, owner in self.owners.items() if owner == name]
        if not owned:
            known = sorted(set(self.owners.values()))
            raise ScenarioError(shown, f"vehicles.{name}", f"null removes a vehicle of the files this one includes; "
                                f"they have no vehicle '{name}' (vehicles: {', '.join(known) or 'none'})"
                                + _suggest(name, known))
        for inst in owned:
            self.instances[inst] = None   # tombstone: its connections go too
            self.origin[("instances", inst)] = (shown, f"vehicles.{name}")
            del self.owners[inst]
        self.per_vehicle.pop(name, None)
        self.wakes = [(w, f, fld) for w, f, fld in self.wakes if name not in (_wake_ends(w) or ())[:2]]

    def _add_instances(self, path: Path, shown: str, vehicle: str | None, value) -> None:
        """A file's ``instances``: each merged into the instance of its name (``fmu`` replaced,
        the parameters set one by one, `set_start_value`), or, given as null, removed: a
        tombstone stays, so that its connections go too. An instance two vehicles' files make
        is refused: their names would collide."""
        instances, origin = self.instances, self.origin
        for inst, spec in (value or {}).items():
            if vehicle is not None and self.owners.setdefault(inst, vehicle) != vehicle:
                raise ScenarioError(shown, f"instances.{inst}", f"the instance '{inst}' is vehicle "
                                    f"{self.owners[inst]}'s and vehicle {vehicle}'s: rename one of the vehicles")
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
                        key = set_start_value(cur["parameters"], pname, file_parameter(pname, pval, path.parent))
                        origin[("instances", inst, "parameters") + key] = (
                            shown, format_loc(("instances", inst, "parameters", pname)))
                else:
                    cur[k] = v
                    origin[("instances", inst, k)] = (shown, f"instances.{inst}.{k}")
                    if k == "fmu":
                        self.fmu_dirs[inst] = path.parent
            instances[inst] = cur
            origin.setdefault(("instances", inst), (shown, f"instances.{inst}"))

    def _disconnect(self, own_disconnects: list[int], wakes_before: int) -> None:
        """A file's `disconnect` (its entries, as indices into ``disconnects``) removes the
        connections merged before it (those of the files it includes), never its own new ones;
        an entry ``A -> B`` (a wakes line) removes that line of the files it includes. An entry
        that removes something is marked used."""
        self.used += [False] * len(own_disconnects)
        for j in own_disconnects:
            ends = _wake_ends(self.disconnects[j][0])
            if ends:
                kept = [w for w in self.wakes[:wakes_before] if not _same_wake(_wake_ends(w[0]), ends)]
                self.used[j] = len(kept) < wakes_before
                self.wakes = kept + self.wakes[wakes_before:]
                wakes_before = len(kept)
        if own_disconnects:
            kept = []
            for c, f, fld in self.connections:
                parsed = parse_connection(c)
                drop = False
                if parsed:
                    dst = f"{parsed[2]}.{parsed[3]}"
                    for j in own_disconnects:
                        pat = self.disconnects[j][0].strip()
                        if _match_disconnect(dst, pat) or _match_disconnect(pat, dst):
                            drop = self.used[j] = True
                if not drop:
                    kept.append((c, f, fld))
            self.connections = kept

    def finish(self, top: str) -> None:
        """Once every file is in: the scenario-wide fields the vehicles' files set, combined
        (scenario_vehicles.combine_vehicles: refused when they disagree), and the wakes' origins."""
        if self.per_vehicle:
            problems = combine_vehicles(self.per_vehicle, self.merged, self.origin, top)
            if problems:
                raise ScenarioError(problems)
        for k, (w, f, fld) in enumerate(self.wakes):
            self.origin[("wakes", k)] = (f, fld)


def _apply_overrides(instances: dict, signals: dict, origin: dict, overrides: dict[str, Any] | None,
                     override_origins: dict[str, tuple[str, str]] | None) -> set[tuple]:
    """The overrides (--set INSTANCE.VARIABLE=VALUE, a campaign's values), applied after every
    file, so that they win over the files, whole vector or element alike. Returns the keys of
    the start values given as text (LoadedScenario.text_values)."""
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
    return text_values


def _kept_connections(merge: _Merge, removed: set[str]) -> list[tuple[str, str, str]]:
    """The merged connections but those touching a removed instance; a `disconnect` entry that
    removed nothing is refused (a misspelt input would otherwise stay connected unnoticed)."""
    final = []
    for c, f, fld in merge.connections:
        parsed = parse_connection(c)
        if parsed and (parsed[0] in removed or parsed[2] in removed):
            continue
        final.append((c, f, fld))
    problems = [(f, fld, f"'{pat}' matches no connection (nothing is connected to it)")
                for (pat, f, fld), u in zip(merge.disconnects, merge.used) if not u]
    if problems:
        raise ScenarioError(problems)
    return final


def _validated(merge: _Merge, instances: dict, removed: set[str], final: list, top: str) -> ScenarioModel:
    """The merged scenario as one mapping, validated by the schema as a whole: the removed
    instances out of its order, and its noise seed gone with its instance."""
    merged = merge.merged
    if removed and isinstance(merged.get("order"), list):
        merged["order"] = [n for n in merged["order"] if n not in removed]
    seeds = merged.get("noise_seed")
    if removed and isinstance(seeds, (str, list)):
        # the noise of a removed instance: its stack has no seed left
        kept = [s for s in ([seeds] if isinstance(seeds, str) else seeds)
                if not (isinstance(s, str) and s.split(".")[0] in removed)]
        if not kept:
            del merged["noise_seed"]
        elif isinstance(seeds, list):
            merged["noise_seed"] = kept
    merged["instances"] = instances
    merged["connections"] = [c for c, _, _ in final]
    merged["disconnect"] = [d for d, _, _ in merge.disconnects]
    merged["signals"] = merge.signals
    merged["analysis"] = merge.analysis
    merged["wakes"] = [w for w, _, _ in merge.wakes]
    try:
        return ScenarioModel.model_validate(merged)
    except ValidationError as e:
        raise ScenarioError(pydantic_problems(e, top, hints=_UNION_HINTS, union_tags=_SCENARIO_MODELS)) from None


def _whole_scenario_problems(model: ScenarioModel, origin: dict, top: str) -> list[tuple[str, str, str]]:
    """What only the merged scenario can lack, which no file alone must have: a stop time after
    the start, an instance, each instance's FMU; and the analyses' options (`_check_analyses`)."""
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
    return problems


def load_scenario(source: str | os.PathLike | dict, overrides: dict[str, Any] | None = None,
                  override_origins: dict[str, tuple[str, str]] | None = None) -> LoadedScenario:
    """Load, merge and schema-check a scenario (file path or an already loaded mapping).

    ``overrides`` (``instance.Var`` or ``instance.Var[i]`` -> value) are applied after every
    file; a text value is read later as the variable's declared type (a command-line value).
    ``override_origins`` names where each came from in error messages (default ``--set``).

    In phases, each a function above: the files read (`_scenario_files`), merged one after
    another (`_Merge`), the overrides applied (`_apply_overrides`), the connections of removed
    instances dropped (`_kept_connections`), the whole validated (`_validated`,
    `_whole_scenario_problems`); the first phase that finds a problem raises it."""
    file, files = _scenario_files(source)
    merge = _Merge()
    for path, raw, shown, vehicle in files:
        merge.add_file(path, raw, shown, vehicle)
    top = "<scenario>" if isinstance(source, dict) else display_path(file)
    merge.finish(top)

    removed = {k for k, v in merge.instances.items() if v is None}
    instances = {k: v for k, v in merge.instances.items() if v is not None}
    text_values = _apply_overrides(instances, merge.signals, merge.origin, overrides, override_origins)
    final = _kept_connections(merge, removed)
    model = _validated(merge, instances, removed, final, top)
    problems = _whole_scenario_problems(model, merge.origin, top)
    if problems:
        raise ScenarioError(problems)
    loaded = LoadedScenario(model, file, merge.origin, final, merge.fmu_dirs)
    loaded.text_values = text_values
    # where each instance was taken out ("alone.yaml: vehicles.follower"), for the plan's messages
    loaded.removed = {name: ": ".join(merge.origin.get(("instances", name), ("the scenario", "")))
                      for name in sorted(removed)}
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


def scenario_fmus(directory: Path | None = None) -> list[Path]:
    """The FMU files the scenarios under ``directory`` (default: every registered unit's scenario
    folder, with its ``stacks/``) name as ``instances.NAME.fmu``, found as a run finds them, sorted
    and once each: what ``auv-cosim validate`` checks by default. The master knows no
    vehicle, so which FMUs make the project is the scenarios' word. An FMU not found is listed
    where it would be (a unit's FMU: where the units' FMUs are built), so that it can be
    reported missing;
    a scenario file that cannot be read names none (``list`` and ``run`` report it)."""
    found: dict[Path, None] = {}
    files = [p for folder in ([directory] if directory else scenario_folders())
             for p in sorted(folder.glob("*.y*ml")) + sorted(folder.glob("*/*.y*ml"))]
    for path in files:
        try:
            raw = _read_yaml(path, None)
        except ScenarioError:
            continue
        instances = raw.get("instances") if isinstance(raw, dict) else None
        for spec in (instances or {}).values() if isinstance(instances, dict) else ():
            text = spec.get("fmu") if isinstance(spec, dict) else None
            if isinstance(text, str) and text.strip():
                where, _ = resolve_fmu_path(text, path.parent)
                if where is None:   # missing: where it would be built, or beside the scenario
                    where = (units.fmu_folder() / Path(text).name if Path(text).stem in units.fmu_names()
                             else (path.parent / text).resolve())
                found[where] = None
    return sorted(found)


def list_scenarios(directory: Path | None = None) -> list[tuple[str, str, Path]]:
    """(name, description, path) of every scenario file directly under ``directory`` (default:
    every registered unit's scenario folder, one after another)."""
    out = []
    files = [p for folder in ([directory] if directory else scenario_folders())
             for p in sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))]
    for path in files:
        try:
            raw = _read_yaml(path, None)
            name = raw.get("name") or path.stem
            desc = raw.get("description") or ""
        except ScenarioError as e:
            name, desc = path.stem, f"(unreadable: {e})"
        out.append((str(name), " ".join(str(desc).split()), path))
    return out

