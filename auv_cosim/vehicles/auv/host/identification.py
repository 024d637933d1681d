"""The AUV's side of `auv-cosim identify` (auv_cosim/identification): its inputs, measured
channels and fittable parameters, the library simulated over a log, the fitted values written
out. The vehicle library is imported inside the methods."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np

from auv_cosim.identification.log import TrialLog
from auv_cosim.identification.vehicles import Channel, VehicleAdapter


class AuvAdapter(VehicleAdapter):
    """The survey AUV (auv_cosim.vehicles, seeds 000/001): inputs ThrustPower, RudderYaw, RudderDive,
    ExternalForce[1..3]; measured by AuvSensors (navigation position, depth, attitude, speed
    through the water) or, in their absence, the vehicle's own outputs."""

    name = "auv"
    vehicle_file_name = "auv_parameters.yaml"
    initial_channels = ("north", "east", "depth", "roll", "pitch", "heading", "speed")
    input_names = ["ThrustPower", "RudderYaw", "RudderDive", "ExternalForce[1]", "ExternalForce[2]", "ExternalForce[3]"]
    required_inputs = {"ThrustPower", "RudderYaw", "RudderDive"}
    channels = [
        Channel("north", ("sensors.NavNorth", "vehicle.Pos[1]"), "m"),
        Channel("east", ("sensors.NavEast", "vehicle.Pos[2]"), "m"),
        Channel("depth", ("sensors.MeasuredDepth", "vehicle.Depth"), "m"),
        Channel("roll", ("sensors.MeasuredRoll", "vehicle.Euler[1]"), "rad", angle=True),
        Channel("pitch", ("sensors.MeasuredPitch", "vehicle.Euler[2]"), "rad", angle=True),
        Channel("heading", ("sensors.MeasuredHeading", "vehicle.Heading"), "rad", angle=True),
        Channel("speed", ("sensors.MeasuredSpeed", "vehicle.Speed"), "m/s"),
    ]
    # where each channel is in the library's output vector (auv_cosim.vehicles.auv.dynamics.OUTPUT_LAYOUT)
    _OUTPUT = {"north": ("Pos", 0), "east": ("Pos", 1), "depth": ("Depth", 0), "roll": ("Euler", 0),
               "pitch": ("Euler", 1), "heading": ("Euler", 2), "speed": ("Speed", 0)}

    def __init__(self, vehicle_file=None):
        """``vehicle_file``: unused here; the AUV's known values come to ``nominal(vehicle_file)``."""

    def nominal(self, vehicle_file=None) -> dict[str, float]:
        from auv_cosim.vehicles.auv import AuvParameters

        values = {}
        defaults = AuvParameters()
        for f in dataclasses.fields(AuvParameters):
            v = getattr(defaults, f.name)
            if isinstance(v, (tuple, list)):
                for i, x in enumerate(v, start=1):
                    values[f"{f.name}[{i}]"] = float(x)
            elif isinstance(v, (int, float)):
                values[f.name] = float(v)
        if vehicle_file is not None:
            values.update(_read_flat_yaml(vehicle_file, values))
        return values

    def _parameters(self, values: dict[str, float]):
        from auv_cosim.vehicles.auv import AuvParameters

        fields: dict[str, object] = {}
        for key, v in values.items():
            m = re.fullmatch(r"(\w+)\[(\d+)\]", key)
            if m:
                fields.setdefault(m.group(1), {})[int(m.group(2))] = v
            else:
                fields[key] = v
        kw = {k: (tuple(v[i] for i in sorted(v)) if isinstance(v, dict) else v) for k, v in fields.items()}
        return AuvParameters(**kw)

    def nuisance(self, log: TrialLog) -> dict[str, tuple[float, float]]:
        # the first sample of a noisy log is off by its noise: the initial position, heading and
        # speed are fitted along (a 0.005 rad heading error alone is 0.5 m after 100 m)
        out = {}
        for name, size in (("north", 1.0), ("east", 1.0), ("depth", 0.1), ("heading", 0.01), ("speed", 0.05)):
            if name in log.measured:
                out[f"initial_{name}"] = (float(log.measured[name][0]), size)
        return out

    def simulate(self, values, log, nuisance) -> dict[str, np.ndarray]:
        from auv_cosim.vehicles import Environment, VehicleSimulator, quaternion_from_euler
        from auv_cosim.vehicles.auv import AuvModel, initial_state
        from auv_cosim.vehicles.auv.dynamics import OUTPUT_LAYOUT

        model = AuvModel(self._parameters(values), Environment())
        first = {c: float(v[0]) for c, v in log.measured.items()}
        first.update({k[len("initial_"):]: v for k, v in nuisance.items()})
        q0 = quaternion_from_euler(first.get("roll", 0.0), first.get("pitch", 0.0), first.get("heading", 0.0))
        x0 = initial_state(Pos0=(first.get("north", 0.0), first.get("east", 0.0), first.get("depth", 0.0)),
                           Quater0=q0, LocalVel0=(first.get("speed", 0.0), 0.0, 0.0),
                           Battery0=model.params.InitialBattery)
        sim = VehicleSimulator(model, x0)
        wanted = [(c, OUTPUT_LAYOUT[self._OUTPUT[c][0]][0] + self._OUTPUT[c][1]) for c in log.measured]
        out = np.empty((len(log.time), len(wanted)))
        t, u = log.time, log.inputs
        x = x0
        for k in range(len(t)):
            if k:  # row k holds the commands applied over [t[k-1], t[k]] (log.py)
                x = sim.advance(t[k - 1], t[k], u[k])
            y = model.output_vector(x, u[k])
            out[k] = [y[j] for _, j in wanted]
        return {c: out[:, i] for i, (c, _) in enumerate(wanted)}

    def write_vehicle_file(self, values, path, vehicle_file=None, note="") -> Path:
        """The fitted values as FMU parameters: a YAML mapping that ``--vehicle-file`` reads back
        and whose lines go under a scenario's ``instances: vehicle: parameters:`` (vectors as
        ``Name[i]`` elements, as ``--set vehicle.Name[i]=...`` takes them)."""
        import yaml

        text = (f"# AUV parameters fitted by auv-cosim identify{(': ' + note) if note else ''}\n"
                "# FMU parameter names of fmus/Auv.fmu; use as instances.vehicle.parameters of a scenario,\n"
                "# or --set vehicle.NAME=VALUE, or --vehicle-file of another fit\n")
        text += yaml.safe_dump({k: float(v) for k, v in values.items()}, sort_keys=False)
        path.write_text(text, encoding="utf-8")
        return path


def _read_flat_yaml(path, known: dict[str, float]) -> dict[str, float]:
    import yaml

    path = Path(path)
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if isinstance(doc, dict) and "instances" in doc:  # a scenario: its vehicle's parameters
        doc = ((doc["instances"] or {}).get("vehicle") or {}).get("parameters") or {}
    out = {}
    for k, v in doc.items():
        if isinstance(v, list):
            for i, x in enumerate(v, start=1):
                out[f"{k}[{i}]"] = x
        else:
            out[str(k)] = v
    unknown = [k for k in out if k not in known]
    if unknown:
        raise ValueError(f"{path}: {', '.join(unknown)}: not parameters of the vehicle")
    try:
        return {k: float(v) for k, v in out.items()}
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None
