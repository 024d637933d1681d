#!/usr/bin/env python3
"""Build the project's FMUs into fmus/ with pythonfmu 0.7.0 and complete their modelDescription.

    python tools/build_fmus.py                 # build what changed (build.sh calls this)
    python tools/build_fmus.py Auv AuvSensors  # only these (./build.sh run: the survey's three)
    python tools/build_fmus.py --force Auv     # rebuild one FMU
    python tools/build_fmus.py --jobs 1        # one FMU at a time (default: one per core, at most 2)
    python tools/build_fmus.py --no-check      # skip fmpy validate / fmutool -check

For each FMU the registered units declare (`Unit.fmus`, auv_cosim/units.py; `FMUS` below) the script
1. hashes its sources (the FMU floors of auv_cosim, its slave script, its vehicle files, this
   file, pythonfmu's version) and skips the FMU when fmus/.build-stamp-NAME holds that hash and
   fmus/NAME.fmu exists;
2. stages the package under the name the FMUs of these sources carry it under
   (tools/fmu_code.py: `_auv_cosim_<hash>`, never `auv_cosim`, whatever a host has imported)
   and the slave script written for it, and runs pythonfmu's builder on the modules the slave
   imports, in a child process so that every FMU is built from a fresh interpreter;
3. completes modelDescription.xml, which pythonfmu 0.7.0 leaves incomplete: <UnitDefinitions>
   with SI base-unit exponents (auv_cosim/fmu/units.py; rad and rad/s with the <DisplayUnit>
   `deg` and `deg/s`, the displayUnit of every angle), `unit` on every Real that has one, a
   legal variability on every variable, <ModelStructure> with <Outputs> (dependencies where the
   slave declared them) and <InitialUnknowns>, and the capability flags the slave declares
   (`fmu_capabilities`, e.g. canGetAndSetFMUstate / canSerializeFMUstate);
4. ships numba's cache of the carried modules (compiled by a step of the slave and the spec's
   warm-ups) and the bytecode of every carried source (`add_bytecode`: checked against the
   source's hash, so that a fresh extraction does not compile what it imports), the vehicle
   file prepared by its unit (`prepare_vehicle_file`: the H100's resolved file, the FMU reads no YAML) and `resources/requirements.txt`
   (`add_requirements`: the packages the slave imports and a run loads, pinned);
5. checks the result with fmpy's validator and `fmutool -input X -check`, and only then moves
   it into fmus/ (atomically) and writes the stamp.

Compiled caches shared by several FMUs are compiled once per build. The FMUs of a cache group
(`FmuSpec.cache_group`: the AUV's instruments and control, which call each other's kernels in
one host; the four H100 FMUs, which share the vehicle library) get numba's cache from one
child that stages the package once, steps every member's slave and runs every member's
warm-ups (`build_group_cache`), into `<dest>/.compiled/<group>-<hash>/` (kept for the next
build of a member; the hash is that of every member's sources). Each member then ships the
cache files of the modules it carries from there, so a member is the same whether it is built
alone, with the others, one at a time or in parallel (tests/test_build_fmus.py). The FMUs that
are stale and the group caches they need are built `--jobs` at a time (one child each).

Units, descriptions and output dependencies come from the slave itself: slaves derived from
`auv_cosim.fmu.FmuSlave` record them when they register a variable (`self.fmu_meta`), and so
do the ranges (`min` / `max`).

Layout of an FMU: resources/<vendor>_<NAME>.py (the slave script, a top-level module),
resources/<vendor>/ (the modules of auv_cosim it carries, with numba's cache of them),
resources/vehicles/ for a vehicle built from a file, resources/pythonfmu/, and beside every
source its bytecode in __pycache__.

A slave script that does not exist yet is skipped with a note. Exit status: 0 when every
existing FMU is built and valid, 1 otherwise.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple
from xml.etree import ElementTree as ET

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DEST = ROOT / "fmus"
STAMP_PREFIX = ".build-stamp-"
LOCK_NAME = ".build-stamp.lock"  # matches the .gitignore pattern fmus/.build-stamp*
IGNORED = ("__pycache__", "*.pyc", "*.pyo", "*.nbi", "*.nbc", ".*", "*.egg-info")


@dataclass(frozen=True)
class FmuSpec:
    name: str                       # model identifier = class name = fmus/<name>.fmu
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
    #: FMUs of one group ship one cache, compiled once for all of them (see the module)
    cache_group: str = ""
    #: the folder of vehicle files (relative to the root, or absolute); None: the unit's whose
    #: folder holds the slave (`Unit.vehicle_files`)
    vehicle_files: Optional[str] = None


def registered_specs(root: Path = ROOT) -> Tuple[FmuSpec, ...]:
    """The FMUs the registered units declare (``Unit.fmus``, auv_cosim/units.py), in the units'
    order: each slave's file relative to ``root`` (absolute when the unit lies elsewhere), each
    warm-up relative to the package (the FMU carries it under its build's name)."""
    from auv_cosim import units

    specs = []
    for unit, fmu in units.fmus():
        script = unit.folder / fmu.slave
        script = script.relative_to(root) if script.is_relative_to(root) else script
        warm_ups = []
        for entry in fmu.numba_warm_up:
            if not entry.startswith(f"{fmu_code.PACKAGE}."):
                raise SystemExit(f"unit {unit.name}: FMU {fmu.name}: the warm-up {entry!r} is not a module of "
                                 f"{fmu_code.PACKAGE}, which the FMU carries")
            warm_ups.append(entry[len(fmu_code.PACKAGE) + 1:])
        vehicle_files = None
        if fmu.vehicle_file:
            vehicle_files = unit.folder / unit.vehicle_files
            vehicle_files = (vehicle_files.relative_to(root) if vehicle_files.is_relative_to(root)
                             else vehicle_files).as_posix()
        specs.append(FmuSpec(fmu.name, script.as_posix(), fmu.vehicle_file and f"vehicles/{fmu.vehicle_file}",
                             fmu.vehicle_base, tuple(warm_ups), fmu.ship_numba_cache, fmu.cache_group,
                             vehicle_files))
    return tuple(specs)


def _unit_of(spec: FmuSpec):
    """The registered unit whose folder holds the spec's slave, or None."""
    from auv_cosim import units

    for unit in units.units().values():
        if spec.script.startswith(unit.package.replace(".", "/") + "/"):
            return unit
    return None


def prepare_vehicle_file(spec: FmuSpec, vehicle_file: Path) -> None:
    """Write beside a staged vehicle file what the FMU reads instead (the unit's
    ``prepare_vehicle_file``: the H100's resolved file, so that it needs no YAML reader); the
    unit is the one whose folder holds the slave."""
    from auv_cosim import units

    unit = _unit_of(spec)
    if unit is not None and unit.prepare_vehicle_file:
        units.load(unit.prepare_vehicle_file)(vehicle_file)


def vehicle_files_dir(spec: FmuSpec, root: Path) -> Path:
    """The folder of vehicle files an FMU built from one carries as resources/vehicles/."""
    if spec.vehicle_files:
        return Path(spec.vehicle_files) if Path(spec.vehicle_files).is_absolute() else root / spec.vehicle_files
    unit = _unit_of(spec)
    if unit is None or not unit.vehicle_files:
        raise SystemExit(f"{spec.name}: built from {spec.vehicle_file}, but no folder of vehicle files is known")
    return unit.folder / unit.vehicle_files


def scenario_fmus(name: str) -> List[str]:
    """The names of the FMUs (``fmus/<Name>.fmu``) a scenario's instances name."""
    from auv_cosim.master import load_scenario
    from auv_cosim.master.runner import find_scenario

    loaded = load_scenario(find_scenario(name))
    return [Path(spec.fmu).stem for spec in loaded.model.instances.values()]


#: where the caches of the groups are kept, under the destination
COMPILED_DIR = ".compiled"


def default_jobs() -> int:
    """One child per core, at most 2: a child compiles on one core, and more than two would
    only share the cores of the machines this is built on."""
    return max(1, min(2, os.cpu_count() or 1))


def _tools_module(name: str):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


fmu_code = _tools_module("fmu_code")
#: every FMU of the registered units
FMUS: Tuple[FmuSpec, ...] = registered_specs()


def _native_wrapper():
    """tools/native_wrapper.py (compiles the project's FMI wrapper into each FMU)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import native_wrapper
    finally:
        sys.path.pop(0)
    return native_wrapper


# ------------------------------------------------------------------------------ sources
def _script_path(spec: FmuSpec, root: Path) -> Path:
    return Path(spec.script) if Path(spec.script).is_absolute() else root / spec.script


def _vehicle_files(spec: FmuSpec, root: Path) -> List[Path]:
    folder = vehicle_files_dir(spec, root)
    return sorted(p for p in folder.rglob("*") if p.is_file() and not fmu_code._ignored(p.relative_to(folder)))


def source_digest(spec: FmuSpec, root: Path = ROOT, extra: Sequence[Path] = (),
                  vendor: Optional[str] = None) -> str:
    """A hash of everything that goes into the FMU or shapes it: the package name it carries
    its code under (a hash of all the FMU floors' sources), its slave script, its vehicle files,
    this build, the native wrapper, pythonfmu's and numba's versions."""
    import pythonfmu
    digest = hashlib.sha256()
    digest.update(f"pythonfmu {pythonfmu.__version__}\n{spec!r}\n{vendor or fmu_code.vendor_name(root)}\n".encode())
    try:
        import numba
        digest.update(f"numba {numba.__version__} AUV_NO_JIT={os.environ.get('AUV_NO_JIT', '')}\n".encode())
    except ImportError:
        digest.update(b"no numba\n")
    for path in [Path(__file__).resolve(), Path(fmu_code.__file__).resolve(), *extra]:
        digest.update(path.read_bytes())
    digest.update(_native_wrapper().digest_text().encode())
    script = _script_path(spec, root)
    digest.update(script.read_bytes())
    for path in _vehicle_files(spec, root) if spec.vehicle_file else ():
        digest.update(f"\0{path.relative_to(vehicle_files_dir(spec, root)).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def stage_sources(spec: FmuSpec, stage: Path, vendor: str, root: Path = ROOT, package: bool = True) -> Path:
    """Stage the whole package under `vendor` (the warm-ups may run code the FMU does not
    carry), its source times pinned, the vehicle files (the warm-ups' too), and the slave script as the FMU carries
    it (`fmu_code.staged_script`, class renamed for a vehicle built from a file); returns the
    staged script. `package=False`: the package and the vehicle files are staged already."""
    from auv_cosim.compiled.shipped_cache import pin_source_times

    if package:
        staged = fmu_code.stage_package(root, stage, vendor)
        pin_source_times(str(staged))
        if spec.vehicle_file:
            shutil.copytree(vehicle_files_dir(spec, root), stage / "vehicles", ignore=shutil.ignore_patterns(*IGNORED))
    text = fmu_code.staged_script(root, _script_path(spec, root), vendor)
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

    package = fmu_code.stage_package(root, stage, vendor, carried)
    pin_source_times(str(package))
    folders = [package]
    if spec.vehicle_file:
        shutil.copytree(vehicle_files_dir(spec, root), stage / "vehicles", ignore=shutil.ignore_patterns(*IGNORED))
        prepare_vehicle_file(spec, stage / spec.vehicle_file)
        folders.append(stage / "vehicles")
    return folders


# ------------------------------------------------------------------------------ model description
def _indent(element: ET.Element) -> None:
    ET.indent(element, space="  ")


def _variability(var: ET.Element, type_name: str) -> Optional[str]:
    """A legal variability for a variable that has none or an illegal one."""
    causality = var.get("causality", "local")
    variability = var.get("variability")
    if causality in ("parameter", "calculatedParameter", "structuralParameter"):
        return variability if variability in ("fixed", "tunable") else "fixed"
    if variability in (None, "continuous") and type_name != "Real":
        return "discrete"
    return variability


def declare_range(type_element: ET.Element, meta_entry: dict) -> None:
    """`min` / `max` on a <Real> whose slave declared them (FmuSlave.add_real's minimum /
    maximum: where the model clamps or refuses), written as repr() writes the double."""
    for attribute in ("min", "max"):
        if meta_entry.get(attribute) is not None:
            type_element.set(attribute, repr(float(meta_entry[attribute])))


def complete_model_description(xml_text: bytes, meta: Dict[str, dict],
                               capabilities: Dict[str, bool]) -> Tuple[bytes, List[str]]:
    """Return the completed modelDescription.xml and a list of warnings (e.g. no description)."""
    from auv_cosim.fmu.units import base_unit_exponents, display_unit

    warnings: List[str] = []
    root = ET.fromstring(xml_text)
    cosim = root.find("CoSimulation")
    if cosim is None:
        raise ValueError("no <CoSimulation> element: not a pythonfmu co-simulation FMU")
    for flag, value in capabilities.items():
        cosim.set(flag, "true" if value else "false")

    variables = root.find("ModelVariables")
    used_units: List[str] = []
    index_of: Dict[str, int] = {}
    for index, var in enumerate(variables.findall("ScalarVariable"), start=1):
        name = var.get("name")
        index_of[name] = index
        type_element = var[0]
        type_name = type_element.tag
        variability = _variability(var, type_name)
        if variability is not None and variability != var.get("variability"):
            var.set("variability", variability)
        if not var.get("description"):
            warnings.append(f"{name}: no description")
        if type_name != "Real":
            continue
        unit = (meta.get(name) or {}).get("unit")
        if unit:
            base_unit_exponents(unit)  # raises on an unknown unit
            type_element.set("unit", unit)
            if display_unit(unit):   # angles: a tool shows degrees by default
                type_element.set("displayUnit", display_unit(unit)[0])
            if unit not in used_units:
                used_units.append(unit)
        else:
            warnings.append(f"{name}: no unit")
        declare_range(type_element, meta.get(name) or {})
        # pythonfmu writes start="nan" for a NaN start value; keep it (legal xs:double).

    # <UnitDefinitions> right after <CoSimulation> (schema order: ModelExchange?, CoSimulation?,
    # UnitDefinitions?, TypeDefinitions?, LogCategories?, DefaultExperiment?, ...).
    old = root.find("UnitDefinitions")
    if old is not None:
        root.remove(old)
    if used_units:
        definitions = ET.Element("UnitDefinitions")
        for unit in sorted(used_units):
            unit_element = ET.SubElement(definitions, "Unit", {"name": unit})
            ET.SubElement(unit_element, "BaseUnit",
                          {k: str(v) for k, v in base_unit_exponents(unit).items()})
            if display_unit(unit):
                shown, factor = display_unit(unit)
                ET.SubElement(unit_element, "DisplayUnit", {"name": shown, "factor": repr(factor)})
        root.insert(list(root).index(cosim) + 1, definitions)

    # <ModelStructure>: rebuilt from the variables.
    old = root.find("ModelStructure")
    if old is not None:
        root.remove(old)
    structure = ET.SubElement(root, "ModelStructure")
    outputs, initial_unknowns = [], []
    for index, var in enumerate(variables.findall("ScalarVariable"), start=1):
        causality = var.get("causality", "local")
        variability = var.get("variability", "continuous")
        initial = var.get("initial")
        if causality == "output":
            outputs.append((index, var))
            if initial is None:
                initial = "exact" if variability == "constant" else "calculated"
            if initial in ("calculated", "approx"):
                initial_unknowns.append(index)
        elif causality == "calculatedParameter":
            initial_unknowns.append(index)
    if outputs:
        node = ET.SubElement(structure, "Outputs")
        for index, var in outputs:
            attributes = {"index": str(index)}
            depends_on = (meta.get(var.get("name")) or {}).get("depends_on")
            if depends_on is not None:
                try:
                    attributes["dependencies"] = " ".join(str(index_of[d]) for d in depends_on)
                except KeyError as error:
                    raise ValueError(f"output {var.get('name')} depends on unknown variable {error}")
            ET.SubElement(node, "Unknown", attributes)
    if initial_unknowns:
        # No `dependencies`: an initial unknown may depend on any parameter or input.
        node = ET.SubElement(structure, "InitialUnknowns")
        for index in initial_unknowns:
            ET.SubElement(node, "Unknown", {"index": str(index)})

    _indent(root)
    text = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    return text, warnings


def rewrite_zip_member(fmu: Path, member: str, data: bytes) -> None:
    """Replace (or add) one member of a zip file, in place."""
    temporary = fmu.with_name(fmu.name + ".rewrite")
    with zipfile.ZipFile(fmu) as source, zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename != member:
                target.writestr(info, source.read(info.filename))
        target.writestr(member, data)
    os.replace(temporary, fmu)


def add_numba_cache(fmu: Path, cls, stage: Path, vendor: str, carried: Sequence[str],
                    warm_ups: Sequence[str] = (), vehicle_file: Optional[str] = None) -> None:
    """Compile the FMU's own cache (`warm_up`) and ship it (`ship_cache`)."""
    warm_up(cls, stage, vendor, warm_ups, vehicle_file)
    ship_cache(fmu, stage, vendor, carried)


def warm_up(cls, stage: Path, vendor: str, warm_ups: Sequence[str] = (), vehicle_file: Optional[str] = None) -> None:
    """Initialise and step the slave once from the stage (numba compiles and writes its cache
    next to the staged sources, whose times are pinned), then call the spec's `numba_warm_up`
    functions. See auv_cosim/compiled/shipped_cache.py."""
    instance = cls(instance_name="numba_warm_up", resources=str(stage))
    instance.setup_experiment(0.0)
    instance.enter_initialization_mode()
    instance.exit_initialization_mode()
    if not instance.do_step(0.0, 0.1):
        raise SystemExit(f"{cls.__name__}: the warm-up step failed: "
                         f"{[m.msg for m in instance.log_queue]}")
    instance.terminate()
    for entry in warm_ups:
        module_name, _, function = entry.partition(":")
        module = importlib.import_module(f"{vendor}.{module_name}")
        getattr(module, function)(str(stage / vehicle_file) if vehicle_file else None)


def ship_cache(fmu: Path, stage: Path, vendor: str, carried: Sequence[str]) -> None:
    """Ship the cache files of the carried modules found under `stage` in the FMU (pythonfmu's
    builder leaves every __pycache__ out)."""
    cache_files = fmu_code.carried_caches(stage / vendor, carried)
    if not cache_files:
        return
    with zipfile.ZipFile(fmu, "a", zipfile.ZIP_DEFLATED) as archive:
        for path in cache_files:
            archive.write(path, f"resources/{path.relative_to(stage).as_posix()}")


# ------------------------------------------------------------------------------ a group's cache (child)
def group_digest(specs: Sequence[FmuSpec], root: Path, extra: Sequence[Path], vendor: str) -> str:
    """The hash of a cache group: of every member's sources (source_digest)."""
    digest = hashlib.sha256()
    for spec in specs:
        digest.update(source_digest(spec, root, extra, vendor).encode())
    return digest.hexdigest()


def group_cache_dir(compiled: Path, group: str, digest: str) -> Path:
    return compiled / f"{group}-{digest[:16]}"


def build_group_cache(specs: Sequence[FmuSpec], folder: Path, vendor: str, root: Path = ROOT) -> None:
    """Compile a cache group's numba cache once: the package staged in `folder`/stage (a path
    of the destination's, not a temporary one: numba's cache names the source it compiled), then
    every member's slave stepped and its warm-ups run, in this one interpreter; `folder`/complete
    marks it done. Run this in a fresh interpreter (see main)."""
    stage = folder / "stage"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    scripts = [stage_sources(spec, stage, vendor, root, package=(i == 0)) for i, spec in enumerate(specs)]
    sys.path.insert(0, str(stage))
    importlib.invalidate_caches()
    for spec, script in zip(specs, scripts):
        cls, _meta, _capabilities = slave_metadata(script, stage)
        warm_up(cls, stage, vendor, spec.numba_warm_up, spec.vehicle_file)
    (folder / "complete").write_text(",".join(spec.name for spec in specs) + "\n")


def bytecode_member(source_member: str) -> str:
    """Where Python looks for the bytecode of the zip member `source_member` (a .py file) once
    the FMU is extracted: `__pycache__/<name>.<cache tag>.pyc` beside it."""
    folder, _, name = source_member.rpartition("/")
    return f"{folder}/__pycache__/{name[:-3]}.{sys.implementation.cache_tag}.pyc"


def add_bytecode(fmu: Path) -> None:
    """Ship the bytecode of every Python source under resources/, checked against the source's
    hash rather than its modification time (which an unzip does not keep): without it a fresh
    extraction compiles every module it imports (about 50 ms of the Auv start-up), and so does
    every process that may not write bytecode (PYTHONDONTWRITEBYTECODE, a read-only folder).
    A source edited after extraction no longer matches its hash and is compiled as usual; a
    host on another Python version looks for another cache tag and ignores these files."""
    import py_compile

    with zipfile.ZipFile(fmu) as archive:
        sources = {name: archive.read(name) for name in archive.namelist()
                   if name.startswith("resources/") and name.endswith(".py")}
    with tempfile.TemporaryDirectory(prefix="bytecode-") as temporary, \
            zipfile.ZipFile(fmu, "a", zipfile.ZIP_DEFLATED) as archive:
        source_file, bytecode_file = Path(temporary) / "module.py", Path(temporary) / "module.pyc"
        for name, source in sorted(sources.items()):
            source_file.write_bytes(source)
            py_compile.compile(str(source_file), cfile=str(bytecode_file), dfile=name, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            archive.write(bytecode_file, bytecode_member(name))


# ------------------------------------------------------------------------------ requirements
#: run in a fresh interpreter on an extracted FMU's resources (argv: resources, slave module):
#: create the slave as the native wrapper does, initialise it and step it once, then print the
#: top-level modules the process holds (what the slave really imported, with what they import)
_IMPORTED_PROBE = r"""
import importlib, json, sys
resources, module_name = sys.argv[1], sys.argv[2]
before = set(sys.modules)
asked = set()   # top-level packages first imported by the FMU's own code (also by name)
class Watch:
    def find_spec(self, name, path=None, target=None):
        if "." not in name and name not in sys.modules:
            frame = sys._getframe(1)
            while frame and ("importlib" in frame.f_code.co_filename or frame.f_code.co_filename.startswith("<")):
                frame = frame.f_back
            where = frame.f_code.co_filename if frame else ""
            if where.startswith(resources) and "/pythonfmu/" not in where:
                asked.add(name)
        return None
sys.meta_path.insert(0, Watch())
sys.path.insert(0, resources)
module = importlib.import_module(module_name)
from pythonfmu import Fmi2Slave
cls = next(c for c in vars(module).values() if isinstance(c, type) and issubclass(c, Fmi2Slave)
           and c.__module__ == module.__name__)
slave = cls(instance_name="requirements", resources=resources, fmi2_exception_status=True)
slave.setup_experiment(0.0)
slave.enter_initialization_mode()
slave.exit_initialization_mode()
slave.do_step(0.0, 0.1)
new = set(sys.modules) - before
files = sorted({getattr(sys.modules[name], "__file__", None) or "" for name in new} - {""})
print(json.dumps({"modules": sorted({name.partition(".")[0] for name in new}), "files": files,
                  "asked": sorted(asked)}))
"""


def _module_level_imports(files: Iterable[Path]) -> set:
    """The top-level names of the absolute imports these Python files make when imported: at
    module level, also under `try` / `if` (an optional package), not inside a function (what a
    function imports when called, e.g. yaml for a file only the build reads, is not counted);
    and every module they import by a literal name (`import_alone("scipy.integrate._ode")`)."""
    import ast

    def statements(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            yield node
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from statements(inner)

    def by_name(tree):   # import_module("x.y"), import_alone("x.y"), __import__("x"): anywhere
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str) and (
                        getattr(node.func, "attr", None) or getattr(node.func, "id", None)) in (
                        "import_module", "import_alone", "__import__"):
                yield node.args[0].value.partition(".")[0]

    names = set()
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        names.update(by_name(tree))
        for node in statements(tree.body):
            if isinstance(node, ast.Import):
                names.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names.add(node.module.partition(".")[0])
    return names


def requirements_text(fmu: Path) -> str:
    """resources/requirements.txt of a built FMU: the distributions of the packages that a run
    of it really loads (instantiate, initialise, one step, in a fresh interpreter on the
    extracted FMU) AND that its own code imports (a module-level import of the slave or of a
    carried module that run loaded, or a package its code was the first to import, also by
    name as `import_alone("scipy.integrate._ode")` does): so neither what only the build uses (pyyaml, pydantic: the
    vehicle file is resolved at build) nor what those packages import themselves (llvmlite and
    yaml come with numba). Each pinned to the version the build ran with."""
    from importlib import metadata

    with tempfile.TemporaryDirectory(prefix="requirements-") as folder, zipfile.ZipFile(fmu) as archive:
        archive.extractall(folder)
        resources = Path(folder) / "resources"
        module_name = (resources / "slavemodule.txt").read_text().strip()
        run = subprocess.run([sys.executable, "-I", "-c", _IMPORTED_PROBE, str(resources), module_name],
                             cwd=folder, capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"{fmu.name}: cannot list what the slave imports:\n{run.stderr[-2000:]}")
        found = json.loads(run.stdout.strip().splitlines()[-1])
        loaded = set(found["modules"])
        carried = {path.parts[0] for path in (p.relative_to(resources) for p in resources.iterdir())}
        ours = [Path(f) for f in found["files"] if f.endswith(".py") and Path(f).is_relative_to(resources)
                and "pythonfmu" not in Path(f).relative_to(resources).parts]
        stated = _module_level_imports(ours) | set(found["asked"])
    third_party = (stated & loaded) - set(sys.stdlib_module_names) - {Path(c).stem for c in carried}
    distributions = metadata.packages_distributions()
    pins = sorted({f"{dist}=={metadata.version(dist)}" for name in third_party
                   for dist in distributions.get(name, [name])[:1]}, key=str.lower)
    lines = [f"# What {fmu.stem}.fmu imports to run, pinned to the versions it was built and tested with",
             f"# (CPython {sys.version_info.major}.{sys.version_info.minor}). Install into the Python "
             f"the host uses: python -m pip install -r requirements.txt",
             *pins]
    return "\n".join(lines) + "\n"


def add_requirements(fmu: Path) -> str:
    """Write resources/requirements.txt into the FMU (in place); returns its text."""
    text = requirements_text(fmu)
    rewrite_zip_member(fmu, "resources/requirements.txt", text.encode())
    return text


# ------------------------------------------------------------------------------ validation
def validate(fmu: Path, use_fmutool: bool = True) -> List[str]:
    """Problems found by fmpy's validator and by `fmutool -input FMU -check` (empty: valid)."""
    from fmpy.validation import validate_fmu

    problems = [f"fmpy: {p}" for p in validate_fmu(str(fmu))]
    if use_fmutool:
        fmutool = shutil.which("fmutool") or str(Path(sys.executable).with_name("fmutool"))
        if not Path(fmutool).exists():
            print(f"  note: fmutool not found, {fmu.name} checked with fmpy only "
                  f"(pip install fmu-manipulation-toolbox)", flush=True)
        else:
            run = subprocess.run([fmutool, "-input", str(fmu), "-check"], capture_output=True,
                                 text=True)
            errors = [line for line in (run.stdout + run.stderr).splitlines()
                      if "ERROR" in line or "FATAL" in line]
            if run.returncode != 0 or errors:
                problems += [f"fmutool: {line.strip()}" for line in errors] or \
                            [f"fmutool: exit status {run.returncode}"]
    return problems


# ------------------------------------------------------------------------------ one FMU (child)
def slave_metadata(script: Path, stage: Path):
    """Instantiate the slave as pythonfmu does and read its units, dependencies and flags."""
    from pythonfmu.builder import get_model_class

    if str(script.parent) not in sys.path:
        sys.path.insert(0, str(script.parent))  # get_model_class imports the script by name
    cls = get_model_class(script)
    instance = cls(instance_name="build_fmus", resources=str(stage))
    meta = getattr(instance, "fmu_meta", {}) or {}
    capabilities = dict(getattr(cls, "fmu_capabilities", {}) or {})
    return cls, meta, capabilities


def build_one(spec: FmuSpec, dest: Path, check: bool = True, root: Path = ROOT,
              vendor: Optional[str] = None, shared_cache: Optional[Path] = None) -> Path:
    """Stage, build, complete and validate one FMU; move it to dest/<name>.fmu. Run this in a
    fresh interpreter (see main): it imports the slave and the package from the stage.
    `shared_cache`: the folder of the FMU's group cache (build_group_cache), shipped instead of
    a cache of its own."""
    from pythonfmu.builder import FmuBuilder

    vendor = vendor or fmu_code.vendor_name(root)
    carried = fmu_code.carried_files(root, _script_path(spec, root))
    with tempfile.TemporaryDirectory(prefix=f"build-{spec.name}-") as temporary:
        stage, carried_stage, out = (Path(temporary) / name for name in ("stage", "carried", "out"))
        for folder in (stage, carried_stage, out):
            folder.mkdir()
        script = stage_sources(spec, stage, vendor, root)
        project_files = stage_carried(spec, carried, carried_stage, vendor, root)
        sys.path.insert(0, str(stage))  # the slave and the package from the stage
        importlib.invalidate_caches()
        cls, meta, capabilities = slave_metadata(script, stage)
        if cls.__name__ != spec.name:
            raise SystemExit(f"{spec.script}: the slave class is {cls.__name__}, expected {spec.name}")
        built = Path(FmuBuilder.build_FMU(script, dest=out, project_files=project_files))
        with zipfile.ZipFile(built) as archive:
            xml_text = archive.read("modelDescription.xml")
        completed, warnings = complete_model_description(xml_text, meta, capabilities)
        rewrite_zip_member(built, "modelDescription.xml", completed)
        if spec.ship_numba_cache and shared_cache is not None:
            ship_cache(built, shared_cache / "stage", vendor, carried)
        elif spec.ship_numba_cache:
            add_numba_cache(built, cls, stage, vendor, carried, spec.numba_warm_up, spec.vehicle_file)
        add_bytecode(built)
        add_requirements(built)
        _native_wrapper().install(built, spec.name)  # the project's Linux binary, if it compiles
        for warning in warnings:
            print(f"  {spec.name}: warning: {warning}")
        if check:
            problems = validate(built)
            if problems:
                for problem in problems:
                    print(f"  {spec.name}: {problem}", file=sys.stderr)
                raise SystemExit(f"{spec.name}: the FMU does not validate")
        dest.mkdir(parents=True, exist_ok=True)
        target = dest / f"{spec.name}.fmu"
        partial = dest / f".tmp-{spec.name}-{os.getpid()}.fmu"
        shutil.copyfile(built, partial)
        os.replace(partial, target)
        return target


# ------------------------------------------------------------------------------ driver
@contextlib.contextmanager
def build_lock(dest: Path):
    """One build at a time per destination (two shells, a test and build.sh...)."""
    dest.mkdir(parents=True, exist_ok=True)
    with open(dest / LOCK_NAME, "w") as handle:
        try:
            import fcntl
            fcntl.flock(handle, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - Windows: no lock
            pass
        yield


def _spec_json(spec: FmuSpec) -> str:
    return json.dumps({"name": spec.name, "script": spec.script, "vehicle_file": spec.vehicle_file,
                       "vehicle_base": spec.vehicle_base, "numba_warm_up": list(spec.numba_warm_up),
                       "ship_numba_cache": spec.ship_numba_cache, "cache_group": spec.cache_group,
                       "vehicle_files": spec.vehicle_files})


def _spec_from(fields: dict) -> FmuSpec:
    return FmuSpec(fields["name"], fields["script"], fields.get("vehicle_file"), fields.get("vehicle_base", ""),
                   tuple(fields.get("numba_warm_up", ())), fields.get("ship_numba_cache", True),
                   fields.get("cache_group", ""), fields.get("vehicle_files"))


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root) if path.is_relative_to(root) else path)


def build_all(specs: Sequence[FmuSpec], dest: Path, force: bool = False, check: bool = True,
              root: Path = ROOT, child_args: Sequence[str] = (), quiet: bool = False,
              extra_sources: Sequence[Path] = (), runner: Optional[Path] = None,
              jobs: Optional[int] = None, all_specs: Sequence[FmuSpec] = FMUS,
              compiled: Optional[Path] = None) -> int:
    """Build every stale FMU of `specs`, and the group caches they need (their groups as
    `all_specs` has them, kept under `compiled`, default dest/.compiled), in a child process
    each, `jobs` at a time; returns the number of failures. A member's stamp is its sources'
    hash and its group's: a change to any member rebuilds them all, as one at a time would."""
    import concurrent.futures as cf

    runner = runner or Path(__file__).resolve()
    vendor = fmu_code.vendor_name(root)
    jobs = jobs or default_jobs()
    common = ["--root", str(root), "--dest", str(dest), "--vendor", vendor, *child_args]
    compiled = compiled or dest / COMPILED_DIR
    failures = 0
    with build_lock(dest):
        # the cache group of each FMU that has one: its members (as all_specs has them) and folder
        groups: Dict[str, Path] = {}
        group_members: Dict[str, List[FmuSpec]] = {}
        for spec in specs:
            if spec.cache_group and spec.ship_numba_cache and spec.cache_group not in groups:
                members = [s for s in all_specs if s.cache_group == spec.cache_group and s.ship_numba_cache
                           and _script_path(s, root).exists()]
                folder = group_cache_dir(compiled, spec.cache_group, group_digest(members, root, extra_sources, vendor))
                groups[spec.cache_group], group_members[spec.cache_group] = folder, members
        stale: List[Tuple[FmuSpec, str]] = []
        for spec in specs:
            if not _script_path(spec, root).exists():
                print(f"build_fmus: skipping {spec.name}: {spec.script} does not exist yet", flush=True)
                continue
            digest = source_digest(spec, root, extra_sources, vendor)
            if spec.cache_group in groups:
                digest += " " + groups[spec.cache_group].name
            stamp = dest / f"{STAMP_PREFIX}{spec.name}"
            target = dest / f"{spec.name}.fmu"
            if not force and target.exists() and stamp.exists() and stamp.read_text().strip() == digest:
                if not quiet:
                    print(f"build_fmus: {_shown(target, root)} is up to date", flush=True)
                continue
            stale.append((spec, digest))
        # the group caches the stale FMUs need, built first unless a build left them complete
        needed = {spec.cache_group for spec, _ in stale if spec.cache_group in groups}
        groups = {g: f for g, f in groups.items() if g in needed}

        def child(arguments: List[str]) -> Tuple[int, float]:
            started = time.perf_counter()
            result = subprocess.run([sys.executable, str(runner), *arguments, *common,
                                     *([] if check else ["--no-check"])], cwd=str(root))
            return result.returncode, time.perf_counter() - started

        def fmu_task(spec: FmuSpec) -> List[str]:
            shared = groups.get(spec.cache_group) if spec.ship_numba_cache else None
            return ["--child-spec", _spec_json(spec)] + (["--shared-cache", str(shared)] if shared else [])

        with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
            running: Dict[cf.Future, Tuple[str, object]] = {}
            waiting: Dict[str, List[Tuple[FmuSpec, str]]] = {}
            for group, folder in groups.items():
                if force or not (folder / "complete").is_file():
                    for old in compiled.glob(f"{group}-*"):   # this group's older caches go too
                        shutil.rmtree(old, ignore_errors=True)
                    folder.mkdir(parents=True, exist_ok=True)
                    members = json.dumps([json.loads(_spec_json(s)) for s in group_members[group]])
                    running[pool.submit(child, ["--child-cache", members, "--cache-folder", str(folder)])] = ("group", group)
                    waiting[group] = []
            for spec, digest in stale:
                group = spec.cache_group if spec.ship_numba_cache else ""
                if group in waiting:
                    waiting[group].append((spec, digest))
                else:
                    running[pool.submit(child, fmu_task(spec))] = ("fmu", (spec, digest))
            while running:
                done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    kind, what = running.pop(future)
                    status, seconds = future.result()
                    if kind == "group":
                        members = waiting.pop(what)
                        if status != 0:
                            failures += len(members)
                            print(f"build_fmus: FAILED to compile the cache of {what} "
                                  f"({', '.join(s.name for s, _ in members)} not built)", file=sys.stderr, flush=True)
                            continue
                        print(f"build_fmus: compiled the cache {what} shares ({', '.join(s.name for s in group_members[what])}) "
                              f"in {seconds:.1f} s", flush=True)
                        for spec, digest in members:
                            running[pool.submit(child, fmu_task(spec))] = ("fmu", (spec, digest))
                        continue
                    spec, digest = what
                    stamp, target = dest / f"{STAMP_PREFIX}{spec.name}", dest / f"{spec.name}.fmu"
                    if status != 0:
                        failures += 1
                        stamp.unlink(missing_ok=True)
                        print(f"build_fmus: FAILED to build {spec.name}", file=sys.stderr, flush=True)
                        continue
                    stamp.write_text(digest + "\n")
                    print(f"build_fmus: built {target} in {seconds:.1f} s{'' if check else ' (not validated)'}", flush=True)
    return failures


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="FMUs to build (default: all)")
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST, help="output folder (fmus/)")
    parser.add_argument("--force", action="store_true", help="rebuild even when up to date")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="skip fmpy validate and fmutool -check")
    parser.add_argument("-q", "--quiet", action="store_true", help="say nothing when up to date")
    parser.add_argument("--jobs", type=int, default=None,
                        help=f"children at a time (default: one per core, at most 2: here {default_jobs()})")
    parser.add_argument("--list", action="store_true", help="print the names of the FMUs it builds, and stop")
    parser.add_argument("--survey", action="store_true", help="only the FMUs of the survey scenario")
    parser.add_argument("--others", action="store_true", help="only the FMUs that are not the survey's")
    parser.add_argument("--compiled", type=Path, help="where the group caches are kept (default: DEST/.compiled)")
    parser.add_argument("--child-cache", help=argparse.SUPPRESS)   # JSON list of FmuSpec: a group's cache
    parser.add_argument("--cache-folder", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--shared-cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-spec", help=argparse.SUPPRESS)  # JSON FmuSpec: build it here
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--vendor", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    specs = {spec.name: spec for spec in FMUS}
    if args.list:
        print("\n".join(specs))
        return 0
    if args.child_cache:
        build_group_cache([_spec_from(f) for f in json.loads(args.child_cache)], args.cache_folder.resolve(),
                          args.vendor, root=args.root.resolve())
        return 0
    if args.child_spec:
        build_one(_spec_from(json.loads(args.child_spec)), args.dest.resolve(), check=args.check,
                  root=args.root.resolve(), vendor=args.vendor,
                  shared_cache=args.shared_cache.resolve() if args.shared_cache else None)
        return 0
    unknown = [name for name in args.names if name not in specs]
    if unknown:
        parser.error(f"unknown FMU {', '.join(unknown)} (known: {', '.join(specs)})")
    chosen = [specs[name] for name in args.names] if args.names else list(FMUS)
    if args.survey or args.others:
        survey = scenario_fmus("survey")
        chosen = [spec for spec in chosen if (spec.name in survey) == args.survey]
    failures = build_all(chosen, args.dest.resolve(), force=args.force, check=args.check,
                         quiet=args.quiet, jobs=args.jobs,
                         compiled=args.compiled.resolve() if args.compiled else None)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
