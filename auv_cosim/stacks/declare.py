"""How the instruments and the control stack declare their parameters: one dataclass field
each, with its unit and description beside it.

    DepthLag: float = parameter(0.1, "s", "Depth sensor first-order lag time constant")
    HoldPosition: Tuple[float, float, float] = parameter(
        (0.0, 0.0, 0.0), "m", "Position held", size=3, labels=("north", "east", "down"))

`parameter` is `dataclasses.field` with the declaration in `metadata` (the keys
`auv_cosim.fmu.declare` reads: `unit`, `description`, `variability`, and for a vector `size` and
`labels`); the slaves register one FMI parameter per field (per element of a vector, `Name[i]`)
from it (`auv_cosim.fmu.declare.parameters_of`), so a name, unit, description and default are
written once. This module imports nothing of FMI.
"""
from __future__ import annotations

import dataclasses
from typing import Optional, Sequence


def parameter(default, unit: Optional[str], description: str, *, variability: str = "fixed",
              size: int = 1, labels: Optional[Sequence[str]] = None):
    """A configuration field: `default`, SI `unit` (a name of auv_cosim/fmu/units.py; None for a
    string, an integer or a boolean), `description`, `variability` ("tunable": may change in a
    run); a vector of `size` > 1 Reals has a tuple `default` and one label per element (used in
    the elements' descriptions)."""
    if size > 1 and (len(default) != size or (labels is not None and len(labels) != size)):
        raise ValueError(f"a vector parameter of size {size} needs {size} default values and labels")
    return dataclasses.field(default=default, metadata={
        "unit": unit, "description": description, "size": size, "variability": variability,
        "labels": None if labels is None else tuple(labels)})
