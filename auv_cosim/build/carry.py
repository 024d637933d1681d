"""What an FMU carries of the project: its own build's copy of the code it runs.

pythonfmu FMUs run in their host's interpreter and share its modules. An FMU that carried
`auv_cosim` under that name would run whatever `auv_cosim` the host had imported first (the
host's installed copy, or another FMU's subset of it) instead of its own. So the build carries
the project's FMU floors (`auv_cosim`'s `compiled`, `fmu`, `seabed`, `vehicles`, `stacks`, and
`components`, the units that are no vehicle) under a package
name of this build's own, `vendor_name`: `_auv_cosim_` and the first 12 hex digits of the SHA-256
of those sources. FMUs built from the same sources share the name and the code; FMUs of other
sources, and the `auv_cosim` a host has installed or imported, never meet them.

Each FMU carries only the modules its slave imports, directly or not (`carried_files`): the
AUV's instruments and control carry no vehicle physics. In one interpreter the FMUs of one
build share the package: the first to load imports it, and every later one joins its own
folders to the packages already imported (`carry_fmu_code`, the first lines of each slave
script, `auv_cosim/compiled/shipped_cache.py`) while every carried `__init__.py` ends with
pkgutil's `extend_path` (for the packages imported later), so that a module only a later FMU
carries is found in its folder.

Inside the floors the imports are relative, so the carried copy runs unchanged under the
vendor name; only the slave script, a top-level module in the FMU's resources, is rewritten
(`staged_script`).
"""
from __future__ import annotations

import ast
import hashlib
import shutil
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set

PACKAGE = "auv_cosim"
#: the floors every FMU may carry; anything else of auv_cosim stays out of an FMU
FLOORS = ("compiled", "fmu", "seabed", "vehicles", "stacks", "components")
#: what a unit's folder holds that is no FMU code (auv_cosim/units.py): its host's side, its
#: declaration, its scenarios and vehicle files (an FMU built from a vehicle file carries the
#: files as resources/vehicles/); never carried as code, and no part of the sources the FMUs'
#: package name is the hash of
HOST_SIDE = ("host", "scenarios", "vehicle_files", "unit.py")
#: carried by every FMU: the package's door and what the slave's first lines call
ALWAYS = ("__init__.py", "compiled/__init__.py", "compiled/shipped_cache.py")
#: appended to every carried __init__.py
EXTEND_PATH = ('\n# Written by the FMU build: this package spans the folders of every FMU of the build '
               'loaded in one\n# interpreter (auv_cosim/build/carry.py).\n'
               '__path__ = __import__("pkgutil").extend_path(__path__, __name__)\n')
IGNORED = ("__pycache__", "*.pyc", "*.pyo", "*.nbi", "*.nbc", ".*", "*.egg-info")


class CarryError(ValueError):
    """A slave imports something an FMU cannot carry."""


def _ignored(path: Path) -> bool:
    import fnmatch
    return any(fnmatch.fnmatch(part, pattern) for part in path.parts for pattern in IGNORED)


def _host_side(relative: Path) -> bool:
    return any(part in HOST_SIDE for part in relative.parts)


def floor_files(root: Path) -> List[str]:
    """Every file of the FMU floors, relative to root/auv_cosim, sorted (as posix paths)."""
    base = root / PACKAGE
    files = ["__init__.py"]
    for floor in FLOORS:
        for path in (base / floor).rglob("*"):
            relative = path.relative_to(base)
            if path.is_file() and not _ignored(relative) and not _host_side(relative):
                files.append(relative.as_posix())
    return sorted(files)


def vendor_name(root: Path) -> str:
    """The package name the FMUs of these sources carry the code under."""
    digest = hashlib.sha256()
    for relative in floor_files(root):
        digest.update(f"\0{relative}\0".encode())
        digest.update((root / PACKAGE / relative).read_bytes())
    return f"_{PACKAGE}_{digest.hexdigest()[:12]}"


# ------------------------------------------------------------------------------ imports
def _module_file(root: Path, module: str) -> Optional[Path]:
    parts = module.split(".")
    base = root.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _module_of(root: Path, path: Path) -> Optional[str]:
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        return None
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts and parts[0] == PACKAGE else None


def _absolute(node: ast.ImportFrom, module: Optional[str], is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    if module is None:
        raise CarryError(f"a relative import outside {PACKAGE}: {ast.unparse(node)}")
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def project_imports(root: Path, path: Path) -> Set[str]:
    """The modules of auv_cosim that the file imports (every import statement, those inside
    functions too; `from P import m` counts m when it is a module)."""
    module = _module_of(root, path)
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level and module is None:
                continue   # a module of another package (a unit's own): its relative imports stay its own
            source = _absolute(node, module, is_package)
            if source.split(".")[0] != PACKAGE:
                continue
            found.add(source)
            for alias in node.names:
                if _module_file(root, f"{source}.{alias.name}") is not None:
                    found.add(f"{source}.{alias.name}")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
    return found


def carried_files(root: Path, script: Path, also: Iterable[Path] = ()) -> List[str]:
    """The files of auv_cosim an FMU with this slave script carries, relative to root/auv_cosim:
    every module the script (and the files ``also``: a unit's own package, for a unit of another
    distribution) imports, directly or not, with the packages above each, and ALWAYS."""
    files: Set[str] = set(ALWAYS)
    seen: Set[str] = set()
    todo = sorted(set().union(*(project_imports(root, path) for path in (script, *also))))
    while todo:
        module = todo.pop()
        parts = module.split(".")
        for n in range(1, len(parts) + 1):     # the module and every package above it
            name = ".".join(parts[:n])
            if name in seen:
                continue
            seen.add(name)
            if n > 1 and parts[1] not in FLOORS:
                raise CarryError(f"{script.name} imports {module}: an FMU carries only auv_cosim's "
                                 f"{', '.join(FLOORS)}")
            path = _module_file(root, name)
            if path is None:
                raise CarryError(f"{script.name} imports {module}: no such module in {root / PACKAGE}")
            if _host_side(path.relative_to(root / PACKAGE)):
                raise CarryError(f"{script.name} imports {module}: a unit's {', '.join(HOST_SIDE)} are no FMU's code")
            files.add(path.relative_to(root / PACKAGE).as_posix())
            todo.extend(sorted(project_imports(root, path) - seen))
    return sorted(files)


# ------------------------------------------------------------------------------ staging
def stage_package(root: Path, stage: Path, vendor: str, files: Optional[Iterable[str]] = None) -> Path:
    """Copy `files` (default: every floor file) of root/auv_cosim to stage/<vendor>/, each
    __init__.py with EXTEND_PATH appended; returns stage/<vendor>."""
    target = stage / vendor
    for relative in (floor_files(root) if files is None else files):
        source, destination = root / PACKAGE / relative, target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        if destination.name == "__init__.py":
            destination.write_text(source.read_text() + EXTEND_PATH)
        else:
            shutil.copy2(source, destination)
    return target


def staged_script(root: Path, script: Path, vendor: str, join_package: bool = True) -> str:
    """The slave script as the FMU carries it (a top-level module of its resources): every import
    of auv_cosim, relative or absolute, names the vendor package instead, and its first lines
    join the FMU's folders to that package (`carry_fmu_code`; ``join_package=False``: not, for a
    module of a unit's own package)."""
    text = script.read_text()
    module = _module_of(root, script)
    tree = ast.parse(text, str(script))
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def position(lineno: int, col: int) -> int:
        return offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level and module is None:
                continue   # a relative import inside a unit's own package
            source = _absolute(node, module, False)
            if source.split(".")[0] != PACKAGE:
                continue
            new = ast.ImportFrom(module=vendor + source[len(PACKAGE):], names=node.names, level=0)
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == PACKAGE for a in node.names):
            new = ast.Import(names=[ast.alias(vendor + a.name[len(PACKAGE):] if a.name.split(".")[0] == PACKAGE
                                              else a.name, a.asname) for a in node.names])
        else:
            continue
        edits.append((position(node.lineno, node.col_offset), position(node.end_lineno, node.end_col_offset),
                      ast.unparse(new)))
    # the preamble goes after the docstring and the __future__ imports
    body = tree.body
    at = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        at = 1
    while at < len(body) and isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__":
        at += 1
    insert = offsets[body[at - 1].end_lineno] if at else 0
    preamble = "" if not join_package else (f"\n# Written by the FMU build: this FMU's code is the package {vendor} in its resources "
                f"(auv_cosim/build/carry.py).\n"
                f"from {vendor}.compiled.shipped_cache import carry_fmu_code as _carry_fmu_code\n"
                f"_carry_fmu_code(__file__)\n")
    edits.append((insert, insert, preamble))
    edits.sort(key=lambda e: (e[0], e[1]))
    out, last = [], 0
    for start, end, new in edits:
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


def unit_package_files(package: Path) -> List[Path]:
    """The modules of a unit's own import package (a unit of another distribution), its host's
    side left out: what its FMUs carry of it."""
    return sorted(p for p in package.rglob("*.py")
                  if not _ignored(p.relative_to(package)) and not _host_side(p.relative_to(package)))


def stage_unit_package(root: Path, package: Path, stage: Path, vendor: str) -> Path:
    """Stage a unit's own import package (``package``: its folder) as stage/<its name>/, each
    module's imports of auv_cosim naming the vendor package, so that the FMU runs on the code it
    carries whatever its host has installed; returns the staged folder."""
    target = stage / package.name
    for path in unit_package_files(package):
        destination = target / path.relative_to(package)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_text(staged_script(root, path, vendor, join_package=False))
    return target


def carried_caches(stage_package_dir: Path, files: Iterable[str]) -> List[Path]:
    """numba's cache files in the staged package that belong to the carried `files`
    (`<folder>/__pycache__/<module>.<function>-<line>.pyXY[.N].nbi|nbc`), and numba's runtime's
    (compiled/__pycache__/numba_runtime-*.nbc, see compiled/numba_cache.py)."""
    modules: Dict[str, Set[str]] = {}
    for relative in files:
        folder, _, name = relative.rpartition("/")
        if name.endswith(".py"):
            modules.setdefault(folder, set()).add(name[:-3])
    found = []
    for folder, stems in modules.items():
        cache = stage_package_dir / folder / "__pycache__"
        if not cache.is_dir():
            continue
        for path in sorted(cache.iterdir()):
            if path.suffix not in (".nbi", ".nbc"):
                continue
            if path.name.split(".")[0] in stems or (folder == "compiled" and path.name.startswith("numba_runtime-")):
                found.append(path)
    return found
