"""Imports point one way (docs/architecture.md): no package imports a package above it.

    fmu_support  <-  vehicle_model  <-  controllers_fmu  <-  analyses, identification
       (slaves: *_fmu.py)                                       |
    master (knows no vehicle)  <-  master.campaign (the public API only)  <-----+ (analyses:
                                        master's public API + registry, and campaigns)

Every import statement of every module is read (those inside functions too), so a lazy import
is held to the same rule as one at the top. tests/campaign/test_campaign_boundary.py checks
that the campaign package uses only names of ``master.__all__``."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import master

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("fmu_support", "vehicle_model", "controllers_fmu", "identification", "analyses", "master", "tools")

#: what each package's modules may import of the project, besides themselves; a slave module
#: (``*_fmu.py``) may import ``fmu_support`` too
ALLOWED = {
    "fmu_support": set(),
    "vehicle_model": set(),
    "controllers_fmu": {"vehicle_model"},
    "identification": {"vehicle_model", "controllers_fmu", "fmu_support", "master"},
    # what a run reports; a command of its own may run campaigns (master.campaign)
    "analyses": {"vehicle_model", "controllers_fmu", "master", "master.campaign"},
    "master": set(),                 # the master knows no vehicle and no campaign
    "master.campaign": {"master"},   # a client of the master's public API
}


#: the modules of the master a client may import: the public APIs (``master.__all__``,
#: ``master.campaign.__all__``) and, for what registers with the master, the registry's types
PUBLIC = {"analyses": {"master", "master.registry", "master.campaign"}, "master.campaign": {"master"}}


def _imports(path: Path) -> list[str]:
    """The absolute module names a file imports (relative imports resolved)."""
    rel = path.relative_to(ROOT)
    package = list(rel.parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(rel))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                out.append(".".join(base + ([node.module] if node.module else [])))
            else:
                out.append(node.module or "")
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return out


def _owner(module: str) -> str | None:
    """The package of ALLOWED a module name belongs to (master.campaign apart from master)."""
    if module == "master.campaign" or module.startswith("master.campaign."):
        return "master.campaign"
    top = module.split(".")[0]
    return top if top in PROJECT else None


def _violations(package: str) -> list[str]:
    where = ROOT / Path(*package.split("."))
    out = []
    for path in sorted(where.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if package == "master" and rel.parts[1] == "campaign":
            continue  # held to its own rule
        allowed = ALLOWED[package] | {package} | ({"fmu_support"} if path.name.endswith("_fmu.py") else set())
        for module in _imports(path):
            owner = _owner(module)
            if owner is not None and owner not in allowed:
                out.append(f"{rel} imports {module}")
            public = PUBLIC.get(package)
            if public is not None and owner in ("master", "master.campaign") and owner != package \
                    and module not in public:
                whose = "the master's" if owner == "master" else "the campaign's"
                out.append(f"{rel} imports {module}: not {whose} public API ({', '.join(sorted(public))})")
    return out


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_no_package_imports_a_package_above_it(package):
    assert _violations(package) == []


def test_the_rule_catches_an_import_upwards(tmp_path, monkeypatch):
    """The check itself: a module of the master that imports a vehicle package, a library module
    that imports fmu_support, a relative import out of master.campaign into a master module."""
    fake = tmp_path / "root"
    for rel, text in (("master/view.py", "def f():\n    from analyses.auv import waypoints_of\n"),
                      ("vehicle_model/forces.py", "from fmu_support import FmuSlave\n"),
                      ("vehicle_model/auv_vehicle_fmu.py", "from fmu_support import VehicleSlave\n"),
                      ("master/campaign/worker.py", "from ..engine import simulate\n")):
        (fake / rel).parent.mkdir(parents=True, exist_ok=True)
        (fake / rel).write_text(text)
    monkeypatch.setitem(globals(), "ROOT", fake)
    assert _violations("master") == ["master/view.py imports analyses.auv"]
    assert _violations("vehicle_model") == ["vehicle_model/forces.py imports fmu_support"]
    assert _violations("master.campaign") == ["master/campaign/worker.py imports master.engine: not the master's "
                                              "public API (master)"]


def test_the_public_api_names_exist():
    for name in master.__all__:
        assert getattr(master, name) is not None, name
