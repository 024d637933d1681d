"""The row: one flat float64 vector holding, at a communication point, the time, every output
of every instance (and each local variable the scenario records), every signal value and the
unconnected inputs as constant columns. The loop, the recorder and every observer read the run
through it; ``layout_row`` says where each value lives."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .plan import Plan


@dataclass
class RowLayout:
    """Where each value lives in ``row``: the time (column 0), every output of every instance
    (and each local variable the scenario records) grouped by instance and type
    (``outputs[name][type] = (variables, first, end)``), the signal values (``signals`` slice),
    the unconnected inputs as constant columns. A connected input reads as its source's column."""

    columns: list[str]
    colmap: dict[str, int]
    outputs: dict[str, dict[str, tuple]]
    signals: slice
    row: np.ndarray


def layout_row(plan: Plan) -> RowLayout:
    columns = ["time"]
    colmap: dict[str, int] = {}
    out_slices = {}
    recorded = set(plan.record)
    for name, ip in plan.instances.items():
        groups = {}
        # read after every step: the outputs, and the local variables the scenario records
        read = ip.outputs + [v for v in ip.vars.values() if v.causality == "local" and f"{name}.{v.name}" in recorded]
        for typ in ("Real", "Integer", "Boolean"):
            vs = [v for v in read if (v.type == typ or (typ == "Integer" and v.type == "Enumeration"))]
            a = len(columns)
            for v in vs:
                colmap[f"{name}.{v.name}"] = len(columns)
                columns.append(f"{name}.{v.name}")
            groups[typ] = (vs, a, len(columns))
        out_slices[name] = groups
    sig_a = len(columns)
    for s in plan.signals:
        colmap[s.target] = len(columns)
        columns.append(s.target)
    sig_b = len(columns)
    # connected inputs read as their source; other inputs as constant columns (if ever recorded)
    for c in plan.connections:
        colmap[f"{c.dst}.{c.dst_var.name}"] = colmap[f"{c.src}.{c.src_var.name}"]
    const_cols = {}
    set_values = {(n, var.name): val for n, ip in plan.instances.items() for var, val in ip.params}
    for name, ip in plan.instances.items():
        for v in ip.inputs:
            key = f"{name}.{v.name}"
            if key not in colmap and v.type != "String":
                val = set_values.get((name, v.name), v.start)
                try:
                    val = float(val) if not isinstance(val, str) else (1.0 if val == "true" else 0.0 if val == "false" else float(val))
                except (TypeError, ValueError):
                    val = 0.0
                colmap[key] = len(columns)
                const_cols[len(columns)] = val
                columns.append(key)
    row = np.zeros(len(columns))
    for i, val in const_cols.items():
        row[i] = val
    # outputs start at their declared start values until the FMU has been initialised
    for name, ip in plan.instances.items():
        for v in ip.outputs:
            if v.start is not None and v.type != "String":
                try:
                    row[colmap[f"{name}.{v.name}"]] = float(v.start) if v.start not in ("true", "false") else float(v.start == "true")
                except ValueError:
                    pass
    return RowLayout(columns, colmap, out_slices, slice(sig_a, sig_b), row)
