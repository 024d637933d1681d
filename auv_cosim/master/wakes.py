"""Wakes between vehicles in the master (SPEC 9.4): the scenario's ``wakes`` lines made into
connections (``A -> B``: A's ``WakeSource[1..15]`` into a row of B's ``WakeSources``), the
refusals of a wiring that would count a wake wrongly, and the warnings of one that runs but
should be heard. The connections of a wake are *early* (``plan.Connection.early``): every
vehicle's WakeSource at a communication point is handed to the others before any instance steps
from it (``stepper.Stepper.early``), whatever the order of the vehicles."""

from __future__ import annotations

import re

from .scenario import display_path


#: the variables of the wakes (SPEC 9.1, 9.3): a casting vehicle's output row, the rows it
#: takes from the others (WakeSources[k, i]: source k, element i), the wake velocity it meets
WAKE_SOURCE, WAKE_SOURCES, WAKE_VELOCITY, WAKE_ROW = "WakeSource", "WakeSources", "WakeVelocity", 15

_WAKE_LINE_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?\s*$")
_WAKE_INPUT_RE = re.compile(r"^WakeSources\[(\d+),(\d+)\]$")


def is_wake_connection(src_var: str, dst_var: str) -> bool:
    """A casting vehicle's ``WakeSource[i]`` into an element of another's ``WakeSources``."""
    return src_var.startswith(WAKE_SOURCE + "[") and _WAKE_INPUT_RE.match(dst_var) is not None


def wake_rows(ip) -> int:
    """How many sources an instance takes (the rows of its ``WakeSources``; 0: none)."""
    k = 0
    while f"{WAKE_SOURCES}[{k + 1},1]" in ip.vars:
        k += 1
    return k


def wake_connections(loaded, instances: dict):
    """The connections of the scenario's ``wakes`` lines (``A -> B``: A's WakeSource into the
    first row of B's WakeSources no other line takes; ``A -> B[k]``: into row k), as
    (connection text, file, field), and the problems of the lines: a vehicle wired to its own
    source, two sources into one row, one source into two rows of one vehicle, a name that is
    no casting vehicle or no receiving one, no row left. A source wired by a line casts its
    wake: its ``CastWake`` is set true unless the scenario sets it."""
    from .plan import suggest

    problems, parsed = [], []
    for i, text in enumerate(loaded.model.wakes):
        file, fld = loaded.where("wakes", i)
        m = _WAKE_LINE_RE.match(text)
        if not m:
            problems.append((file, fld, f"cannot read '{text}'; expected 'SOURCE -> VEHICLE' or 'SOURCE -> VEHICLE[k]' "
                                        f"(SOURCE's WakeSource into row k of VEHICLE's WakeSources)"))
            continue
        a, b, k = m.group(1), m.group(2), (int(m.group(3)) if m.group(3) else None)
        bad = False
        for inst in (a, b):
            if inst not in loaded.model.instances:
                problems.append((file, fld, f"'{text}': unknown instance '{inst}' (instances: "
                                            f"{', '.join(loaded.model.instances)})" + suggest(inst, loaded.model.instances)))
                bad = True
        if bad or a not in instances or b not in instances:
            continue
        if a == b:
            problems.append((file, fld, f"'{text}': {a} is wired to its own source; a vehicle meets every wake but its own"))
            continue
        if f"{WAKE_SOURCE}[1]" not in instances[a].vars or instances[a].vars[f"{WAKE_SOURCE}[1]"].causality != "output":
            problems.append((file, fld, f"'{text}': {a} ({display_path(instances[a].fmu_path)}) casts no wake: "
                                        f"it has no {WAKE_SOURCE} output"))
            continue
        rows = wake_rows(instances[b])
        if rows == 0:
            problems.append((file, fld, f"'{text}': {b} ({display_path(instances[b].fmu_path)}) meets no wake: "
                                        f"it has no {WAKE_SOURCES} inputs"))
            continue
        if k is not None and not 1 <= k <= rows:
            problems.append((file, fld, f"'{text}': {b} takes {rows} sources ({WAKE_SOURCES}[1..{rows},..]); "
                                        f"there is no row {k}"))
            continue
        parsed.append((text, file, fld, a, b, k, rows))
    # rows: those given first, then each other line the lowest free one
    taken: dict[tuple[str, int], tuple[str, str]] = {}
    into: dict[tuple[str, str], tuple[int, str]] = {}
    lines = []
    for explicit in (True, False):
        for text, file, fld, a, b, k, rows in parsed:
            if (k is not None) != explicit:
                continue
            if (a, b) in into:
                row, other = into[(a, b)]
                problems.append((file, fld, f"'{text}': {a}'s wake already goes into row {row} of {b}'s "
                                            f"{WAKE_SOURCES} ({other}); one source into two rows would count it twice"))
                continue
            if k is None:
                k = next((r for r in range(1, rows + 1) if (b, r) not in taken), None)
                if k is None:
                    problems.append((file, fld, f"'{text}': {b} takes {rows} sources and every row is wired"))
                    continue
            elif (b, k) in taken:
                src, other = taken[(b, k)]
                problems.append((file, fld, f"'{text}': row {k} of {b}'s {WAKE_SOURCES} already takes {src}'s wake "
                                            f"({other}); two sources cannot share a row"))
                continue
            taken[(b, k)] = (a, f"{file}, {fld}")
            into[(a, b)] = (k, f"{file}, {fld}")
            lines += [(f"{a}.{WAKE_SOURCE}[{i}] -> {b}.{WAKE_SOURCES}[{k},{i}]", file, fld) for i in range(1, WAKE_ROW + 1)]
    # a wired source casts its wake unless the scenario says otherwise
    for a in dict.fromkeys(a for _t, _f, _l, a, *_ in parsed):
        ip = instances[a]
        cast = ip.vars.get("CastWake")
        if cast is not None and cast.causality == "parameter" and not any(v.name == "CastWake" for v, _ in ip.params):
            ip.params.append((cast, True))
            ip.start_values["CastWake"] = True
    return lines, problems


def wake_wiring_problems(connections: list) -> list[tuple[str, str, str]]:
    """The wakes however they were wired (the ``wakes`` lines or connections written element by
    element): no vehicle takes its own source, no row takes two sources, no source goes into two
    rows of one vehicle (it would be counted twice)."""
    problems = []
    by_row: dict[tuple[str, int], dict[str, Connection]] = {}
    by_source: dict[tuple[str, str], dict[int, Connection]] = {}
    for c in connections:
        if not c.early:
            continue
        row = int(_WAKE_INPUT_RE.match(c.dst_var.name).group(1))
        if c.src == c.dst:
            problems.append((c.file, c.field, f"'{c.text}': {c.src} is wired to its own source; a vehicle meets "
                                              f"every wake but its own"))
            continue
        by_row.setdefault((c.dst, row), {}).setdefault(c.src, c)
        by_source.setdefault((c.src, c.dst), {}).setdefault(row, c)
    for (dst, row), sources in by_row.items():
        if len(sources) > 1:
            c = list(sources.values())[1]
            problems.append((c.file, c.field, f"row {row} of {dst}'s {WAKE_SOURCES} takes two sources "
                                              f"({' and '.join(sources)}); one row holds one source"))
    for (src, dst), rows in by_source.items():
        if len(rows) > 1:
            c = list(rows.values())[1]
            problems.append((c.file, c.field, f"{src}'s {WAKE_SOURCE} goes into rows {' and '.join(map(str, sorted(rows)))} "
                                              f"of {dst}'s {WAKE_SOURCES}; it would be counted twice"))
    return list(dict.fromkeys(problems))


def wake_warnings(loaded, instances: dict, connections: list) -> list[str]:
    """What a run with wakes goes on with but should say: wired vehicles of different water
    density (each source carries its own Rho, SPEC 9.1, but one sea has one density), a wired
    source that casts nothing (CastWake false)."""
    out = []
    pairs = list(dict.fromkeys((c.src, c.dst) for c in connections if c.early))

    def value(inst, name):
        ip = instances[inst]
        for var, val in ip.params:
            if var.name == name:
                return val
        v = ip.vars.get(name)
        if v is None or v.start is None:
            return None
        try:
            return float(v.start) if v.type == "Real" else v.start
        except ValueError:
            return v.start

    for a, b in pairs:
        ra, rb = value(a, "Rho"), value(b, "Rho")
        if ra is not None and rb is not None and ra != rb:
            out.append(f"wakes: {a} (Rho {ra:g} kg/m3) and {b} (Rho {rb:g} kg/m3), wired by their wakes, are in "
                       f"water of different density")
    for a in dict.fromkeys(a for a, _ in pairs):
        cast = value(a, "CastWake")
        if cast in (False, "false"):
            out.append(f"wakes: {a} casts no wake (CastWake = false): what it is wired to receives nothing from it")
    return out
