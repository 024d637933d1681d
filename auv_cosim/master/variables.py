"""An FMU's variables, as its modelDescription.xml declares them, and the values given to them.

``fmu_variables`` reads them (by name, ``Var``), ``expand`` finds a scalar or the elements of a
vector, ``suggest`` offers the close names of a misspelt one, and ``coerce_value`` checks a value
(of a scenario file, or text of the command line) against a variable's FMI type, returning the
value to set. The plan (auv_cosim/master/plan.py) resolves a scenario with them; a campaign
types its values with them (``master.coerce_value``).
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from typing import Any

_TYPES = ("Real", "Integer", "Boolean", "String", "Enumeration")
FMI_INT_MIN, FMI_INT_MAX = -(2 ** 31), 2 ** 31 - 1  # fmi2Integer is a C int


@dataclass
class Var:
    name: str
    vr: int
    type: str
    causality: str
    variability: str
    start: Any = None
    unit: str | None = None


def fmu_variables(md) -> dict[str, Var]:
    """The variables of an FMU's model description (fmpy's ``read_model_description``) by name."""
    out = {}
    for v in md.modelVariables:
        out[v.name] = Var(v.name, v.valueReference, v.type, v.causality, v.variability, v.start,
                          getattr(v, "unit", None) or (v.declaredType.unit if getattr(v, "declaredType", None) is not None else None))
    return out


def expand(vars: dict[str, Var], name: str) -> list[Var] | None:
    """`name` itself, or `name[1] .. name[n]` when `name` is the base of a vector."""
    if name in vars:
        return [vars[name]]
    out = []
    i = 1
    while f"{name}[{i}]" in vars:
        out.append(vars[f"{name}[{i}]"])
        i += 1
    return out or None


def suggest(name: str, candidates) -> str:
    """`` (did you mean 'X' or 'Y'?)`` for the close matches of a misspelt name (vector
    elements also offered by their base name), or ``""``."""
    cands = set(candidates)
    cands |= {re.sub(r"\[\d+\]$", "", c) for c in cands}
    close = difflib.get_close_matches(name, sorted(cands), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def literal(text: str) -> Any:
    """A command-line value without a known type: int, float, true/false, else the text."""
    t = text.strip()
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return text


def coerce_value(value: Any, typ: str | None, what: str, from_text: bool = False, finite: bool = False) -> Any:
    """A value checked against an FMU variable type ('Real', 'Integer', 'Enumeration',
    'Boolean', 'String'; None = unknown) and returned as the value to set; a list element by
    element. ``from_text``: a string is read as the type (a command-line value). ``finite``: a
    Real must be finite. Raises ValueError with a message that begins with ``what``."""
    if isinstance(value, list):
        return [coerce_value(v, typ, what, from_text, finite) for v in value]
    if from_text and isinstance(value, str):
        if typ == "String":
            return value
        if typ is None:
            return literal(value)
        t = value.strip()
        if typ == "Boolean":
            if t.lower() in ("true", "yes", "on", "1"):
                return True
            if t.lower() in ("false", "no", "off", "0"):
                return False
            raise ValueError(f"{what} is a Boolean; expected true or false, got {value!r}")
        try:
            try:
                value = int(t) if typ in ("Integer", "Enumeration") else float(t)
            except ValueError:
                value = float(t)  # 2.0 or 1e3 for an Integer: a number that may be whole, checked below
        except ValueError:
            kind = "an Integer" if typ in ("Integer", "Enumeration") else "a Real"
            raise ValueError(f"{what} is {kind}; cannot read {value!r} as a number") from None
    if typ is None:
        return value
    if typ == "Real":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{what} is a Real; expected a number, got {value!r}")
        if finite and not math.isfinite(value):
            raise ValueError(f"{what} must be a finite number, got {value!r}")
        return float(value)
    if typ in ("Integer", "Enumeration"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and not value.is_integer()):
            raise ValueError(f"{what} is an Integer; expected a whole number, got {value!r}")
        value = int(value)
        if not FMI_INT_MIN <= value <= FMI_INT_MAX:
            raise ValueError(f"{what} is an Integer (32 bits); {value} is outside {FMI_INT_MIN} .. {FMI_INT_MAX}")
        return value
    if typ == "Boolean":
        if not isinstance(value, bool):
            raise ValueError(f"{what} is a Boolean; expected true or false, got {value!r}")
        return value
    if typ == "String":
        if not isinstance(value, str):
            raise ValueError(f"{what} is a String; expected text, got {value!r} (quote it)")
        return value
    raise ValueError(f"{what} has an unsupported type {typ}")
