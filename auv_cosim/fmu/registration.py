"""How a slave declares its variables: `Registration`, a part of `FmuSlave` (auv_cosim.fmu.slave).

The helpers take a unit and a description (`add_real`, `add_real_vector`, `add_integer`,
`add_boolean`, `add_string`) and give legal FMI 2.0 defaults for variability (pythonfmu leaves
it unset, which means "continuous" and is illegal for parameters and for Integer / Boolean /
String variables). The units, the output dependencies and the declared ranges are kept in
`self.fmu_meta`, which `tools/build_fmus.py` reads to complete `modelDescription.xml`.

Ranges. A Real may declare `minimum` / `maximum` (modelDescription's `min` / `max`): the range
the model is built for, where it clamps or refuses a value. A value set beyond it is still
passed to the model (which clamps it as it always did), and the set returns fmi2Warning with a
logged warning, once per variable and instance (`Transfers._out_of_range`).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, MutableMapping, Optional, Sequence, Tuple, Union

from pythonfmu.enums import Fmi2Causality, Fmi2Initial, Fmi2Variability
from pythonfmu.variables import Boolean, Integer, Real, String

from .units import is_known

PARAMETER_CAUSALITIES = ("parameter", "calculatedParameter", "structuralParameter")


def _enum(enum_type, value):
    if value is None or isinstance(value, enum_type):
        return value
    return enum_type[value]


def declared_range(name: str, minimum: Optional[float], maximum: Optional[float]) -> Optional[Tuple[float, float]]:
    """(min, max) of a Real, an open side as -inf / inf; None when neither is declared.
    Refuses a bound that is not a finite number and an empty range, naming the variable."""
    if minimum is None and maximum is None:
        return None
    for label, bound in (("minimum", minimum), ("maximum", maximum)):
        if bound is not None and not (isinstance(bound, (int, float)) and math.isfinite(bound)):
            raise ValueError(f"variable {name}: {label} {bound!r} is not a finite number")
    low = -math.inf if minimum is None else float(minimum)
    high = math.inf if maximum is None else float(maximum)
    if low > high:
        raise ValueError(f"variable {name}: minimum {low!r} above maximum {high!r}")
    return low, high


class Registration:
    """The registration helpers of `FmuSlave` (see the module documentation)."""

    # ------------------------------------------------------------------ registration helpers
    def add_real(self, name: str, *, causality: str, description: str, unit: Optional[str],
                 variability: Optional[str] = None, initial: Optional[str] = None,
                 attr: Optional[str] = None, getter: Optional[Callable[[], float]] = None,
                 setter: Optional[Callable[[float], None]] = None,
                 depends_on: Optional[Sequence[str]] = None,
                 element: Optional[Tuple[str, int]] = None,
                 entry: Optional[Tuple[MutableMapping, Any]] = None,
                 minimum: Optional[float] = None, maximum: Optional[float] = None) -> Real:
        """Register a Real. Its value lives in `self.<attr>` (default: the name) unless a getter
        and a setter are given, or `element=(attr, index)`: element `index` of the list or
        numpy array `self.<attr>`, or `entry=(mapping, key)`: `mapping[key]` (see "Prepared
        transfers" before `_reader`: a host reading or setting several values kept in one place
        is served in one operation, not value by value). `unit` must be a name from
        auv_cosim.fmu.units (None: no unit). `depends_on` (outputs only): the inputs the output
        depends on directly; None = all (the conservative FMI default), [] = none.
        `minimum` / `maximum`: the declared range (see "Ranges" in the module doc)."""
        bounds = declared_range(name, minimum, maximum)
        if variability is None:
            variability = "fixed" if causality in PARAMETER_CAUSALITIES else "continuous"
        if element is not None:
            if getter is not None or setter is not None or attr is not None or entry is not None:
                raise ValueError(f"variable {name}: give element= or attr= / getter= / setter= / "
                                 f"entry=, not both")
            array, index = element
            if not hasattr(self, array):
                raise ValueError(f"variable {name}: attribute self.{array} does not exist")

            def getter():
                return float(getattr(self, array)[index])

            def setter(value):
                getattr(self, array)[index] = float(value)
        plain = element is None and entry is None and getter is None and setter is None
        var = self._add(Real, name, causality, description, unit, variability, initial, attr,
                        getter, setter, depends_on, float, entry)
        if element is not None:
            self._elements[var.value_reference] = (element[0], int(element[1]))
        elif entry is not None:
            self._entries[var.value_reference] = entry
        elif plain:
            self._attributes[var.value_reference] = attr or name
        if bounds is not None:
            self.fmu_meta[name]["min"], self.fmu_meta[name]["max"] = minimum, maximum
            self._ranges[var.value_reference] = (bounds[0], bounds[1], name)
            self._tables = None
        return var

    def add_real_vector(self, name: str, size: int, *, causality: str,
                        description: Union[str, Sequence[str]],
                        unit: Union[Optional[str], Sequence[Optional[str]]],
                        variability: Optional[str] = None, initial: Optional[str] = None,
                        attr: Optional[str] = None,
                        depends_on: Optional[Sequence[str]] = None,
                        minimum: Optional[float] = None,
                        maximum: Optional[float] = None) -> List[Real]:
        """Register `name[1]` ... `name[size]` (1-based, FMI structured naming) over the list or
        numpy array `self.<attr>` (default: the name); element i of `unit` / `description` may
        differ (give a sequence), else every element gets the same; so do `minimum` / `maximum`."""
        attr = attr or name
        units = list(unit) if isinstance(unit, (list, tuple)) else [unit] * size
        descriptions = (list(description) if isinstance(description, (list, tuple))
                        else [f"{description} ({i + 1} of {size})" for i in range(size)])
        if len(units) != size or len(descriptions) != size:
            raise ValueError(f"{name}: {size} elements but {len(units)} units and "
                             f"{len(descriptions)} descriptions")
        return [self.add_real(f"{name}[{i + 1}]", causality=causality, description=descriptions[i],
                              unit=units[i], variability=variability, initial=initial,
                              element=(attr, i), depends_on=depends_on,
                              minimum=minimum, maximum=maximum)
                for i in range(size)]

    def add_integer(self, name: str, *, causality: str, description: str,
                    variability: Optional[str] = None, initial: Optional[str] = None,
                    attr: Optional[str] = None, getter=None, setter=None,
                    depends_on: Optional[Sequence[str]] = None,
                    entry: Optional[Tuple[MutableMapping, Any]] = None) -> Integer:
        return self._add(Integer, name, causality, description, None,
                         variability or self._discrete_default(causality), initial, attr,
                         getter, setter, depends_on, int, entry)

    def add_boolean(self, name: str, *, causality: str, description: str,
                    variability: Optional[str] = None, initial: Optional[str] = None,
                    attr: Optional[str] = None, getter=None, setter=None,
                    depends_on: Optional[Sequence[str]] = None,
                    entry: Optional[Tuple[MutableMapping, Any]] = None) -> Boolean:
        return self._add(Boolean, name, causality, description, None,
                         variability or self._discrete_default(causality), initial, attr,
                         getter, setter, depends_on, bool, entry)

    def add_string(self, name: str, *, causality: str, description: str,
                   variability: Optional[str] = None, initial: Optional[str] = None,
                   attr: Optional[str] = None, getter=None, setter=None,
                   depends_on: Optional[Sequence[str]] = None,
                   entry: Optional[Tuple[MutableMapping, Any]] = None) -> String:
        return self._add(String, name, causality, description, None,
                         variability or self._discrete_default(causality), initial, attr,
                         getter, setter, depends_on, str, entry)

    @staticmethod
    def _discrete_default(causality: str) -> str:
        return "fixed" if causality in PARAMETER_CAUSALITIES else "discrete"

    def _add(self, kind, name, causality, description, unit, variability, initial, attr,
             getter, setter, depends_on, convert, entry=None):
        if not description:
            raise ValueError(f"variable {name}: a description is required")
        if unit is not None and not is_known(unit):
            raise ValueError(f"variable {name}: unknown unit {unit!r} (add it to auv_cosim/fmu/units.py)")
        if name in self.fmu_meta:
            raise ValueError(f"variable {name} registered twice")
        if entry is not None:   # the value is mapping[key]
            if getter is not None or setter is not None or attr is not None:
                raise ValueError(f"variable {name}: give entry= or attr= / getter= / setter=, not both")
            mapping, key = entry
            if key not in mapping:
                raise ValueError(f"variable {name}: the mapping of entry= has no key {key!r}")

            def getter():   # as stored: every reader converts (_get, _get_fmu_state)
                return mapping[key]

            def setter(value):
                mapping[key] = convert(value)
        if getter is None or setter is None:
            attr = attr or name
            if not hasattr(self, attr):
                raise ValueError(f"variable {name}: attribute self.{attr} does not exist")
            if getter is None:
                getter = lambda: convert(getattr(self, attr))  # noqa: E731
            if setter is None:
                setter = lambda value: setattr(self, attr, convert(value))  # noqa: E731
        var = kind(name, causality=_enum(Fmi2Causality, causality), description=description,
                   initial=_enum(Fmi2Initial, initial),
                   variability=_enum(Fmi2Variability, variability), getter=getter, setter=setter)
        self.register_variable(var, nested=False)
        if entry is not None:
            self._any_entries[var.value_reference] = entry
        self.fmu_meta[name] = {"unit": unit, "depends_on": None if depends_on is None
                               else list(depends_on)}
        return var