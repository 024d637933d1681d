"""Units: a vehicle, or another component, each one folder of its own that registers through one
Python entry point in the group ``auv_cosim.units`` (``[project.entry-points."auv_cosim.units"]``
in its distribution's pyproject.toml, e.g. ``auv = "auv_cosim.vehicles.auv.unit:UNIT"``).

A unit's declaration (its ``unit.py``) is plain data: names, file names relative to its folder,
and ``"module:attr"`` strings for what lives in its code (its figures, analyses, commands,
identification adapter). Reading the registry imports each unit's ``unit.py`` and the package
doors above it (lazy: no physics, no stack), never the code the strings name; so the master, the
build and ``auv-cosim list`` iterate the units without importing a vehicle. ``load`` imports what
one string names when it is used.

    from auv_cosim import units
    for unit in units.units().values():
        print(unit.name, [fmu.name for fmu in unit.fmus])
    figures = units.load(units.units()["auv"].figures)

docs/architecture.md has the layout of a unit's folder and the steps of adding one.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from typing import Dict, Mapping, Optional, Tuple

GROUP = "auv_cosim.units"


@dataclass(frozen=True)
class Fmu:
    """One FMU a unit builds (``fmus/<name>.fmu``).

    - ``name``: the model identifier, the slave's class name and the file's stem;
    - ``slave``: the slave's module file, relative to the unit's folder (``"slave.py"``,
      ``"stack/control_slave.py"``);
    - ``vehicle_file``: for a vehicle built from a file, that file, relative to the unit's
      ``vehicle_files`` folder (``"H100.yaml"``); the slave class ``vehicle_base`` is written out
      as class ``name`` with it (as ``vehicles/<vehicle_file>``: the folder is the FMU's
      ``resources/vehicles/``), and the unit's ``prepare_vehicle_file`` writes beside it what
      the FMU reads;
    - ``numba_warm_up``: ``"module:function"`` entries (modules of auv_cosim) called with the
      staged vehicle file once the slave has stepped, so that the shipped numba cache also holds
      what another FMU sharing a module in one host calls of it;
    - ``ship_numba_cache``: compile and ship numba's cache of the carried modules;
    - ``cache_group``: FMUs of one group ship one cache, compiled once for all of them."""

    name: str
    slave: str
    vehicle_file: Optional[str] = None
    vehicle_base: str = ""
    numba_warm_up: Tuple[str, ...] = ()
    ship_numba_cache: bool = True
    cache_group: str = ""


@dataclass(frozen=True)
class Drawing:
    """How a viewer draws the unit's FMU (the 3-D view, the scene of the outputs), written by the
    build into the FMU itself (a vendor annotation of its modelDescription.xml, read back by
    ``auv_cosim.master.drawing``), so that the master and the viewers know no vehicle's names:

    - ``shape``: ``"cylinder"`` (along body x, of the parameters ``length`` and ``diameter``),
      ``"box"`` (its footprint from the thrusters' positions ``<thruster_positions>[k,1..2]``,
      its height from ``<height>``), or ``"cable"`` (a line through the points
      ``<points>[1..3]`` with ``{}`` in ``points`` counting 1, 2, ... while they exist:
      ``"Node{}Pos"`` is ``Node1Pos[1..3]``, ``Node2Pos[1..3]``...);
    - a body's position from its outputs ``<position>[1..3]`` (NED, m) and its attitude from
      ``<attitude>[1..4]`` (body to NED, scalar first) or else ``<euler>[1..3]``.

    The FMUs of a unit that register ``<position>[1]`` (or the first point of a cable) carry it."""

    shape: str = "box"
    length: Optional[str] = None
    diameter: Optional[str] = None
    thruster_positions: Optional[str] = None
    height: Optional[str] = None
    position: str = "Pos"
    attitude: str = "Quater"
    euler: str = "Euler"
    points: Optional[str] = None

    def attributes(self) -> Dict[str, str]:
        """The declaration as the annotation's attributes (the fields that are set)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name)}

    def first_variable(self) -> str:
        """The variable an FMU registers when it is the one drawn."""
        return f"{self.points.format(1)}[1]" if self.shape == "cable" else f"{self.position}[1]"


@dataclass(frozen=True)
class Unit:
    """A unit's declaration (its ``unit.py``: ``UNIT = Unit(...)``).

    - ``name``: the unit's name (``--vehicle NAME`` of ``auv-cosim identify``);
    - ``package``: the unit's package (its folder), e.g. ``"auv_cosim.vehicles.auv"``;
    - ``fmus``: the FMUs it builds (``Fmu``);
    - ``scenarios``: its folder of scenarios (package data, relative to the unit's folder; its
      stack files in a ``stacks/`` folder inside), whose names ``auv-cosim run NAME`` finds;
    - ``vehicle_files``: its folder of vehicle files (package data, relative to the unit's
      folder), carried by each FMU built from one as ``resources/vehicles/``;
    - ``figures``: ``"module:attr"`` of its ``auv_cosim.master.registry.RunFigures``, what it
      adds to every run's summary.json, report and plots;
    - ``analyses``: analysis name -> ``"module:attr"`` of an ``Analysis`` a scenario can ask
      for under ``analysis:``;
    - ``commands``: subcommand of ``auv-cosim`` -> ``"module:add_parser"``;
    - ``identification``: ``"module:attr"`` of its adapter for ``auv-cosim identify``, called
      with the ``--vehicle-file`` given (or None);
    - ``prepare_vehicle_file``: ``"module:function"`` the build calls with a staged vehicle
      file, which writes beside it what the FMU reads instead (so that it needs no YAML reader);
    - ``drawing``: how a viewer draws it (``Drawing``)."""

    name: str
    package: str
    description: str = ""
    fmus: Tuple[Fmu, ...] = ()
    scenarios: Optional[str] = None
    vehicle_files: Optional[str] = None
    figures: Optional[str] = None
    analyses: Mapping[str, str] = field(default_factory=dict)
    commands: Mapping[str, str] = field(default_factory=dict)
    identification: Optional[str] = None
    prepare_vehicle_file: Optional[str] = None
    drawing: Optional[Drawing] = None

    @property
    def folder(self) -> Path:
        """The unit's folder (its package's; the package door is imported, lazily, to find it)."""
        return Path(import_module(self.package).__file__).parent


_cache: Dict[str, Unit] = {}


def units() -> Dict[str, Unit]:
    """The registered units by name (the entry points of ``auv_cosim.units``, sorted by name).
    One whose declaration cannot be loaded (its package broken or half installed), or is no
    ``Unit``, is reported on stderr and left out: the rest still work."""
    if not _cache:
        for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
            try:
                unit = ep.load()
            except Exception as e:
                print(f"auv_cosim: ignoring the unit '{ep.name}' ({ep.value}): {type(e).__name__}: {e}",
                      file=sys.stderr)
                continue
            if not isinstance(unit, Unit) or unit.name != ep.name:
                print(f"auv_cosim: ignoring the unit '{ep.name}' ({ep.value}): not a Unit named '{ep.name}'",
                      file=sys.stderr)
                continue
            _cache[ep.name] = unit
    return _cache


def load(reference: str):
    """What a ``"module:attr"`` string names (``attr`` may be dotted), its module imported."""
    module, _, attr = reference.partition(":")
    value = import_module(module)
    for part in attr.split(".") if attr else ():
        value = getattr(value, part)
    return value


def fmus() -> list:
    """(unit, fmu) of every FMU of every registered unit, in the units' order."""
    return [(unit, fmu) for unit in units().values() for fmu in unit.fmus]


def scenario_folders() -> list:
    """The scenario folders of the registered units that have one, in the units' order: where a
    scenario's bare name is looked up (auv_cosim.master.find_scenario)."""
    return [unit.folder / unit.scenarios for unit in units().values() if unit.scenarios]


# ------------------------------------------------------------------------------ where the FMUs are
#: the cache of built FMUs outside a clone: $XDG_CACHE_HOME/auv-cosim/fmus-built/ (~/.cache/...)
CACHE_SUBFOLDER = ("auv-cosim", "fmus-built")
#: what of a package's files goes into the name of its cache folder (its sources and data)
_HASHED = (".py", ".c", ".h", ".yaml", ".yml")


def checkout() -> Optional[Path]:
    """The clone this package runs from (the folder above ``auv_cosim`` holding pyproject.toml
    and the build's tools/), or None for an installed package (a wheel in site-packages)."""
    here = Path(__file__).resolve().parent.parent
    return here if (here / "pyproject.toml").is_file() and (here / "tools" / "build_fmus.py").is_file() else None


def _sources_digest() -> str:
    """A hash of the installed package's files and of every registered unit's folder outside it
    (another distribution's): FMUs built from other sources go to another folder."""
    import hashlib

    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    outside = {u.folder.resolve() for u in units().values()}
    folders = [package] + sorted(f for f in outside if not f.is_relative_to(package))
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.suffix in _HASHED and "__pycache__" not in path.parts and path.is_file():
                digest.update(f"\0{path.relative_to(folder).as_posix()}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def fmu_folder() -> Path:
    """Where the units' FMUs are built to and found (``<Name>.fmu``): the clone's ``fmus/`` in a
    clone (``./build.sh`` builds them there), else a per-user cache named after the package's
    version and the hash of its sources, ``$XDG_CACHE_HOME/auv-cosim/fmus-built/<version>-<hash>/``
    (``~/.cache`` when XDG_CACHE_HOME is unset)."""
    import os
    from importlib.metadata import PackageNotFoundError, version

    root = checkout()
    if root is not None:
        return root / "fmus"
    try:
        release = version("auv-cosim")
    except PackageNotFoundError:
        release = "unknown"
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base.joinpath(*CACHE_SUBFOLDER, f"{release}-{_sources_digest()}")


def fmu_names() -> set:
    """The names of every FMU the registered units build."""
    return {fmu.name for _unit, fmu in fmus()}
