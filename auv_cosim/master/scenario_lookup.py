"""Where scenarios and FMUs are found: a scenario by its name in a registered unit's scenario
folder, an ``include:`` beside the including file, an FMU relative to the file that names it, the
clone, where the units' FMUs are built, or the working directory. Plain path logic, apart from
the loading and merging of auv_cosim/master/scenario.py."""

from __future__ import annotations

import os
from pathlib import Path

from auv_cosim import units


def scenario_folders() -> list[Path]:
    """The registered units' scenario folders (auv_cosim/units.py), where a scenario's name is
    looked up: the master knows no vehicle, so which scenarios there are is the units' word."""
    from auv_cosim import units

    return units.scenario_folders()


def find_scenario(text: str | os.PathLike) -> Path:
    """A scenario given as a path (a file), or by its name in a unit's scenario folder: ``survey``
    or ``survey.yaml``, ``stacks/survey`` for a stack file (the first unit's that has it). A
    name found nowhere is returned as given, for the loader to report."""
    p = Path(os.path.expanduser(str(text)))
    if p.is_file() or p.is_absolute():
        return p
    for folder in scenario_folders():
        for candidate in (folder / p, *(folder / f"{p}{ext}" for ext in (".yaml", ".yml") if not p.suffix)):
            if candidate.is_file():
                return candidate
    return p


def _included(rel: str, beside: Path) -> tuple[Path, Path]:
    """(the file an ``include:`` names, where it was first looked for): absolute as given;
    relative, beside the including file (``beside``, its folder), else the same relative name in
    a unit's scenario folder (a fleet scenario of one unit includes another unit's stack file by
    its name there: ``stacks/h100.yaml``)."""
    if os.path.isabs(rel):
        return Path(rel), Path(rel)
    first = beside / rel
    if first.is_file():
        return first, first
    for folder in scenario_folders():
        if (folder / rel).is_file():
            return folder / rel, first
    return first, first


def resolve_fmu_path(text: str, declared_in: Path | None) -> tuple[Path | None, list[Path]]:
    """Find an FMU named relative to the declaring file, the clone (when the package runs from
    one) or the cwd. A name ending in ``<Name>.fmu`` of a registered unit's FMU is looked for,
    before the cwd, where the units' FMUs are built (``units.fmu_folder()``: the clone's
    fmus/, else the per-user cache), so that ``fmus/Auv.fmu`` is the same FMU wherever the
    package runs."""
    p = Path(os.path.expanduser(text))
    if p.is_absolute():
        return (p if p.is_file() else None), [p]
    clone = units.checkout()
    bases = ([declared_in] if declared_in else []) + ([clone] if clone else [])
    candidates = [(base / p).resolve() for base in bases]
    if p.suffix == ".fmu" and p.stem in units.fmu_names():
        candidates.append(units.fmu_folder().resolve() / p.name)
    candidates.append((Path.cwd() / p).resolve())
    candidates = list(dict.fromkeys(candidates))
    for c in candidates:
        if c.is_file():
            return c, candidates
    return None, candidates


def fmu_reference(path: str | os.PathLike) -> str:
    """How a written scenario names an FMU found at ``path`` so that ``resolve_fmu_path`` finds
    it again wherever the package runs: a registered unit's FMU where the units' FMUs are built
    as ``fmus/<Name>.fmu``; a file inside the clone relative to it; anything else absolute."""
    p = Path(path).resolve()
    if p.suffix == ".fmu" and p.stem in units.fmu_names() and p.parent == units.fmu_folder().resolve():
        return f"fmus/{p.name}"
    clone = units.checkout()
    if clone is not None and p.is_relative_to(clone.resolve()):
        return p.relative_to(clone.resolve()).as_posix()
    return str(p)
