"""Declarative variable tables for the two controller slaves.

Each slave lists its interface as :class:`Var` rows (name, type, causality, start, unit,
description) and registers them with :func:`register` through ``fmu_support.FmuSlave``'s
``add_real`` / ``add_integer`` / ``add_boolean`` / ``add_string`` (which record the unit for
``tools/build_fmus.py`` and give Integer / Boolean / String variables a legal explicit
variability: ``fixed`` for parameters, ``discrete`` otherwise). The values live in
``slave.values``, a dict keyed by the FMI name.

Outputs are declared without direct feedthrough (``depends_on=[]``): they change only at
initialisation and in ``do_step``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, Optional

_COERCE = {"Real": float, "Integer": int, "Boolean": bool, "String": str}


@dataclass(frozen=True)
class Var:
    name: str
    type: str                      # Real | Integer | Boolean | String
    causality: str                 # parameter | input | output
    start: Any
    unit: Optional[str] = None     # fmu_support/units.py name, Real only
    description: str = ""


def register(slave, table: Iterable[Var]) -> Dict[str, Var]:
    """Register every row on ``slave`` (an ``fmu_support.FmuSlave``); returns the rows by name."""
    rows: Dict[str, Var] = {}
    for row in table:
        convert = _COERCE[row.type]
        slave.values[row.name] = convert(row.start)

        def getter(n=row.name):
            return slave.values[n]

        def setter(v, n=row.name, c=convert):
            slave.values[n] = c(v)

        kw: Dict[str, Any] = dict(causality=row.causality, description=row.description,
                                  getter=getter, setter=setter)
        if row.causality == "output":
            kw["depends_on"] = []
        if row.type == "Real":
            slave.add_real(row.name, unit=row.unit, **kw)
        else:
            getattr(slave, f"add_{row.type.lower()}")(row.name, **kw)
        rows[row.name] = row
    return rows


def units_of(table: Iterable[Var]) -> Dict[str, str]:
    return {r.name: r.unit for r in table if r.unit}
