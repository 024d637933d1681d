"""The build's driver: every stale FMU built in a fresh interpreter of its own (a child,
``python -m auv_cosim.build``), ``--jobs`` at a time, the caches a group of FMUs shares compiled
once; each FMU staged, built by pythonfmu, completed, shipped with its caches, validated, and
only then moved into the destination with its stamp (auv_cosim/build/__init__.py)."""
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
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import carry, native_wrapper
from .description import complete_model_description, rewrite_zip_member
from .shipping import add_bytecode, add_numba_cache, add_requirements, ship_cache, validate, warm_up
from .specs import (COMPILED_DIR, LOCK_NAME, ROOT, STAMP_PREFIX, FmuSpec, _script_path, _unit_of, default_jobs,
                    registered_specs, scenario_fmus, source_digest, stage_carried, stage_sources,
                    unit_package_files)


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
    return cls, meta, capabilities, tuple(getattr(instance, "fmu_exchanges", ()) or ())


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
        cls, _meta, _capabilities, _exchanges = slave_metadata(script, stage)
        warm_up(cls, stage, vendor, spec.numba_warm_up, spec.vehicle_file)
    (folder / "complete").write_text(",".join(spec.name for spec in specs) + "\n")


def build_one(spec: FmuSpec, dest: Path, check: bool = True, root: Path = ROOT,
              vendor: Optional[str] = None, shared_cache: Optional[Path] = None) -> Path:
    """Stage, build, complete and validate one FMU; move it to dest/<name>.fmu. Run this in a
    fresh interpreter (see main): it imports the slave and the package from the stage.
    `shared_cache`: the folder of the FMU's group cache (build_group_cache), shipped instead of
    a cache of its own."""
    from pythonfmu.builder import FmuBuilder

    vendor = vendor or carry.vendor_name(root)
    carried = carry.carried_files(root, _script_path(spec, root), also=unit_package_files(spec, root))
    with tempfile.TemporaryDirectory(prefix=f"build-{spec.name}-") as temporary:
        stage, carried_stage, out = (Path(temporary) / name for name in ("stage", "carried", "out"))
        for folder in (stage, carried_stage, out):
            folder.mkdir()
        script = stage_sources(spec, stage, vendor, root)
        project_files = stage_carried(spec, carried, carried_stage, vendor, root)
        sys.path.insert(0, str(stage))  # the slave and the package from the stage
        importlib.invalidate_caches()
        cls, meta, capabilities, exchanges = slave_metadata(script, stage)
        if cls.__name__ != spec.name:
            raise SystemExit(f"{spec.script}: the slave class is {cls.__name__}, expected {spec.name}")
        built = Path(FmuBuilder.build_FMU(script, dest=out, project_files=project_files))
        with zipfile.ZipFile(built) as archive:
            xml_text = archive.read("modelDescription.xml")
        completed, warnings = complete_model_description(xml_text, meta, capabilities, exchanges,
                                                         drawing_of(spec, xml_text, root))
        rewrite_zip_member(built, "modelDescription.xml", completed)
        if spec.ship_numba_cache and shared_cache is not None:
            ship_cache(built, shared_cache / "stage", vendor, carried)
        elif spec.ship_numba_cache:
            add_numba_cache(built, cls, stage, vendor, carried, spec.numba_warm_up, spec.vehicle_file)
        add_bytecode(built)
        add_requirements(built)
        native_wrapper.install(built, spec.name)  # the project's Linux binary, if it compiles
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


def drawing_of(spec: FmuSpec, xml_text: bytes, root: Path = ROOT) -> Optional[dict]:
    """How a viewer draws the FMU (its unit's ``Drawing``, as the annotation's attributes), when
    the FMU is the one drawn: it outputs the drawing's position (or a cable's first point). The
    unit's other FMUs (its instruments and control, which take the position as an input) carry
    none."""
    from xml.etree import ElementTree as ET

    unit = _unit_of(spec, root)
    drawing = unit.drawing if unit is not None else None
    if drawing is None:
        return None
    first = drawing.first_variable()
    outputs = {v.get("name") for v in ET.fromstring(xml_text).iter("ScalarVariable") if v.get("causality") == "output"}
    return drawing.attributes() if first in outputs else None


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
              jobs: Optional[int] = None, all_specs: Optional[Sequence[FmuSpec]] = None,
              compiled: Optional[Path] = None, child_stdout=None) -> int:
    """Build every stale FMU of `specs`, and the group caches they need (their groups as
    `all_specs` has them, kept under `compiled`, default dest/.compiled), in a child process
    each, `jobs` at a time; returns the number of failures. A member's stamp is its sources'
    hash and its group's: a change to any member rebuilds them all, as one at a time would.
    ``child_stdout``: where the children's output goes (a file descriptor; default: this
    process's stdout)."""
    import concurrent.futures as cf

    runner = list(runner or [sys.executable, "-m", "auv_cosim.build"])
    all_specs = registered_specs(root) if all_specs is None else all_specs
    vendor = carry.vendor_name(root)
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
            result = subprocess.run([*runner, *arguments, *common,
                                     *([] if check else ["--no-check"])], cwd=str(root), stdout=child_stdout)
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


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """The build's command line (``tools/build_fmus.py`` of a clone, the build's children)."""
    from auv_cosim import units

    parser = argparse.ArgumentParser(prog=prog, description="Build the units' FMUs (auv_cosim/build/__init__.py).")
    parser.add_argument("names", nargs="*", help="FMUs to build (default: all)")
    parser.add_argument("--dest", type=Path, default=None,
                        help="output folder (default: fmus/ in a clone, else the per-user cache)")
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

    every = registered_specs()
    specs = {spec.name: spec for spec in every}
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
    chosen = [specs[name] for name in args.names] if args.names else list(every)
    if args.survey or args.others:
        survey = scenario_fmus("survey")
        chosen = [spec for spec in chosen if (spec.name in survey) == args.survey]
    dest = (args.dest or units.fmu_folder()).resolve()
    failures = build_all(chosen, dest, force=args.force, check=args.check, quiet=args.quiet, jobs=args.jobs,
                         compiled=args.compiled.resolve() if args.compiled else None)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
