"""What a built FMU gets besides pythonfmu's archive: numba's cache of the modules it carries
(compiled by a step of its slave and its warm-ups), the bytecode of every carried source,
``resources/requirements.txt`` (what a run of it imports, pinned), and the validators' word
(fmpy's, and ``fmutool -check`` when the fmu-manipulation-toolbox is installed)."""
from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Iterable, List, Optional, Sequence

from . import carry
from .description import rewrite_zip_member


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
    cache_files = carry.carried_caches(stage / vendor, carried)
    if not cache_files:
        return
    with zipfile.ZipFile(fmu, "a", zipfile.ZIP_DEFLATED) as archive:
        for path in cache_files:
            archive.write(path, f"resources/{path.relative_to(stage).as_posix()}")

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


