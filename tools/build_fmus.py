#!/usr/bin/env python3
"""Build the project's FMUs into fmus/ with pythonfmu 0.7.0 and complete their modelDescription.

    python tools/build_fmus.py                 # build what changed (build.sh calls this)
    python tools/build_fmus.py --force Auv     # rebuild one FMU
    python tools/build_fmus.py --no-check      # skip fmpy validate / fmutool -check

For each FMU (table FMUS below) the script
1. hashes its sources (the slave script, the bundled packages, this file, pythonfmu's version)
   and skips the FMU when fmus/.build-stamp-NAME holds that hash and fmus/NAME.fmu exists;
2. copies the slave script and the packages it bundles, without caches, into a staging folder
   and runs pythonfmu's builder on them, in a child process so that every FMU is built from a
   fresh interpreter (no module of another FMU or of the project's own tree in sys.modules);
3. completes modelDescription.xml, which pythonfmu 0.7.0 leaves incomplete: <UnitDefinitions>
   with SI base-unit exponents (fmu_support/units.py), `unit` on every Real that has one, a
   legal variability on every variable, <ModelStructure> with <Outputs> (dependencies where the
   slave declared them) and <InitialUnknowns>, and the capability flags the slave declares
   (`fmu_capabilities`, e.g. canGetAndSetFMUstate / canSerializeFMUstate);
4. ships the bytecode of every bundled source (`add_bytecode`: checked against the source's
   hash, so that a fresh extraction does not compile what it imports);
5. checks the result with fmpy's validator and `fmutool -input X -check`, and only then moves
   it into fmus/ (atomically) and writes the stamp.

Units, descriptions and output dependencies come from the slave itself: slaves derived from
`fmu_support.FmuSlave` record them when they register a variable (`self.fmu_meta`).

Layout of an FMU: resources/<slave>.py (the script, imported as a top-level module named after
the file), resources/<package>/ for each bundled package (the script's own package without the
script), resources/pythonfmu/, and beside every source its bytecode in __pycache__ (with numba's
cache of the physics in the vehicles' vehicle_model/). pythonfmu puts resources/ first on
sys.path when the FMU is instantiated, so the bundled copies win over an installed (even editable) copy of the project,
unless the host process has already imported a module of the same name: Python then reuses that
one (see docs/using_auv_fmu.md).

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
    script: str                     # slave script, relative to ROOT
    packages: Tuple[str, ...]       # top-level packages bundled as project files
    numba_cache: Tuple[str, ...] = ()  # packages whose numba cache is compiled and shipped
    #: A vehicle built from a file (the H100): `script`'s slave class `vehicle_base` is
    #: written out as NAME_vehicle_fmu.py with class NAME and this `vehicle_file` (a module
    #: name of its own per FMU) unless both are already the script's. The file's folder goes
    #: in `packages`.
    vehicle_file: Optional[str] = None
    vehicle_base: str = ""
    #: "module:function" entries called with the staged vehicle file once the slave has stepped,
    #: in the same interpreter (so on the staged library): the cache also gets what another
    #: FMU sharing the library in one host calls of it (see controllers_fmu/h100/warm_up.py).
    #: The modules' top-level packages count in the FMU's source digest.
    numba_warm_up: Tuple[str, ...] = ()


FMUS: Tuple[FmuSpec, ...] = (
    FmuSpec("Auv", "vehicle_model/auv_vehicle_fmu.py", ("vehicle_model", "fmu_support"),
            numba_cache=("vehicle_model",)),
    # the AUV's instruments and control: their compiled kernels (controllers_fmu/sensor_kernel.py)
    # take numba from vehicle_model's switch; each ships the cache of both, as in the survey stack
    # the first to load brings controllers_fmu for the other (controllers_fmu/warm_up.py)
    FmuSpec("AuvSensors", "controllers_fmu/auv_sensors_fmu.py", ("controllers_fmu", "fmu_support", "vehicle_model"),
            numba_cache=("controllers_fmu",), numba_warm_up=("controllers_fmu.warm_up:exercise_kernels",)),
    FmuSpec("AuvControl", "controllers_fmu/auv_control_fmu.py", ("controllers_fmu", "fmu_support", "vehicle_model"),
            numba_cache=("controllers_fmu",), numba_warm_up=("controllers_fmu.warm_up:exercise_kernels",)),
    # the H100's instruments carry controllers_fmu, which the H100 stack then shares with its
    # control FMU (this one loads first): the cache of the control kernels ships here too
    FmuSpec("H100Sensors", "controllers_fmu/h100_sensors_fmu.py", ("controllers_fmu", "fmu_support"),
            numba_cache=("controllers_fmu",),
            numba_warm_up=("controllers_fmu.h100.warm_up:exercise_vehicle_library",)),
    # One line per H100 layout: the vehicle file fixes the number of thrusters (README, "H100").
    FmuSpec("H100", "vehicle_model/h100_vehicle_fmu.py", ("vehicle_model", "fmu_support", "vehicles"),
            numba_cache=("vehicle_model",), vehicle_file="vehicles/H100.yaml", vehicle_base="H100",
            numba_warm_up=("controllers_fmu.h100.warm_up:exercise_vehicle_library",)),
    # its control stack, one per layout too: the controllers' model of the vehicle is the vehicle
    # library on the same vehicle file
    FmuSpec("H100Control", "controllers_fmu/h100_control_fmu.py",
            ("controllers_fmu", "fmu_support", "vehicle_model", "vehicles"),
            numba_cache=("vehicle_model", "controllers_fmu"), vehicle_file="vehicles/H100.yaml",
            vehicle_base="H100Control", numba_warm_up=("controllers_fmu.h100.warm_up:exercise_vehicle_library",)),
    # seed 004's 6-thruster example (4 slanted + 2 longitudinal, rank 5): the vehicle and its
    # control stack, whose allocation and model are built on the same file (h100_six_thrusters)
    FmuSpec("H100_6", "vehicle_model/h100_vehicle_fmu.py", ("vehicle_model", "fmu_support", "vehicles"),
            numba_cache=("vehicle_model",), vehicle_file="vehicles/H100_6_slanted.yaml", vehicle_base="H100",
            numba_warm_up=("controllers_fmu.h100.warm_up:exercise_vehicle_library",)),
    FmuSpec("H100Control_6", "controllers_fmu/h100_control_fmu.py",
            ("controllers_fmu", "fmu_support", "vehicle_model", "vehicles"),
            numba_cache=("vehicle_model", "controllers_fmu"), vehicle_file="vehicles/H100_6_slanted.yaml",
            vehicle_base="H100Control", numba_warm_up=("controllers_fmu.h100.warm_up:exercise_vehicle_library",)),
)


def _native_wrapper():
    """tools/native_wrapper.py (compiles the project's FMI wrapper into each FMU)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import native_wrapper
    finally:
        sys.path.pop(0)
    return native_wrapper


# ------------------------------------------------------------------------------ sources
def _is_ignored(path: Path) -> bool:
    import fnmatch
    return any(fnmatch.fnmatch(part, pattern) for part in path.parts for pattern in IGNORED)


def package_files(root: Path, packages: Iterable[str]) -> List[Path]:
    """The files that go into the FMU from each package, relative to `root`, sorted."""
    files = []
    for package in packages:
        base = root / package
        for path in base.rglob("*"):
            relative = path.relative_to(root)
            if path.is_file() and not _is_ignored(relative):
                files.append(relative)
    return sorted(files)


def source_digest(spec: FmuSpec, root: Path = ROOT, extra: Sequence[Path] = ()) -> str:
    """A hash of everything that goes into the FMU or shapes it."""
    import pythonfmu
    digest = hashlib.sha256()
    digest.update(f"pythonfmu {pythonfmu.__version__}\n{spec!r}\n".encode())
    if spec.numba_cache:  # the shipped cache is only valid for this numba (and CPU)
        try:
            import numba
            digest.update(f"numba {numba.__version__} AUV_NO_JIT={os.environ.get('AUV_NO_JIT', '')}\n".encode())
        except ImportError:
            digest.update(b"no numba\n")
    for path in [Path(__file__).resolve(), *extra]:
        digest.update(path.read_bytes())
    digest.update(_native_wrapper().digest_text().encode())
    warm_up_packages = sorted({entry.split(".")[0] for entry in spec.numba_warm_up} - set(spec.packages))
    for relative in [Path(spec.script), *package_files(root, spec.packages), *package_files(root, warm_up_packages)]:
        digest.update(f"\0{relative.as_posix()}\0".encode())
        digest.update((root / relative).read_bytes())
    return digest.hexdigest()


def stage_sources(spec: FmuSpec, stage: Path, root: Path = ROOT) -> Path:
    """Copy the script and the packages into `stage`; returns the staged script."""
    for package in spec.packages:
        shutil.copytree(root / package, stage / package,
                        ignore=shutil.ignore_patterns(*IGNORED))
    script = stage / spec.script
    if not script.exists():
        script.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / spec.script, script)
    if spec.vehicle_file:
        text = script.read_text()
        declared = f'    vehicle_file = "{spec.vehicle_file}"\n'
        if spec.name != spec.vehicle_base or declared not in text:
            # pythonfmu finds the slave class in the script itself: write the script out again
            # under the FMU's name rather than import its class into a two-line subclass
            # (pythonfmu 0.7.0's wrapper fails a second instance of such a module).
            head, sep, tail = text.partition(f"class {spec.vehicle_base}(")
            if not sep:
                raise SystemExit(f"{spec.script}: no class {spec.vehicle_base}")
            tail = "\n".join(f'    vehicle_file = "{spec.vehicle_file}"' if line.startswith("    vehicle_file = ")
                             else line for line in tail.split("\n"))
            script = stage / f"{spec.name}_vehicle_fmu.py"
            script.write_text(f"{head}class {spec.name}({tail}")
    return script


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


def complete_model_description(xml_text: bytes, meta: Dict[str, dict],
                               capabilities: Dict[str, bool]) -> Tuple[bytes, List[str]]:
    """Return the completed modelDescription.xml and a list of warnings (e.g. no description)."""
    from fmu_support.units import base_unit_exponents

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
            if unit not in used_units:
                used_units.append(unit)
        else:
            warnings.append(f"{name}: no unit")
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


def add_numba_cache(fmu: Path, cls, stage: Path, packages: Sequence[str], warm_ups: Sequence[str] = (),
                    vehicle_file: Optional[str] = None) -> None:
    """Initialise and step the slave once from the stage (numba compiles and writes its cache
    next to the staged sources, whose times are pinned), call the spec's `numba_warm_up`
    functions, then ship the cache files in the FMU (pythonfmu's builder leaves every
    __pycache__ out). See fmu_support/numba_cache.py."""
    instance = cls(instance_name="numba_warm_up", resources=str(stage))
    instance.setup_experiment(0.0)
    instance.enter_initialization_mode()
    instance.exit_initialization_mode()
    if not instance.do_step(0.0, 0.1):
        raise SystemExit(f"{cls.__name__}: the warm-up step failed: "
                         f"{[m.msg for m in instance.log_queue]}")
    instance.terminate()
    # the warm-ups import as a host of the FMU would: without the folder of a script staged inside
    # a package on sys.path (slave_metadata puts it there), where a module of the package would
    # shadow a library of the same name (controllers_fmu/control.py, python-control's `control`)
    saved_path = list(sys.path)
    sys.path[:] = [entry for entry in sys.path if not _inside_package_of(Path(entry), stage)]
    try:
        for entry in warm_ups:
            module_name, _, function = entry.partition(":")
            getattr(importlib.import_module(module_name), function)(str(stage / vehicle_file) if vehicle_file else None)
    finally:
        sys.path[:] = saved_path
    cache_files = sorted(path for package in packages for pattern in ("*.nbi", "*.nbc")
                         for path in (stage / package).rglob(f"__pycache__/{pattern}"))
    if not cache_files:
        print(f"  {cls.__name__}: warning: no numba cache written (numba missing or AUV_NO_JIT set)")
        return
    with zipfile.ZipFile(fmu, "a", zipfile.ZIP_DEFLATED) as archive:
        for path in cache_files:
            archive.write(path, f"resources/{path.relative_to(stage).as_posix()}")


def _inside_package_of(folder: Path, stage: Path) -> bool:
    """Whether `folder` is a folder below the stage (a package's), not the stage itself."""
    try:
        folder, stage = folder.resolve(), stage.resolve()
    except OSError:
        return False
    return folder != stage and stage in folder.parents


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
              post_stage=None) -> Path:
    """Stage, build, complete and validate one FMU; move it to dest/<name>.fmu. Run this in a
    fresh interpreter (see main): it imports the slave and the packages from the stage."""
    from pythonfmu.builder import FmuBuilder

    with tempfile.TemporaryDirectory(prefix=f"build-{spec.name}-") as temporary:
        stage = Path(temporary) / "stage"
        out = Path(temporary) / "out"
        stage.mkdir()
        out.mkdir()
        script = stage_sources(spec, stage, root)
        if spec.numba_cache:
            from fmu_support.numba_cache import pin_source_times
            for package in spec.numba_cache:
                pin_source_times(str(stage / package))
        if post_stage is not None:
            post_stage(stage, script)
        sys.path.insert(0, str(stage))  # `import vehicle_model` etc. from the stage
        importlib.invalidate_caches()
        cls, meta, capabilities = slave_metadata(script, stage)
        if cls.__name__ != spec.name:
            raise SystemExit(f"{spec.script}: the slave class is {cls.__name__}, expected {spec.name}")
        project_files = [stage / package for package in spec.packages]
        built = Path(FmuBuilder.build_FMU(script, dest=out, project_files=project_files))
        with zipfile.ZipFile(built) as archive:
            xml_text = archive.read("modelDescription.xml")
        completed, warnings = complete_model_description(xml_text, meta, capabilities)
        rewrite_zip_member(built, "modelDescription.xml", completed)
        if spec.numba_cache:
            add_numba_cache(built, cls, stage, spec.numba_cache, spec.numba_warm_up, spec.vehicle_file)
        add_bytecode(built)
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


def build_all(specs: Sequence[FmuSpec], dest: Path, force: bool = False, check: bool = True,
              root: Path = ROOT, child_args: Sequence[str] = (), quiet: bool = False,
              extra_sources: Sequence[Path] = (), runner: Optional[Path] = None) -> int:
    """Build every stale FMU of `specs` in a child process each; returns the number of failures."""
    failures = 0
    runner = runner or Path(__file__).resolve()
    with build_lock(dest):
        for spec in specs:
            if not (root / spec.script).exists():
                print(f"build_fmus: skipping {spec.name}: {spec.script} does not exist yet", flush=True)
                continue
            digest = source_digest(spec, root, extra_sources)
            stamp = dest / f"{STAMP_PREFIX}{spec.name}"
            target = dest / f"{spec.name}.fmu"
            if not force and target.exists() and stamp.exists() and stamp.read_text().strip() == digest:
                if not quiet:
                    print(f"build_fmus: {target.relative_to(root) if target.is_relative_to(root) else target}"
                          f" is up to date", flush=True)
                continue
            started = time.perf_counter()
            command = [sys.executable, str(runner), "--child-spec",
                       json.dumps({"name": spec.name, "script": spec.script,
                                   "packages": list(spec.packages),
                                   "numba_cache": list(spec.numba_cache),
                                   "vehicle_file": spec.vehicle_file,
                                   "vehicle_base": spec.vehicle_base,
                                   "numba_warm_up": list(spec.numba_warm_up)}),
                       "--root", str(root), "--dest", str(dest), *child_args,
                       *([] if check else ["--no-check"])]
            result = subprocess.run(command, cwd=str(root))
            if result.returncode != 0:
                failures += 1
                stamp.unlink(missing_ok=True)
                print(f"build_fmus: FAILED to build {spec.name}", file=sys.stderr, flush=True)
                continue
            stamp.write_text(digest + "\n")
            print(f"build_fmus: built {target} in {time.perf_counter() - started:.1f} s"
                  f"{'' if check else ' (not validated)'}", flush=True)
    return failures


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="FMUs to build (default: all)")
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST, help="output folder (fmus/)")
    parser.add_argument("--force", action="store_true", help="rebuild even when up to date")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="skip fmpy validate and fmutool -check")
    parser.add_argument("-q", "--quiet", action="store_true", help="say nothing when up to date")
    parser.add_argument("--child-spec", help=argparse.SUPPRESS)  # JSON FmuSpec: build it here
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    specs = {spec.name: spec for spec in FMUS}
    if args.child_spec:
        fields = json.loads(args.child_spec)
        spec = FmuSpec(fields["name"], fields["script"], tuple(fields["packages"]),
                       tuple(fields.get("numba_cache", ())), fields.get("vehicle_file"),
                       fields.get("vehicle_base", ""), tuple(fields.get("numba_warm_up", ())))
        sys.path.insert(0, str(ROOT))  # fmu_support for the unit table (the stage comes first)
        build_one(spec, args.dest.resolve(), check=args.check, root=args.root.resolve())
        return 0
    unknown = [name for name in args.names if name not in specs]
    if unknown:
        parser.error(f"unknown FMU {', '.join(unknown)} (known: {', '.join(specs)})")
    chosen = [specs[name] for name in args.names] if args.names else list(FMUS)
    failures = build_all(chosen, args.dest.resolve(), force=args.force, check=args.check,
                         quiet=args.quiet)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
