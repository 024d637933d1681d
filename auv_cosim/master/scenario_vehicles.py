"""A scenario's vehicles (``vehicles: {NAME: ...}``): each one's stack, read as a scenario reads
the files it includes, with its instances named after the vehicle (``vehicle_instance``), and
the scenario-wide fields its files set combined with the other vehicles' (``combine_vehicles``).

The renaming rewrites what a file names (instances, connections, signals, stop conditions ...)
and nothing else; the loader (auv_cosim/master/scenario.py) reads the files, refuses what a
vehicle's files may not hold (`NOT_IN_A_VEHICLE`) and merges the renamed files with the rest.
"""

from __future__ import annotations

from typing import Any


def vehicle_instance(vehicle: str, instance: str) -> str:
    """The name in the scenario of a vehicle's instance: the stack's ``vehicle`` is the vehicle
    itself (its name is the name the user gave it), any other instance ``X`` is
    ``VEHICLE_X``."""
    return vehicle if instance == "vehicle" else f"{vehicle}_{instance}"


def _renamed_target(text: Any, vehicle: str) -> Any:
    """``instance.Rest`` with its instance renamed for ``vehicle`` (anything else as it is:
    the validation names it)."""
    if not isinstance(text, str) or "." not in text:
        return text
    inst, rest = text.split(".", 1)
    head = inst.strip()
    if not head.isidentifier():
        return text
    return inst[: len(inst) - len(inst.lstrip())] + vehicle_instance(vehicle, head) + "." + rest


def _renamed_connection(text: Any, vehicle: str) -> Any:
    if not isinstance(text, str) or text.count("->") != 1:
        return text
    left, right = text.split("->")
    return f"{_renamed_target(left.strip(), vehicle)} -> {_renamed_target(right.strip(), vehicle)}"


def _renamed_stop(item: Any, vehicle: str) -> Any:
    if isinstance(item, str):
        return _renamed_target(item.strip(), vehicle)
    if isinstance(item, dict) and "condition" in item:
        return {**item, "condition": _renamed_target(str(item["condition"]).strip(), vehicle)}
    return item


#: what a vehicle's files may not hold: they describe one vehicle, the scenario the rest
NOT_IN_A_VEHICLE = {
    "analysis": "an analysis names the scenario's instances: ask for it in the scenario, with the "
                "vehicle's instance names",
    "vehicles": "a vehicle's stack holds one vehicle",
    "wakes": "wakes are wired in the scenario, between its vehicles",
}


def renamed_for(raw: dict, vehicle: str) -> dict:
    """One file of a vehicle's stack with every instance it names renamed for the vehicle
    (``vehicle_instance``): its instances, connections, disconnects, signals, order, stop
    conditions, recorded patterns and noise seed. The rest (step, algorithm ...) is kept; what
    a vehicle's files may not hold (`NOT_IN_A_VEHICLE`) is left out: the loader refuses it
    before."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("include", *NOT_IN_A_VEHICLE):
            continue
        if key == "instances":
            value = {vehicle_instance(vehicle, k): v for k, v in (value or {}).items()}
        elif key == "connections":
            value = [_renamed_connection(c, vehicle) for c in value or []]
        elif key == "disconnect":
            value = [_renamed_target(d, vehicle) for d in value or []]
        elif key == "signals":
            value = {_renamed_target(k, vehicle): v for k, v in (value or {}).items()}
        elif key == "order" and isinstance(value, list):
            value = [vehicle_instance(vehicle, n) if isinstance(n, str) else n for n in value]
        elif key == "stop_when" and value is not None:
            value = [_renamed_stop(i, vehicle) for i in value] if isinstance(value, list) else _renamed_stop(value, vehicle)
        elif key == "record" and isinstance(value, list):
            value = [r if r == "all" else _renamed_target(r, vehicle) for r in value]
        elif key == "noise_seed" and isinstance(value, str):
            value = _renamed_target(value, vehicle)
        out[key] = value
    return out


def combine_vehicles(per_vehicle: dict[str, dict], merged: dict, origin: dict, top: str) -> list[tuple[str, str, str]]:
    """The scenario-wide fields that the vehicles' files set and no other file did: the order
    (each vehicle's in turn, the vehicles as declared), the stop conditions (any vehicle's ends
    the run), the recorded patterns (all of them), the noise seeds (each vehicle's, a list when
    there are several: a campaign's seeds seed them all); the step and the algorithm must
    agree. Returns the disagreements."""
    problems = []
    for key in ("step", "algorithm", "start_time", "tolerance"):
        values = {v: f[key] for v, f in per_vehicle.items() if key in f}
        if key in merged or not values:
            continue
        if len({repr(x[0]) for x in values.values()}) > 1:
            told = ", ".join(f"{v}: {x[0]!r} ({x[1]})" for v, x in values.items())
            problems.append((top, key, f"the vehicles' stacks disagree ({told}); set {key} in the scenario"))
            continue
        first = next(iter(values.values()))
        merged[key] = first[0]
        origin[(key,)] = (first[1], key)
    if "order" not in merged:
        orders = [f["order"] for f in per_vehicle.values() if "order" in f]
        if orders:
            merged["order"] = [n for o, _ in orders for n in (o if isinstance(o, list) else [])]
            origin[("order",)] = (orders[0][1], "order")
    if "stop_when" not in merged:
        stops = [f["stop_when"] for f in per_vehicle.values() if f.get("stop_when", (None,))[0] is not None]
        if stops:
            merged["stop_when"] = [i for s, _ in stops for i in (s if isinstance(s, list) else [s])]
            origin[("stop_when",)] = (stops[0][1], "stop_when")
    if "record" not in merged:
        records = [f["record"][0] for f in per_vehicle.values() if "record" in f]
        if records and any(r != "all" for r in records):
            merged["record"] = list(dict.fromkeys(x for r in records for x in (["all"] if r == "all" else r)))
    if "noise_seed" not in merged:
        seeds = [f["noise_seed"] for f in per_vehicle.values() if f.get("noise_seed", (None,))[0] is not None]
        if seeds:
            merged["noise_seed"] = seeds[0][0] if len(seeds) == 1 else [s for s, _ in seeds]
            origin[("noise_seed",)] = (seeds[0][1], "noise_seed")
    for key in ("stop_time", "plots", "name"):
        if key not in merged:
            values = [f[key] for f in per_vehicle.values() if key in f]
            if values:
                merged[key] = values[-1][0]
                origin[(key,)] = (values[-1][1], key)
    return problems
