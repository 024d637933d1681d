"""SI units the FMUs declare, with their FMI 2.0 base-unit exponents.

`modelDescription.xml` names a unit on each Real (`unit="m/s"`) and defines it once in
`<UnitDefinitions>` as a product of powers of the seven SI base units plus rad
(`<BaseUnit m="1" s="-1"/>`). This table is the single place where a unit name is tied to its
exponents; `tools/build_fmus.py` writes the definitions from it, and `FmuSlave.add_real`
refuses a unit that is not listed here, so a typo fails at build time, not in a user's tool.

Names follow the Modelica / FMI convention: `.` for a product, `/` for a quotient, a trailing
digit for a power (`m/s2`, `kg.m2`, `N.m.s`), `1` for a dimensionless quantity.
"""
from __future__ import annotations

import math
from typing import Dict, Mapping, Optional, Tuple

# Exponents of the FMI 2.0 base units: kg, m, s, A, K, mol, cd, rad.
BASE_UNIT_NAMES = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")

SI_UNITS: Dict[str, Mapping[str, int]] = {
    "1": {},
    "m": {"m": 1},
    "m2": {"m": 2},
    "m3": {"m": 3},
    "m2/s": {"m": 2, "s": -1},
    "m2.s": {"m": 2, "s": 1},
    "s": {"s": 1},
    "1/s": {"s": -1},
    "Hz": {"s": -1},
    "kg": {"kg": 1},
    "kg/m3": {"kg": 1, "m": -3},
    "kg/m": {"kg": 1, "m": -1},
    "kg.m2": {"kg": 1, "m": 2},
    "m/s": {"m": 1, "s": -1},
    "m/s2": {"m": 1, "s": -2},
    "rad": {"rad": 1},
    "deg": {"rad": 1},          # latitude and longitude: factor pi/180 (UNIT_FACTORS)
    "rad/s": {"rad": 1, "s": -1},
    "rad/s2": {"rad": 1, "s": -2},
    "rad/m": {"rad": 1, "m": -1},
    "N": {"kg": 1, "m": 1, "s": -2},
    "N.m": {"kg": 1, "m": 2, "s": -2},
    "N.m/rad": {"kg": 1, "m": 2, "s": -2, "rad": -1},
    "N.s/m": {"kg": 1, "s": -1},
    "N.m.s": {"kg": 1, "m": 2, "s": -1},
    "N.m.s2": {"kg": 1, "m": 2},
    # The blocks of 6 x 6 matrices acting on nu = (v, omega) (added mass, damping).
    "kg.m": {"kg": 1, "m": 1},
    "N.s": {"kg": 1, "m": 1, "s": -1},
    "N.s2": {"kg": 1, "m": 1},
    "N.s2/m": {"kg": 1},
    "N.s2/m2": {"kg": 1, "m": -1},
    "N/W": {"m": -1, "s": 1},
    "W": {"kg": 1, "m": 2, "s": -3},
    "J": {"kg": 1, "m": 2, "s": -2},
    "Pa": {"kg": 1, "m": -1, "s": -2},
    # Gains of the control loops (output unit per input unit).
    "W.s/m": {"kg": 1, "m": 1, "s": -2},          # speed error [m/s] -> power [W]
    "W/m": {"kg": 1, "m": 1, "s": -3},            # W per m (integral of a speed error)
    "W.s2/m": {"kg": 1, "m": 1, "s": -1},         # W per m/s2
    "W.s2/m2": {"kg": 1, "s": -1},                # W per (m/s)^2, a speed-squared feed-forward
    "rad/(m.s)": {"rad": 1, "m": -1, "s": -1},        # integral gain of a depth loop
    "rad.s/m": {"rad": 1, "m": -1, "s": 1},
    "rad.s": {"rad": 1, "s": 1},
    "m.s": {"m": 1, "s": 1},                      # integral of a position error
    "1/m": {"m": -1},
    "s/m": {"s": 1, "m": -1},
}


#: Display units: what a tool shows a value of the unit in by default (FMI 2.0 `<DisplayUnit>`,
#: value_display = factor * value). Angles are computed in radians and read in degrees.
DISPLAY_UNITS: Dict[str, Tuple[str, float]] = {
    "rad": ("deg", 180.0 / math.pi),
    "rad/s": ("deg/s", 180.0 / math.pi),
}


def display_unit(unit: str) -> Optional[Tuple[str, float]]:
    """(name, factor) of the display unit of `unit`, or None where it is shown as it is."""
    return DISPLAY_UNITS.get(unit)


#: the factor of a unit that is not its base units' product (FMI: value in base units = factor *
#: value), by name; 1 for every other
UNIT_FACTORS: Dict[str, float] = {"deg": 0.017453292519943295}


def is_known(unit: str) -> bool:
    return unit in SI_UNITS


def base_unit_exponents(unit: str) -> Dict[str, int]:
    """The non-zero base-unit exponents of `unit`, in FMI attribute order.

    Raises KeyError with the list of known units for an unknown name.
    """
    try:
        exponents = SI_UNITS[unit]
    except KeyError:
        raise KeyError(f"unknown unit {unit!r}: add it to auv_cosim/fmu/units.py "
                       f"(known: {', '.join(sorted(SI_UNITS))})") from None
    return {name: exponents[name] for name in BASE_UNIT_NAMES if exponents.get(name, 0) != 0}
