"""What the build builds and from what: an FMU's specification (``FmuSpec``, from the units'
declarations), the hash of its sources (its up-to-date check) and the staging of its sources
(the package under its build's name, the slave script written for it, the vehicle files).

``ROOT`` is the folder that holds the ``auv_cosim`` package: a clone's root, or the
site-packages of an installed wheel; the build reads the package's sources from there.
"""
from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from auv_cosim import units

from . import carry, native_wrapper

#: the folder that holds the auv_cosim package (a clone's root, or site-packages)
ROOT = Path(units.__file__).resolve().parent.parent
#: the build's own modules: what shapes every FMU besides its sources
BUILD_FILES = tuple(sorted(Path(__file__).resolve().parent.glob("*.py")))
STAMP_PREFIX = ".build-stamp-"
LOCK_NAME = ".build-stamp.lock"  # matches the .gitignore pattern fmus/.build-stamp*
IGNORED = carry.IGNORED
#: where the caches of the groups are kept, under the destination
COMPILED_DIR = ".compiled"


@dataclass(frozen=True)
class FmuSpec:
    name: str                       # model identifier = class name = <dest>/<name>.fmu
    script: str                     # the slave's module file, relative to the root (or absolute)
    #: A vehicle built from a file (the H100): `script`'s slave class `vehicle_base` is written
    #: out as class NAME with this `vehicle_file` (``vehicles/NAME.yaml``, relative to the FMU's
    #: resources) unless both are already the script's; the vehicle files' folder
    #: (`vehicle_files`, default: its unit's) goes into the FMU's resources as vehicles/.
    vehicle_file: Optional[str] = None
    vehicle_base: str = ""
    #: "module:function" entries (modules of auv_cosim, relative: "vehicles.h100.stack.warm_up:f")
    #: called with the staged vehicle file once the slave has stepped, on the staged package:
    #: the cache also gets what another FMU sharing a module in one host calls of it.
    numba_warm_up: Tuple[str, ...] = ()
    #: compile and ship numba's cache of the carried modules (False: the FMU compiles at its
    #: first use, unless its host has its build's package imported already)
    ship_numba_cache: bool = True
    #: FMUs of one group ship one cache, compiled once for all of them (auv_cosim/build/__init__.py)
    cache_group: str = ""
    #: the folder of vehicle files (relative to the root, or absolute); None: the unit's whose
    #: folder holds the slave (`Unit.vehicle_files`)
    vehicle_files: Optional[str] = None


def registered_specs(root: Path = ROOT) -> Tuple[FmuSpec, ...]:
    """The FMUs the registered units declare (``Unit.fmus``, auv_cosim/units.py), in the units'
    order: each slave's file relative to ``root`` (absolute when the unit lies elsewhere, as a
    unit of another distribution does), each warm-up relative to the package (the FMU carries it
    under its build's name)."""
    specs = []
    for unit, fmu in units.fmus():
        script = unit.folder / fmu.slave
        script = script.relative_to(root) if script.is_relative_to(root) else script
        warm_ups = []
        for entry in fmu.numba_warm_up:
            if not entry.startswith(f"{carry.PACKAGE}."):
                raise SystemExit(f"unit {unit.name}: FMU {fmu.name}: the warm-up {entry!r} is not a module of "
                                 f"{carry.PACKAGE}, which the FMU carries")
            warm_ups.append(entry[len(carry.PACKAGE) + 1:])
        vehicle_files = None
        if fmu.vehicle_file:
            vehicle_files = unit.folder / unit.vehicle_files
            vehicle_files = (vehicle_files.relative_to(root) if vehicle_files.is_relative_to(root)
                             else vehicle_files).as_posix()
        specs.append(FmuSpec(fmu.name, script.as_posix(), fmu.vehicle_file and f"vehicles/{fmu.vehicle_file}",
                             fmu.vehicle_base, tuple(warm_ups), fmu.ship_numba_cache, fmu.cache_group,
                             vehicle_files))
    return tuple(specs)


def _unit_of(spec: FmuSpec, root: Path = ROOT):
    """The registered unit whose folder holds the spec's slave, or None."""
    script = _script_path(spec, root).resolve()
    for unit in units.units().values():
        if script.is_relative_to(unit.folder.resolve()):
            return unit
    return None


def prepare_vehicle_file(spec: FmuSpec, vehicle_file: Path, root: Path = ROOT) -> None:
    """Write beside a staged vehicle file what the FMU reads instead (the unit's
    ``prepare_vehicle_file``: the H100's resolved file, so that it needs no YAML reader); the
    unit is the one whose folder holds the slave."""
    unit = _unit_of(spec, root)
    if unit is not None and unit.prepare_vehicle_file:
        units.load(unit.prepare_vehicle_file)(vehicle_file)


def vehicle_files_dir(spec: FmuSpec, root: Path = ROOT) -> Path:
    """The folder of vehicle files an FMU built from one carries as resources/vehicles/."""
    if spec.vehicle_files:
        return Path(spec.vehicle_files) if Path(spec.vehicle_files).is_absolute() else root / spec.vehicle_files
    unit = _unit_of(spec, root)
    if unit is None or not unit.vehicle_files:
        raise SystemExit(f"{spec.name}: built from {spec.vehicle_file}, but no folder of vehicle files is known")
    return unit.folder / unit.vehicle_files


def scenario_fmus(name: str) -> List[str]:
    """The names of the FMUs (``<Name>.fmu``) a scenario's instances name."""
    from auv_cosim.master import load_scenario
    from auv_cosim.master.runner import find_scenario

    loaded = load_scenario(find_scenario(name))
    return [Path(spec.fmu).stem for spec in loaded.model.instances.values()]


def default_jobs() -> int:
    """One child per core, at most 2: a child compiles on one core, and more than two would
    only share the cores of the machines this is built on."""
    return max(1, min(2, os.cpu_count() or 1))


# ------------------------------------------------------------------------------ sources
def _script_path(spec: FmuSpec, root: Path) -> Path:
    return Path(spec.script) if Path(spec.script).is_absolute() else root / spec.script


def _vehicle_files(spec: FmuSpec, root: Path) -> List[Path]:
    folder = vehicle_files_dir(spec, root)
    return sorted(p for p in folder.rglob("*") if p.is_file() and not carry._ignored(p.relative_to(folder)))


def unit_package(spec: FmuSpec, root: Path = ROOT) -> Optional[Path]:
    """The import package (its folder) of the unit of another distribution whose slave this is:
    its FMUs carry it (carry.stage_unit_package); None for a slave of auv_cosim's own."""
    if _script_path(spec, root).resolve().is_relative_to((root / carry.PACKAGE).resolve()):
        return None
    unit = _unit_of(spec, root)
    if unit is None:
        return None
    top = unit.folder.resolve()
    for _ in unit.package.split(".")[1:]:
        top = top.parent
    return top


def unit_package_files(spec: FmuSpec, root: Path = ROOT) -> List[Path]:
    """The modules of the unit's own package an FMU carries (none for a unit of auv_cosim)."""
    package = unit_package(spec, root)
    return carry.unit_package_files(package) if package else []


def source_digest(spec: FmuSpec, root: Path = ROOT, extra: Sequence[Path] = (),
                  vendor: Optional[str] = None) -> str:
    """A hash of everything that goes into the FMU or shapes it: the package name it carries
    its code under (a hash of all the FMU floors' sources), its slave script, its vehicle files,
    the build's modules, the native wrapper, pythonfmu's and numba's versions."""
    import pythonfmu
    digest = hashlib.sha256()
    digest.update(f"pythonfmu {pythonfmu.__version__}\n{spec!r}\n{vendor or carry.vendor_name(root)}\n".encode())
    try:
        import numba
        digest.update(f"numba {numba.__version__} AUV_NO_JIT={os.environ.get('AUV_NO_JIT', '')}\n".encode())
    except ImportError:
        digest.update(b"no numba\n")
    for path in [*BUILD_FILES, *extra]:
        digest.update(path.read_bytes())
    digest.update(native_wrapper.digest_text().encode())
    script = _script_path(spec, root)
    digest.update(script.read_bytes())
    for path in unit_package_files(spec, root):
        digest.update(path.read_bytes())
    for path in _vehicle_files(spec, root) if spec.vehicle_file else ():
        digest.update(f"\0{path.relative_to(vehicle_files_dir(spec, root)).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def stage_sources(spec: FmuSpec, stage: Path, vendor: str, root: Path = ROOT, package: bool = True) -> Path:
    """Stage the whole package under `vendor` (the warm-ups may run code the FMU does not
    carry), its source times pinned, the vehicle files (the warm-ups' too), and the slave script as the FMU carries
    it (`carry.staged_script`, class renamed for a vehicle built from a file); returns the
    staged script. `package=False`: the package and the vehicle files are staged already."""
    from auv_cosim.compiled.shipped_cache import pin_source_times

    if package:
        staged = carry.stage_package(root, stage, vendor)
        pin_source_times(str(staged))
        if spec.vehicle_file:
            shutil.copytree(vehicle_files_dir(spec, root), stage / "vehicles", ignore=shutil.ignore_patterns(*IGNORED))
    package = unit_package(spec, root)
    if package is not None and not (stage / package.name).exists():
        carry.stage_unit_package(root, package, stage, vendor)
    text = carry.staged_script(root, _script_path(spec, root), vendor)
    if spec.vehicle_file:
        declared = f'    vehicle_file = "{spec.vehicle_file}"\n'
        if spec.name != spec.vehicle_base or declared not in text:
            # pythonfmu and the native wrapper take the slave class defined in the script itself:
            # write the class out again under the FMU's name, with its vehicle file
            head, sep, tail = text.partition(f"class {spec.vehicle_base}(")
            if not sep:
                raise SystemExit(f"{spec.script}: no class {spec.vehicle_base}")
            tail = "\n".join(f'    vehicle_file = "{spec.vehicle_file}"' if line.startswith("    vehicle_file = ")
                             else line for line in tail.split("\n"))
            text = f"{head}class {spec.name}({tail}"
    script = stage / f"{vendor}_{spec.name}.py"
    script.write_text(text)
    return script


def stage_carried(spec: FmuSpec, carried: Sequence[str], stage: Path, vendor: str,
                  root: Path = ROOT) -> List[Path]:
    """What the FMU carries besides its script, staged apart (pythonfmu copies whole folders):
    the carried modules of the package, their times pinned, and the vehicle files."""
    from auv_cosim.compiled.shipped_cache import pin_source_times

    package = carry.stage_package(root, stage, vendor, carried)
    pin_source_times(str(package))
    folders = [package]
    own = unit_package(spec, root)
    if own is not None:   # a unit of another distribution: its own package too
        folders.append(carry.stage_unit_package(root, own, stage, vendor))
    if spec.vehicle_file:
        shutil.copytree(vehicle_files_dir(spec, root), stage / "vehicles", ignore=shutil.ignore_patterns(*IGNORED))
        prepare_vehicle_file(spec, stage / spec.vehicle_file, root)
        folders.append(stage / "vehicles")
    return folders


