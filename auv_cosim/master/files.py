"""How a command writes a file: whole or not at all, and never over what it was not asked to
replace.

    target = output_target(out, option="OUT", inputs=scenario_files, force=args.force)
    write_whole(target, lambda f: f.write(data))

``output_target`` refuses, as a ScenarioError naming the option and the path (exit 2 on the
command line, before anything is written):

- a folder (a file is asked for);
- one of the command's inputs (the scenario, an FMU it packs, the results it reads), also with
  ``force``: the command would destroy what it reads;
- an existing file, unless ``force`` (the command's ``--force``) or ``replaceable``: a file the
  command owns, such as a run's own files in its output folder, is replaced without asking.

``write_whole`` writes a temporary file beside the target and renames it over the target once
it is complete: an interrupted or failed write leaves the target as it was and no temporary
file behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO, Callable, Iterable


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one file (through links and relative paths alike)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def output_target(path: str | os.PathLike, *, option: str, inputs: Iterable[str | os.PathLike] = (),
                  force: bool = False, replaceable: bool = False) -> Path:
    """``path`` as a file the command may write (see the module documentation), or a
    ScenarioError naming ``option`` and the path."""
    from .scenario import ScenarioError, display_path  # (write_whole alone imports no pydantic)

    target = Path(path)
    shown = display_path(target)
    if target.is_dir():
        raise ScenarioError(option, shown, "is a folder; give the file to write")
    for source in inputs:
        if target.exists() and same_file(target, source):
            raise ScenarioError(option, shown, f"is one of this command's inputs; writing it would destroy what it "
                                               f"reads: choose another {option}")
    if (target.exists() or target.is_symlink()) and not (force or replaceable):
        raise ScenarioError(option, shown, f"exists; give --force to replace it, or choose another {option}")
    return target


def write_whole(path: str | os.PathLike, write: Callable[[IO[bytes]], None] | bytes | str) -> Path:
    """Write ``path`` whole or not at all: ``write`` (bytes, text in UTF-8, or a function given
    the open binary file) goes into a temporary file in the same folder, which is then renamed
    over ``path``. On any failure (an interrupt too) the temporary file is removed and ``path``
    is as it was."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    try:
        # mkstemp makes the file private (0600); the target gets the mode any file made by this
        # process gets (0666 less the umask)
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            if callable(write):
                write(f)
            else:
                f.write(write.encode("utf-8") if isinstance(write, str) else write)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


def _umask() -> int:
    """The process's file creation mask, read from /proc where it can be: setting the mask to
    read it back would change it for a moment for every thread."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_parameter(name: str, value, folder: Path):
    """A scenario's String parameter whose name ends in ``File`` (a vehicle's ``BathymetryFile``)
    given as a relative path names the file beside the scenario file that sets it, as an
    ``include:`` does, when there is one: it is passed as that file's absolute path, so that a
    scenario and its data fly from any folder (a unit's scenarios are package data). Any other
    value is passed as it is (an FMU reads a relative path from the folder the run starts in)."""
    if not (name.endswith("File") and isinstance(value, str) and value.strip()):
        return value
    path = Path(os.path.expanduser(value))
    if path.is_absolute():
        return value
    beside = folder / path
    return str(beside.resolve()) if beside.is_file() else value

