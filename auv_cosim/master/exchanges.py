"""Row exchanges in the master: a vector output of one instance wired to a row of a matrix input
of another, element by element, as the FMUs declare it (docs/master.md, "Row exchanges"). The
wakes between vehicles are one: a vehicle's FMU declares that its output ``WakeSource[1..n]``
feeds a row ``WakeSources[k,1..n]`` of another's; the master knows no such name.

An FMU declares the exchanges it takes part in in its modelDescription.xml, as a vendor
annotation of the tool ``auv_cosim`` (written by tools/build_fmus.py from the slave,
auv_cosim.fmu.exchanges)::

    <Exchange name="wakes" output="WakeSource" input="WakeSources" enable="CastWake"
              ports="WakeSource WakeSources WakeVelocity" agree="Rho"/>

What the master does with it:

* a scenario's lines under the exchange's name (``wakes: [A -> B]``, ``A -> B[k]``) become the
  connections of A's output into the first free row (or row k) of B's input, element j into
  element j, and set A's ``enable`` parameter true unless the scenario sets it;
* a connection into an element of an exchange's input, however written, is an exchange
  connection: handed over at the communication point before any instance steps from it
  (``plan.Connection.early``), so it orders nothing and the results do not depend on the order
  of the instances;
* every exchange connection is checked element by element: element j of a row takes element j
  of one source's output, a row wired at all is wired whole, a row takes one source, a source
  goes into one row of an instance, and no instance takes its own; a wiring that breaks one is
  refused with the connections named;
* the ``ports`` stay quiet (not read, not recorded, not listed as unconnected) in a run that
  wires none of the exchange's ports;
* instances wired together with different values of an ``agree`` parameter, and a wired source
  whose ``enable`` the scenario set false, are warned of.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .scenario import display_path

#: the vendor annotation's tool name
TOOL = "auv_cosim"

_LINE_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?\s*$")
_ELEMENT_RE = re.compile(r"^(.+)\[(\d+)\]$")
_CELL_RE = re.compile(r"^(.+)\[(\d+),(\d+)\]$")


@dataclass(frozen=True)
class Exchange:
    """One exchange an FMU takes part in (its vendor annotation, see the module documentation)."""

    name: str
    output: str | None = None
    input: str | None = None
    enable: str | None = None
    ports: tuple[str, ...] = ()
    agree: tuple[str, ...] = ()


def read_exchanges(path: Path) -> dict[str, Exchange]:
    """The exchanges an FMU declares in its modelDescription.xml (none: an empty dict); raises
    ValueError naming what is wrong with the annotation."""
    with zipfile.ZipFile(path) as archive:
        root = ET.fromstring(archive.read("modelDescription.xml"))
    out: dict[str, Exchange] = {}
    for tool in root.findall("VendorAnnotations/Tool"):
        if tool.get("name") != TOOL:
            continue
        for element in tool.findall("Exchange"):
            name = element.get("name")
            if not name:
                raise ValueError("an <Exchange> of its vendor annotation has no name")
            if name in out:
                raise ValueError(f"it declares the exchange '{name}' twice")
            out[name] = Exchange(name, element.get("output") or None, element.get("input") or None,
                                 element.get("enable") or None, tuple((element.get("ports") or "").split()),
                                 tuple((element.get("agree") or "").split()))
    return out


def output_size(ip, exchange: Exchange) -> int:
    """How many elements the instance's output of the exchange has (0: it sends nothing)."""
    n = 0
    while exchange.output and f"{exchange.output}[{n + 1}]" in ip.vars:
        n += 1
    return n


def input_shape(ip, exchange: Exchange) -> tuple[int, int]:
    """The rows and columns of the instance's input of the exchange ((0, 0): it takes nothing)."""
    rows = cols = 0
    while exchange.input and f"{exchange.input}[{rows + 1},1]" in ip.vars:
        rows += 1
    while rows and f"{exchange.input}[1,{cols + 1}]" in ip.vars:
        cols += 1
    return rows, cols


def declaration_problems(name: str, ip) -> list[str]:
    """What the instance's FMU declares of its exchanges that its variables do not bear out."""
    out = []
    where = f"{name} ({display_path(ip.fmu_path)})"
    for ex in ip.exchanges.values():
        if ex.output and (output_size(ip, ex) == 0
                          or any(ip.vars[f"{ex.output}[{j}]"].causality != "output"
                                 for j in range(1, output_size(ip, ex) + 1))):
            out.append(f"{where} declares {ex.output} the output of the exchange '{ex.name}', but "
                       f"{ex.output}[1..] are not its outputs")
        rows, cols = input_shape(ip, ex)
        if ex.input and (rows == 0 or any(ip.vars.get(f"{ex.input}[{k},{j}]") is None
                                          or ip.vars[f"{ex.input}[{k},{j}]"].causality != "input"
                                          for k in range(1, rows + 1) for j in range(1, cols + 1))):
            out.append(f"{where} declares {ex.input} the input of the exchange '{ex.name}', but "
                       f"{ex.input}[k,j] are not a matrix of its inputs")
        if ex.output and ex.input and rows and output_size(ip, ex) != cols:
            out.append(f"{where}: the exchange '{ex.name}' has an output of {output_size(ip, ex)} elements "
                       f"and rows of {cols}")
        if ex.enable and (ex.enable not in ip.vars or ip.vars[ex.enable].causality != "parameter"):
            out.append(f"{where} declares {ex.enable} the switch of the exchange '{ex.name}', but it "
                       f"has no such parameter")
    return out


def exchange_into(ip, dst_var: str) -> tuple[Exchange, int, int] | None:
    """The exchange whose input `dst_var` (``WakeSources[2,7]``) is an element of, with its row
    and column; None when it is none."""
    m = _CELL_RE.match(dst_var)
    if not m:
        return None
    for ex in ip.exchanges.values():
        if ex.input == m.group(1):
            return ex, int(m.group(2)), int(m.group(3))
    return None


def _source_element(ip, ex: Exchange, src_var: str) -> int | None:
    """Which element of the instance's output of `ex` the variable is (None: not one of them)."""
    mine = ip.exchanges.get(ex.name)
    m = _ELEMENT_RE.match(src_var)
    if mine is None or not mine.output or not m or m.group(1) != mine.output:
        return None
    return int(m.group(2))


# ------------------------------------------------------------------------- the scenario's lines
def _read_line(text: str, file: str, fld: str, loaded, instances: dict, name: str, problems: list):
    """One line ``A -> B`` or ``A -> B[k]`` checked: (A, B, k or None, B's rows) or None."""
    from .plan import suggest

    m = _LINE_RE.match(text)
    if not m:
        problems.append((file, fld, f"cannot read '{text}'; expected 'SOURCE -> INSTANCE' or 'SOURCE -> INSTANCE[k]' "
                                    f"(SOURCE's output of the {name} into row k of INSTANCE's input of them)"))
        return None
    a, b, k = m.group(1), m.group(2), (int(m.group(3)) if m.group(3) else None)
    unknown = [i for i in (a, b) if i not in loaded.model.instances]
    for inst in unknown:
        problems.append((file, fld, f"'{text}': unknown instance '{inst}' (instances: "
                                    f"{', '.join(loaded.model.instances)})" + suggest(inst, loaded.model.instances)))
    if unknown or a not in instances or b not in instances:
        return None
    if a == b:
        problems.append((file, fld, f"'{text}': {a} is wired to its own source; an instance takes every source "
                                    f"of the {name} but its own"))
        return None
    ex_a, ex_b = instances[a].exchanges.get(name), instances[b].exchanges.get(name)
    if ex_a is None or not ex_a.output:
        problems.append((file, fld, f"'{text}': {a} ({display_path(instances[a].fmu_path)}) is no source of the "
                                    f"{name}: its FMU declares no output for them"))
        return None
    rows, cols = input_shape(instances[b], ex_b) if ex_b is not None else (0, 0)
    if rows == 0:
        problems.append((file, fld, f"'{text}': {b} ({display_path(instances[b].fmu_path)}) takes none of the "
                                    f"{name}: its FMU declares no input for them"))
        return None
    if output_size(instances[a], ex_a) != cols:
        problems.append((file, fld, f"'{text}': {a}.{ex_a.output} has {output_size(instances[a], ex_a)} elements "
                                    f"but a row of {b}.{ex_b.input} has {cols}"))
        return None
    if k is not None and not 1 <= k <= rows:
        problems.append((file, fld, f"'{text}': {b} takes {rows} sources ({ex_b.input}[1..{rows},..]); "
                                    f"there is no row {k}"))
        return None
    return a, b, k, rows


def scenario_connections(loaded, instances: dict, name: str = "wakes"):
    """The connections of the scenario's lines of the exchange `name` (``A -> B``: A's output
    into the first row of B's input no other line takes; ``A -> B[k]``: into row k), as
    (connection text, file, field), and the problems of the lines: an instance wired to its own
    source, two sources into one row, one source into two rows of one instance, a name that is
    no source or no receiver, no row left. A source wired by a line sends: its ``enable``
    parameter is set true unless the scenario sets it."""
    problems, parsed = [], []
    for i, text in enumerate(getattr(loaded.model, name)):
        file, fld = loaded.where(name, i)
        read = _read_line(text, file, fld, loaded, instances, name, problems)
        if read is not None:
            parsed.append((text, file, fld, *read))
    # rows: those given first, then each other line the lowest free one
    taken: dict[tuple[str, int], tuple[str, str]] = {}
    into: dict[tuple[str, str], tuple[int, str]] = {}
    lines = []
    for explicit in (True, False):
        for text, file, fld, a, b, k, rows in parsed:
            if (k is not None) != explicit:
                continue
            out, inp = instances[a].exchanges[name].output, instances[b].exchanges[name].input
            if (a, b) in into:
                row, other = into[(a, b)]
                problems.append((file, fld, f"'{text}': {a}'s {out} already goes into row {row} of {b}'s "
                                            f"{inp} ({other}); one source into two rows would count it twice"))
                continue
            if k is None:
                k = next((r for r in range(1, rows + 1) if (b, r) not in taken), None)
                if k is None:
                    problems.append((file, fld, f"'{text}': {b} takes {rows} sources and every row is wired"))
                    continue
            elif (b, k) in taken:
                src, other = taken[(b, k)]
                problems.append((file, fld, f"'{text}': row {k} of {b}'s {inp} already takes {src}'s {out} "
                                            f"({other}); two sources cannot share a row"))
                continue
            taken[(b, k)] = (a, f"{file}, {fld}")
            into[(a, b)] = (k, f"{file}, {fld}")
            size = output_size(instances[a], instances[a].exchanges[name])
            lines += [(f"{a}.{out}[{j}] -> {b}.{inp}[{k},{j}]", file, fld) for j in range(1, size + 1)]
    for a in dict.fromkeys(a for _t, _f, _l, a, *_ in parsed):
        _switch_on(instances[a], instances[a].exchanges[name])
    return lines, problems


def _switch_on(ip, ex: Exchange) -> None:
    """A source wired by a line sends, unless the scenario set its switch itself."""
    var = ip.vars.get(ex.enable) if ex.enable else None
    if var is not None and var.causality == "parameter" and not any(v.name == ex.enable for v, _ in ip.params):
        ip.params.append((var, True))
        ip.start_values[ex.enable] = True


# ------------------------------------------------------------------------- every wiring, checked
def wiring_problems(connections: list, instances: dict) -> list[tuple[str, str, str]]:
    """The exchange connections however they were written (a scenario's lines or connections
    element by element), checked: element j of a row takes element j of its source's output,
    no instance takes its own source, a row takes one source and is wired whole, a source goes
    into one row of an instance (it would be counted twice)."""
    problems = []
    by_row: dict[tuple[str, str, int], dict[str, list]] = {}
    for c in connections:
        if c.exchange is None:
            continue
        ex, row, col = exchange_into(instances[c.dst], c.dst_var.name)
        if c.src == c.dst:
            problems.append((c.file, c.field, f"'{c.text}': {c.src} is wired to its own source; an instance takes "
                                              f"every source of the {ex.name} but its own"))
            continue
        j = _source_element(instances[c.src], ex, c.src_var.name)
        if j != col:
            out = (instances[c.src].exchanges.get(ex.name) or ex).output or ex.output
            problems.append((c.file, c.field, f"'{c.text}': element {col} of a row of {c.dst}'s {ex.input} takes "
                                              f"element {col} of a source's {out} ({c.src}.{out}[{col}]); "
                                              f"the {ex.name} are wired element by element"))
            continue
        by_row.setdefault((c.dst, ex.name, row), {}).setdefault(c.src, []).append(c)
    by_source: dict[tuple[str, str], dict[int, object]] = {}
    for (dst, name, row), sources in by_row.items():
        ex = instances[dst].exchanges[name]
        if len(sources) > 1:
            c = list(sources.values())[1][0]
            problems.append((c.file, c.field, f"row {row} of {dst}'s {ex.input} takes two sources "
                                              f"({' and '.join(sources)}); one row holds one source"))
            continue
        (src, wired), = sources.items()
        by_source.setdefault((src, dst), {}).setdefault(row, wired[0])
        cols = input_shape(instances[dst], ex)[1]
        missing = sorted(set(range(1, cols + 1)) - {exchange_into(instances[dst], c.dst_var.name)[2] for c in wired})
        if missing:
            c = wired[0]
            shown = ", ".join(f"'{w.text}'" for w in wired[:3]) + (f" and {len(wired) - 3} more" if len(wired) > 3 else "")
            problems.append((c.file, c.field, f"row {row} of {dst}'s {ex.input} is wired in part ({shown}): "
                                              f"element{'s' if len(missing) > 1 else ''} "
                                              f"{', '.join(map(str, missing))} of {src}'s "
                                              f"{instances[src].exchanges[name].output} go nowhere, and a row "
                                              f"is one source whole: wire all {cols} elements or none"))
    for (src, dst), rows in by_source.items():
        if len(rows) > 1:
            c = list(rows.values())[1]
            ex = exchange_into(instances[dst], c.dst_var.name)[0]
            problems.append((c.file, c.field, f"{src}'s {instances[src].exchanges[ex.name].output} goes into rows "
                                              f"{' and '.join(map(str, sorted(rows)))} of {dst}'s {ex.input}; "
                                              f"it would be counted twice"))
    return list(dict.fromkeys(problems))


# ------------------------------------------------------------------------- quiet ports
def _base(name: str) -> str:
    return name.split("[", 1)[0]


def ports_of(ip) -> dict[str, str]:
    """The instance's exchange ports, by base name -> the exchange's name."""
    return {p: ex.name for ex in ip.exchanges.values() for p in ex.ports}


def wired_exchanges(instances: dict, connections, signals) -> set:
    """The exchanges a scenario wires: a connection or a signal to or from one of their ports."""
    out = set()
    for c in connections:
        for inst, var in ((c.src, c.src_var.name), (c.dst, c.dst_var.name)):
            name = ports_of(instances[inst]).get(_base(var))
            if name:
                out.add(name)
    for s in signals:
        name = ports_of(instances[s.inst]).get(_base(s.var.name))
        if name:
            out.add(name)
    return out


def quiet_ports(instances: dict, connections, signals, record) -> None:
    """Each instance's ports of the exchanges the scenario does not wire stay quiet (not read,
    not recorded, not listed as unconnected) unless a `record` entry names them (a pattern
    over ``instance.variable``, or a vector's base name)."""
    wired = wired_exchanges(instances, connections, signals)
    patterns = [] if record == "all" else [p for p in record if p != "all"]
    regexes = [re.compile("^" + re.escape(p).replace(r"\*", ".*") + "$") for p in patterns]
    for name, ip in instances.items():
        ports = ports_of(ip)
        quiet = []
        for v in ip.vars:
            exchange = ports.get(_base(v))
            if exchange is None or exchange in wired:
                continue
            full = f"{name}.{v}"
            if not any(rx.match(full) or full.startswith(p + "[") for rx, p in zip(regexes, patterns)):
                quiet.append(v)
        ip.quiet = frozenset(quiet)


# ------------------------------------------------------------------------- warnings
def _value(ip, name: str):
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


def warnings(instances: dict, connections: list) -> list[str]:
    """What a run with exchanges goes on with but should say: instances wired together that
    differ in a parameter the exchange expects them to share (``agree``: one sea has one
    density), a wired source whose switch (``enable``) the scenario set false."""
    out = []
    pairs = list(dict.fromkeys((c.src, c.dst, c.exchange) for c in connections if c.exchange))
    for a, b, name in pairs:
        ea, eb = instances[a].exchanges.get(name), instances[b].exchanges[name]
        for param in (p for p in (ea.agree if ea else ()) if p in eb.agree):
            va, vb = _value(instances[a], param), _value(instances[b], param)
            if isinstance(va, float) and isinstance(vb, float) and va != vb:
                unit = f" {instances[a].vars[param].unit}" if instances[a].vars[param].unit else ""
                out.append(f"{name}: {a} ({param} {va:g}{unit}) and {b} ({param} {vb:g}{unit}), wired by their "
                           f"{name}, differ in {param}, which both are expected to share")
    for a, name in dict.fromkeys((a, name) for a, _, name in pairs):
        ex = instances[a].exchanges.get(name)
        if ex and ex.enable and _value(instances[a], ex.enable) in (False, "false"):
            out.append(f"{name}: {a} sends nothing ({ex.enable} = false): what it is wired to receives nothing from it")
    return out
