"""How the instruments and the control stack declare their parameters: one dataclass field
each, with its unit and description beside it.

    DepthLag: float = parameter(0.1, "s", "Depth sensor first-order lag time constant")

`parameter` is `dataclasses.field` with the declaration in `metadata` (the keys
`fmu_support.declare` reads: `unit`, `description`, `variability`); the slaves register one
FMI parameter per field from it (`fmu_support.declare.parameters_of`), so a name, unit,
description and default are written once. This module imports nothing of FMI.
"""
from __future__ import annotations

import dataclasses
from typing import Optional


def parameter(default, unit: Optional[str], description: str, *, variability: str = "fixed"):
    """A configuration field: `default`, SI `unit` (a name of fmu_support/units.py; None for a
    string or an integer), `description`, `variability` ("tunable": may change in a run)."""
    return dataclasses.field(default=default, metadata={
        "unit": unit, "description": description, "size": 1, "variability": variability})
