"""The Waypoints format of both stacks: ``"north,east,depth; north,east,depth; ..."``, NED in
metres, depth positive down; parsed strictly, one rule for every vehicle and every tool that
draws or checks a mission."""
from __future__ import annotations

import math
from typing import List, Tuple

Waypoint = Tuple[float, float, float]


class WaypointError(ValueError):
    """A malformed Waypoints string; the message names the entry and what is wrong."""


def parse_waypoints(text: str, *, name: str = "Waypoints", allow_empty: bool = False) -> List[Waypoint]:
    """Parse ``"north,east,depth; north,east,depth; ..."``.

    Whitespace is ignored and one trailing ``;`` is allowed. Every entry must hold exactly
    three finite numbers and a depth >= 0. Errors name the parameter, the 1-based entry, the
    offending text and what is wrong with it.
    """
    if not isinstance(text, str):
        raise WaypointError(f"{name} must be a string, got {type(text).__name__}")
    body = text.strip()
    if body.endswith(";"):
        body = body[:-1]
    if not body.strip():
        if allow_empty:
            return []
        raise WaypointError(f"{name} is empty: expected 'north,east,depth; north,east,depth; ...'")
    out: List[Waypoint] = []
    for k, entry in enumerate(body.split(";"), start=1):
        e = entry.strip()
        if not e:
            raise WaypointError(f"{name} entry {k} is empty (two ';' in a row?) in {text!r}")
        parts = [p.strip() for p in e.split(",")]
        if len(parts) != 3:
            raise WaypointError(
                f"{name} entry {k} '{e}' has {len(parts)} value(s), expected 3 (north,east,depth)")
        vals = []
        for label, p in zip(("north", "east", "depth"), parts):
            try:
                v = float(p)
            except ValueError:
                raise WaypointError(f"{name} entry {k} '{e}': {label} '{p}' is not a number") from None
            if not math.isfinite(v):
                raise WaypointError(f"{name} entry {k} '{e}': {label} '{p}' is not finite")
            vals.append(v)
        if vals[2] < 0.0:
            raise WaypointError(f"{name} entry {k} '{e}': depth {vals[2]:g} is negative (depth is positive down)")
        out.append((vals[0], vals[1], vals[2]))
    return out
