"""What the fit needs to know of each vehicle: its inputs and measured channels (with the usual
column names of the project's results.csv), its parameters by their FMU names, how to simulate
its library over a log, and how to write a vehicle file with fitted values.

Each vehicle's adapter lives in its unit's folder (``host/identification.py``) and is found
through the registry (``Unit.identification``, auv_cosim/units.py): ``import identification``
(and so ``auv-cosim``) loads no vehicle code.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from .log import TrialLog


@dataclasses.dataclass(frozen=True)
class Channel:
    """A measured quantity: its name in the fit, where a results.csv has it, its unit."""

    name: str
    columns: tuple[str, ...]
    unit: str
    angle: bool = False     # residuals wrapped to (-pi, pi]
    fit: bool = True        # fitted by default (False: only compared, e.g. a true position)


class VehicleAdapter:
    name = "vehicle"
    input_names: list[str] = []
    required_inputs: set[str] = set()
    channels: list[Channel] = []
    position_channels = ("north", "east", "depth")
    #: the channels the simulation starts from (its initial state): those a log lacks are taken
    #: as 0, which the fit says (TrialLog.assumed)
    initial_channels: tuple[str, ...] = ()

    @property
    def channel_names(self) -> list[str]:
        return [c.name for c in self.channels]

    def channel(self, name: str) -> Channel:
        return next(c for c in self.channels if c.name == name)

    def input_columns(self, name: str) -> list[str]:
        """The vehicle's own input column first (a signal drives it), then any instance's."""
        return [f"vehicle.{name}", f"control.{name}", name]

    def channel_columns(self, name: str) -> list[str]:
        return list(self.channel(name).columns)

    def check_layout(self, path, header: list[str], columns: dict[str, str]) -> None:
        """Refuse (LogError) a log whose command columns this vehicle does not have."""

    # to be provided by each vehicle
    def nominal(self, vehicle_file: str | Path | None = None) -> dict[str, float]:
        """Every fittable parameter (FMU name -> value) of the nominal vehicle."""
        raise NotImplementedError

    def nuisance(self, log: TrialLog) -> dict[str, tuple[float, float]]:
        """Initial-state values fitted along (name -> (start, typical size))."""
        return {}

    def simulate(self, values: dict[str, float], log: TrialLog, nuisance: dict[str, float]) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def window_labels(self, log: TrialLog) -> np.ndarray | None:
        """The prediction window of each sample where ``simulate`` predicts over windows, each
        started again from the measured state (the fit's standard errors then treat each
        window's residuals as one correlated block); None: one continuous prediction."""
        return None

    def write_vehicle_file(self, values: dict[str, float], path: Path, vehicle_file=None, note: str = "") -> Path:
        raise NotImplementedError


def vehicle_names() -> list[str]:
    """The units that can be identified (their ``identification`` adapter), by name."""
    from auv_cosim import units

    return [name for name, unit in units.units().items() if unit.identification]


def vehicle_adapter(name: str, vehicle_file=None) -> VehicleAdapter:
    """The adapter of a registered unit (``Unit.identification``, auv_cosim/units.py), made with
    the vehicle file given (the H100: the layout's, default H100.yaml; the AUV: known values to
    start from)."""
    from auv_cosim import units

    names = vehicle_names()
    if name not in names:
        raise ValueError(f"unknown vehicle {name!r}: one of {', '.join(names)}")
    return units.load(units.units()[name].identification)(vehicle_file)
