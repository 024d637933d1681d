"""Imports point one way (docs/architecture.md): no package of auv_cosim imports one above it,
and a unit (a vehicle or another component: one folder, auv_cosim/units.py) is imported by no
module outside its folder.

    compiled  <-  seabed, fmu  <-  vehicles (shared)  <-  stacks (shared)
    units (the declaration type and the registry: imports nothing of the project)
    a unit's folder:   physics  <-  stack/  <-  host/      unit.py (units only)
       physics: compiled, the shared vehicles, itself (a slave: fmu too)
       stack/:  the same, the shared stacks, its own physics (a slave: fmu too)
       host/:   anything of the unit, and the master's public API, campaigns, analyses, identification
    master (knows no vehicle: finds the units through the registry)  <-  campaigns  <-  analyses
      (of the ground floor: its number rule, compiled.numbers, shared with the vehicle files;
      the seabed's door, to draw the grid a run's vehicles read)
    build (the FMU build: units, the floors, the master's loader)
    cli (the command: the master, the build, and the commands the units and entry points register)

Every import statement of every module is read (those inside functions too), so a lazy import
is held to the same rule as one at the top. The floors an FMU carries (compiled, fmu, the shared
vehicles and stacks, a unit's physics and stack) import each other relatively, so that an FMU
can carry them under a name of its own build (auv_cosim/build/carry.py).
tests/campaigns/test_campaign_boundary.py checks that the campaign package uses only names of
``master.__all__``."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from auv_cosim import master, units

ROOT = Path(__file__).resolve().parents[1]
TOP = "auv_cosim"
#: the folders of the registered units, as posix paths from the root (auv_cosim/vehicles/auv, ...)
UNIT_FOLDERS = {name: unit.package.replace(".", "/") for name, unit in units.units().items()}

#: what each subpackage's modules may import of the project, besides themselves; a slave module
#: (``slave.py``, ``*_slave.py``) may import ``fmu`` too. A unit's parts: ``unit:physics``,
#: ``unit:stack``, ``unit:host``, ``unit:declaration``; ``unit`` below stands for the importing
#: module's own unit (another unit is never allowed).
ALLOWED = {
    "compiled": set(),
    "fmu": {"compiled"},
    # the seabed (bathymetry, geodesy): a shared environment of the vehicles, their stacks and
    # the analyses of a run
    "seabed": {"compiled"},
    "vehicles": {"compiled", "seabed"},
    "stacks": {"compiled", "vehicles", "seabed"},
    # the folder of the units that are no vehicle (the tether): its door imports nothing, each
    # unit inside follows the unit's rules
    "components": set(),
    "units": set(),
    "unit:physics": {"compiled", "vehicles", "seabed", "unit:physics"},
    "unit:stack": {"compiled", "vehicles", "seabed", "stacks", "unit:physics", "unit:stack"},
    "unit:host": {"compiled", "vehicles", "seabed", "stacks", "fmu", "units", "master", "campaigns", "analyses",
                  "identification", "unit:physics", "unit:stack", "unit:host"},
    "unit:declaration": {"units"},
    "identification": {"master", "units"},
    # what a run reports for any vehicle (metrics, the fleet's analyses, the swath's coverage)
    "analyses": {"master", "compiled", "seabed"},
    # the master knows no vehicle and no campaign; of the ground floor, only the number rule of
    # the files it shares with the vehicle files (ONLY_OF below); the units through the registry;
    # the seabed's door (a grid read as the vehicles read it, for the 3-D view and the MCAP scene)
    "master": {"compiled", "units", "seabed"},
    "campaigns": {"master"},         # a client of the master's public API
    # what a run writes for other tools (MCAP, bags, Parquet, OSP) and its real-time pacing:
    # observers and a pacer of the master's loop
    "outputs": {"master"},
    # the FMU build: the units' declarations, the FMU floors it stages and completes, the master's
    # compiler finder and scenario loader (which FMUs a scenario names)
    "build": {"compiled", "fmu", "units", "master"},
    "cli": {"master", "outputs", "units", "build"},    # the command; its other commands come by the registry
    "__main__": {"master", "cli"},
    "__init__": set(),
}
#: the parts an FMU carries: imported relatively
FLOORS = {"compiled", "fmu", "seabed", "vehicles", "stacks", "components", "unit:physics", "unit:stack"}

#: the modules of the master a client may import: the public APIs (``master.__all__``,
#: ``auv_cosim.campaigns.__all__``) and, for what plugs into the master, the registry's types and
#: the plot functions' child process
PUBLIC = {"analyses": {"master", "master.registry", "master.plot_process", "campaigns"},
          "unit:host": {"master", "master.registry", "master.plot_process", "campaigns"},
          "identification": {"master"},
          "campaigns": {"master", "master.plot_process"}}

#: a subpackage that may import only these modules of another (subpackage -> {owner: modules})
ONLY_OF = {"master": {"compiled": {"compiled.numbers"}, "seabed": {"seabed"}}}


def _module_of(rel: Path) -> tuple[str, bool]:
    parts = list(rel.with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(absolute module name, written relatively) of every import of the file."""
    return _imports_of(path, ROOT)


@functools.lru_cache(maxsize=None)
def _imports_of(path: Path, root: Path) -> list[tuple[str, bool]]:
    rel = path.relative_to(root)
    module, is_package = _module_of(rel)
    package = module.split(".") if is_package else module.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(rel))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # `from auv_cosim import units` imports the module auv_cosim.units (the package's door
            # itself defines nothing)
            modules = [f"{base}.{a.name}" for a in node.names if base == TOP and _is_module(f"{base}.{a.name}")]
            out += [(m, bool(node.level)) for m in modules or [base]]
        elif isinstance(node, ast.Import):
            out += [(a.name, False) for a in node.names]
    return out


def _unit_part(rest: list[str]) -> str:
    """The part of a unit a module is, from its path inside the unit's folder."""
    if not rest:
        return "unit:physics"       # the package door
    if rest[0] == "stack":
        return "unit:stack"
    if rest[0] == "host":
        return "unit:host"
    if rest == ["unit"]:
        return "unit:declaration"
    return "unit:physics"


def _owner(module: str) -> tuple[str | None, str | None]:
    """(the area of auv_cosim a module belongs to, its unit's name or None); "tools", "tests" or
    "references" for those (never imported by the package); None for anything else."""
    parts = module.split(".")
    if parts[0] in ("tools", "tests", "references"):
        return parts[0], None
    if parts[0] != TOP:
        return None, None
    for name, folder in UNIT_FOLDERS.items():
        unit_parts = folder.split("/")
        if parts[: len(unit_parts)] == unit_parts:
            return _unit_part(parts[len(unit_parts):]), name
    return (parts[1] if len(parts) > 1 else "__init__"), None


def _area_files() -> dict[tuple[str, str | None], list[Path]]:
    """Every module of auv_cosim by (area, unit)."""
    return _area_files_of(ROOT)


@functools.lru_cache(maxsize=4)
def _area_files_of(root: Path) -> dict[tuple[str, str | None], list[Path]]:
    out: dict[tuple[str, str | None], list[Path]] = {}
    for path in sorted((root / TOP).rglob("*.py")):
        area = _owner(_module_of(path.relative_to(root))[0])
        out.setdefault(area, []).append(path)
    return out


def _violations(area: str, unit: str | None = None) -> list[str]:
    out = []
    for path in _area_files().get((area, unit), []):
        rel = path.relative_to(ROOT)
        slave = path.name == "slave.py" or path.name.endswith("_slave.py")
        allowed = ALLOWED[area] | ({area} if not area.startswith("unit:") else set()) | ({"fmu"} if slave else set())
        for module, relative in _imports(path):
            owner, owner_unit = _owner(module)
            if owner is None:
                continue
            if owner_unit is not None and owner_unit != unit:
                out.append(f"{rel} imports {module}: the unit {owner_unit} is imported only inside its folder")
                continue
            if owner not in allowed:
                out.append(f"{rel} imports {module}")
            if area in FLOORS and owner in FLOORS and not relative:
                out.append(f"{rel} imports {module} absolutely: the FMU floors import each other relatively")
            only = ONLY_OF.get(area, {}).get(owner)
            if only is not None and module.partition(".")[2] not in only:
                out.append(f"{rel} imports {module}: of {owner}, only {', '.join(sorted(only))}")
            public = PUBLIC.get(area)
            if public is not None and owner in ("master", "campaigns") and owner != area \
                    and module.partition(".")[2] not in public:
                whose = "the master's" if owner == "master" else "the campaign's"
                out.append(f"{rel} imports {module}: not {whose} public API ({', '.join(sorted(public))})")
    return out


def test_every_part_of_the_package_has_a_rule():
    assert {area for area, _ in _area_files()} <= set(ALLOWED)
    present = {p.name for p in (ROOT / TOP).iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    present |= {p.stem for p in (ROOT / TOP).glob("*.py")}
    assert present == {a for a in ALLOWED if not a.startswith("unit:")}


def test_both_vehicles_are_units_with_a_folder_of_their_own():
    assert {"auv", "h100"} <= set(UNIT_FOLDERS)
    for name, folder in UNIT_FOLDERS.items():
        assert (ROOT / folder / "unit.py").is_file(), name


@pytest.mark.parametrize("area", sorted(a for a in ALLOWED if not a.startswith("unit:")))
def test_no_package_imports_a_package_above_it(area):
    assert _violations(area) == []


@pytest.mark.parametrize("unit", sorted(UNIT_FOLDERS))
@pytest.mark.parametrize("part", ["unit:physics", "unit:stack", "unit:host", "unit:declaration"])
def test_a_units_parts_import_downwards_and_no_other_unit(unit, part):
    assert _violations(part, unit) == []


@pytest.mark.parametrize("unit", sorted(UNIT_FOLDERS))
def test_no_module_outside_a_units_folder_imports_it(unit):
    """The rule the registry makes possible: the master, the build, the CLI, the analyses and
    the identification reach a unit only through its declaration's strings."""
    found = []
    for (area, owner_unit), paths in _area_files().items():
        if owner_unit == unit:
            continue
        for path in paths:
            found += [f"{path.relative_to(ROOT)} imports {module}" for module, _ in _imports(path)
                      if _owner(module)[1] == unit]
    assert found == []


def test_the_rule_catches_an_import_upwards(tmp_path, monkeypatch):
    """The check itself: a module of the master that imports a vehicle package or more of the
    ground floor than its number rule, a library module that imports the FMU side, a vehicle
    module that imports another floor absolutely, a relative import out of the campaigns into a
    master module, a stack that imports its unit's host, one unit that imports another, a
    package outside the units that imports one, and a module that imports the clone's references
    (references/: not shipped)."""
    fake = tmp_path / "root"
    for rel, text in (("auv_cosim/master/view.py", "def f():\n    from auv_cosim.vehicles.auv.host.figures import waypoints_of\n"),
                      ("auv_cosim/master/plan.py", "from auv_cosim.compiled.jit import jit\n"),
                      ("auv_cosim/vehicles/forces.py", "from ..fmu import FmuSlave\n"),
                      ("auv_cosim/vehicles/auv/slave.py", "from ...fmu import VehicleSlave\n"),
                      ("auv_cosim/vehicles/rotation.py", "from auv_cosim.compiled.jit import jit\n"),
                      ("auv_cosim/vehicles/auv/stack/guidance.py", "from ..host.figures import waypoints_of\n"),
                      ("auv_cosim/vehicles/h100/stack/control.py", "from ...auv.stack.pid import PID\n"),
                      ("auv_cosim/identification/fit.py", "from auv_cosim.vehicles.h100.host import identification\n"),
                      ("auv_cosim/campaigns/worker.py", "from ..master.engine import simulate\n"),
                      ("auv_cosim/analyses/metrics.py", "from references.golden import compare\n")):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text(text)
    monkeypatch.setitem(globals(), "ROOT", fake)
    assert _violations("master") == [
        "auv_cosim/master/plan.py imports auv_cosim.compiled.jit: of compiled, only compiled.numbers",
        "auv_cosim/master/view.py imports auv_cosim.vehicles.auv.host.figures: the unit auv is imported only "
        "inside its folder"]
    assert _violations("vehicles") == [
        "auv_cosim/vehicles/forces.py imports auv_cosim.fmu",
        "auv_cosim/vehicles/rotation.py imports auv_cosim.compiled.jit absolutely: the FMU floors import "
        "each other relatively"]
    assert _violations("unit:physics", "auv") == []
    assert _violations("unit:stack", "auv") == ["auv_cosim/vehicles/auv/stack/guidance.py imports "
                                                "auv_cosim.vehicles.auv.host.figures"]
    assert _violations("unit:stack", "h100") == [
        "auv_cosim/vehicles/h100/stack/control.py imports auv_cosim.vehicles.auv.stack.pid: the unit auv is "
        "imported only inside its folder"]
    assert _violations("identification") == [
        "auv_cosim/identification/fit.py imports auv_cosim.vehicles.h100.host: the unit h100 is imported only "
        "inside its folder"]
    assert _violations("campaigns") == ["auv_cosim/campaigns/worker.py imports auv_cosim.master.engine: not the "
                                        "master's public API (master, master.plot_process)"]
    assert _violations("analyses") == ["auv_cosim/analyses/metrics.py imports references.golden"]


def test_the_public_api_names_exist():
    for name in master.__all__:
        assert getattr(master, name) is not None, name
