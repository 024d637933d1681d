"""The one number rule of every file and parameter of the project: the vehicle files, the
scenarios and campaigns, the FMUs' parameters.

- A number is written as one: an integer or a decimal, `1e3` included (YAML 1.1 reads `1e3` as
  text, PyYAML follows it: `number_loader` reads it as the number it is). `true`, `yes` and
  text ("0.5" in quotes) are not numbers (`is_number`).
- A parameter's number is finite and, in SI units, within +-`LARGEST`: nothing of a vehicle, its
  instruments or its control is larger (a mass of 1e12 kg, a gain of 1e12), and the products
  the physics forms of a few such numbers (a squared norm, a mass times a lever arm squared, a
  gain times an error) stay far from the double's overflow, so a value beyond it is refused by
  name (`check_number`) rather than let through to an infinite norm or a silent zero.

Imports nothing of the project, and PyYAML only when a loader is asked for.
"""
from __future__ import annotations

import math
import numbers
import re

#: the largest magnitude of any Real parameter (SI units)
LARGEST = 1e12

#: a number with an exponent, with or without a decimal point: what YAML 1.1 leaves as text
EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")

_LOADERS: dict = {}


def is_number(value) -> bool:
    """An integer or a real (numpy's scalars too), not a bool (YAML's true/yes) nor text."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def number_problem(value) -> str | None:
    """What is wrong with `value` as a parameter's number (see the module documentation), or
    None: the words that follow its name and value in an error."""
    if not is_number(value):
        return "is true/false, not a number" if isinstance(value, bool) else "is not a number"
    if not math.isfinite(value):
        return "must be finite"
    if abs(value) > LARGEST:
        return (f"is beyond +-{LARGEST:g}: no quantity of a vehicle or its stack is that large in SI units "
                f"(its products would overflow)")
    return None


def check_number(name: str, value) -> float:
    """`value` as a float, or ValueError("NAME = VALUE <what is wrong>")."""
    problem = number_problem(value)
    if problem is not None:
        raise ValueError(f"{name} = {value!r} {problem}")
    return float(value)


def number_loader(base=None):
    """A PyYAML loader class (a subclass of `base`, default yaml.SafeLoader; libyaml's
    CSafeLoader works the same) that reads `1e3` as a number and refuses a key given twice in
    one mapping (PyYAML would keep the last one silently: a second `vehicle:` under `instances`
    would drop every parameter of the first) with yaml's ConstructorError."""
    import yaml

    base = base or yaml.SafeLoader
    if base in _LOADERS:
        return _LOADERS[base]

    class NumberLoader(base):
        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue  # keys merged in (<<: *anchor) may be overridden, as YAML allows
                    try:
                        key = self.construct_object(key_node, deep=True)
                        hash(key)
                    except Exception:
                        continue  # reported by the base class
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"the key {key!r} is given twice in one mapping (first at line {seen[key] + 1})",
                            key_node.start_mark)
                    seen[key] = key_node.start_mark.line
            return super().construct_mapping(node, deep=deep)

    NumberLoader.add_implicit_resolver("tag:yaml.org,2002:float", EXPONENT_FLOAT, list("-+0123456789"))
    _LOADERS[base] = NumberLoader
    return NumberLoader
