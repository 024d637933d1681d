"""Imports point one way (docs/architecture.md): no package of auv_cosim imports one above it.

    compiled  <-  fmu  <-  vehicles  <-  stacks  <-  analyses, identification
                   (slaves: vehicles/*/slave.py, stacks/*/*_slave.py may import fmu)
    master (knows no vehicle)  <-  campaigns (the master's public API only)  <-  analyses
      (of the ground floor: its number rule, compiled.numbers, shared with the vehicle files)
    cli (the command: the master, and the commands registered by entry points)

Every import statement of every module is read (those inside functions too), so a lazy import
is held to the same rule as one at the top. The floors every FMU carries (compiled, fmu,
vehicles, stacks) import each other relatively, so that an FMU can carry them under a name of
its own build (tools/fmu_code.py). tests/campaigns/test_campaign_boundary.py checks that the
campaign package uses only names of ``master.__all__``."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from auv_cosim import master

ROOT = Path(__file__).resolve().parents[1]
TOP = "auv_cosim"
#: the FMU floors: what an FMU may carry
FLOORS = ("compiled", "fmu", "vehicles", "stacks")

#: what each subpackage's modules may import of the project, besides themselves; a slave module
#: (``slave.py``, ``*_slave.py``) may import ``fmu`` too
ALLOWED = {
    "compiled": set(),
    "fmu": {"compiled"},
    "vehicles": {"compiled"},
    "stacks": {"compiled", "vehicles"},
    "identification": {"compiled", "vehicles", "stacks", "fmu", "master"},
    # what a run reports; a command of its own may run campaigns
    "analyses": {"vehicles", "stacks", "master", "campaigns"},
    # the master knows no vehicle and no campaign; of the ground floor, only the number rule of
    # the files it shares with the vehicle files (ONLY_OF below)
    "master": {"compiled"},
    "campaigns": {"master"},         # a client of the master's public API
    # what a run writes for other tools (MCAP, bags, Parquet, OSP) and its real-time pacing:
    # observers and a pacer of the master's loop
    "outputs": {"master"},
    "cli": {"master", "outputs"},    # the command; its other commands come by entry points
    "__main__": {"master", "cli"},
    "__init__": set(),
}

#: the modules of the master a client may import: the public APIs (``master.__all__``,
#: ``auv_cosim.campaigns.__all__``) and, for what plugs into the master, the registry's types and
#: the plot functions' child process
PUBLIC = {"analyses": {"master", "master.registry", "master.plot_process", "campaigns"},
          "campaigns": {"master", "master.plot_process"}}

#: a subpackage that may import only these modules of another (subpackage -> {owner: modules})
ONLY_OF = {"master": {"compiled": {"compiled.numbers"}}}


def _module_of(rel: Path) -> tuple[str, bool]:
    parts = list(rel.with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(absolute module name, written relatively) of every import of the file."""
    rel = path.relative_to(ROOT)
    module, is_package = _module_of(rel)
    package = module.split(".") if is_package else module.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(rel))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                out.append((".".join(base + ([node.module] if node.module else [])), True))
            else:
                out.append((node.module or "", False))
        elif isinstance(node, ast.Import):
            out += [(a.name, False) for a in node.names]
    return out


def _owner(module: str) -> str | None:
    """The subpackage of auv_cosim a module belongs to; "tools"/"tests" for those (never
    imported by the package); None for anything else."""
    parts = module.split(".")
    if parts[0] in ("tools", "tests"):
        return parts[0]
    if parts[0] != TOP:
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _files(subpackage: str) -> list[Path]:
    base = ROOT / TOP
    if (base / subpackage).is_dir():
        return sorted((base / subpackage).rglob("*.py"))
    return [base / f"{subpackage}.py"]


def _violations(subpackage: str) -> list[str]:
    out = []
    for path in _files(subpackage):
        rel = path.relative_to(ROOT)
        slave = path.name == "slave.py" or path.name.endswith("_slave.py")
        allowed = ALLOWED[subpackage] | {subpackage} | ({"fmu"} if slave else set())
        for module, relative in _imports(path):
            owner = _owner(module)
            if owner is None:
                continue
            if owner not in allowed:
                out.append(f"{rel} imports {module}")
            if subpackage in FLOORS and owner in FLOORS and not relative:
                out.append(f"{rel} imports {module} absolutely: the FMU floors import each other relatively")
            only = ONLY_OF.get(subpackage, {}).get(owner)
            if only is not None and module.partition(".")[2] not in only:
                out.append(f"{rel} imports {module}: of {owner}, only {', '.join(sorted(only))}")
            public = PUBLIC.get(subpackage)
            if public is not None and owner in ("master", "campaigns") and owner != subpackage \
                    and module.partition(".")[2] not in public:
                whose = "the master's" if owner == "master" else "the campaign's"
                out.append(f"{rel} imports {module}: not {whose} public API ({', '.join(sorted(public))})")
    return out


def test_every_subpackage_has_a_rule():
    present = {p.name for p in (ROOT / TOP).iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    present |= {p.stem for p in (ROOT / TOP).glob("*.py")}
    assert present == set(ALLOWED)


@pytest.mark.parametrize("subpackage", sorted(ALLOWED))
def test_no_package_imports_a_package_above_it(subpackage):
    assert _violations(subpackage) == []


def test_the_rule_catches_an_import_upwards(tmp_path, monkeypatch):
    """The check itself: a module of the master that imports a vehicle package or more of the
    ground floor than its number rule, a library module
    that imports the FMU side, a vehicle module that imports another floor absolutely, a
    relative import out of the campaigns into a master module."""
    fake = tmp_path / "root"
    for rel, text in (("auv_cosim/master/view.py", "def f():\n    from auv_cosim.analyses.auv import waypoints_of\n"),
                      ("auv_cosim/master/plan.py", "from auv_cosim.compiled.jit import jit\n"),
                      ("auv_cosim/vehicles/forces.py", "from ..fmu import FmuSlave\n"),
                      ("auv_cosim/vehicles/auv/slave.py", "from ...fmu import VehicleSlave\n"),
                      ("auv_cosim/vehicles/rotation.py", "from auv_cosim.compiled.jit import jit\n"),
                      ("auv_cosim/campaigns/worker.py", "from ..master.engine import simulate\n")):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text(text)
    monkeypatch.setitem(globals(), "ROOT", fake)
    assert _violations("master") == ["auv_cosim/master/plan.py imports auv_cosim.compiled.jit: of compiled, only "
                                     "compiled.numbers", "auv_cosim/master/view.py imports auv_cosim.analyses.auv"]
    assert _violations("vehicles") == [
        "auv_cosim/vehicles/forces.py imports auv_cosim.fmu",
        "auv_cosim/vehicles/rotation.py imports auv_cosim.compiled.jit absolutely: the FMU floors import "
        "each other relatively"]
    assert _violations("campaigns") == ["auv_cosim/campaigns/worker.py imports auv_cosim.master.engine: not the "
                                        "master's public API (master, master.plot_process)"]


def test_the_public_api_names_exist():
    for name in master.__all__:
        assert getattr(master, name) is not None, name
