"""A run's output folder: checked, locked, and changed only once the run is accepted.

A run writes its files (results.csv, scenario.resolved.yaml, the writers' results.mcap,
rosbag/ ...) into a hidden staging folder inside the output folder, ``.run.XXXX.partial/``. The
run is **accepted** when it has made its first step (``commit``): then, and only then, the
earlier run's files go (its own files, the plots, view.html, and every file its summary.json
lists: the formats it was asked for, what ``export`` added) and the staged files are renamed
into place, one rename each on the same file system, so the writers keep writing into them
through the files they hold open. Folders (a ROS 2 bag, whose SQLite database keeps its
journal beside it by name) move when the run has ended and its writers are closed
(``finish``).

A run refused before its first step (a value an FMU refuses at initialisation, ``--realtime``
...) or one that fails or is interrupted before it (``keep``: there was an earlier run to
lose) leaves the folder byte for byte as it was: the staging folder is removed, and so is the
output folder itself when this run created it. A run killed before its first step leaves only
its staging folder, which the next run into the folder removes.

The folder is locked (``flock`` on the folder itself, released when the process ends however
it ends) for the whole run: two runs into one folder would mix their files. Problems before
anything is written are a ScenarioError naming ``--out``.
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import shutil
import tempfile
from pathlib import Path

from .files import same_file, write_whole
from .scenario import ScenarioError, display_path

STAGE_PREFIX, STAGE_SUFFIX = ".run.", ".partial"


class OutputFolder:
    """See the module. ``own``: the names of the run's own files (replaced, never refused),
    ``inputs``: the files the run reads (never replaced: refused as ``--out``), ``derived``:
    files or folders other commands make of a run's results there (they go with it)."""

    def __init__(self, out: Path, own: tuple[str, ...], inputs: list[Path] = (), derived: tuple[str, ...] = ()):
        self.out = Path(out)
        self.own = tuple(own)
        self.derived = tuple(derived)
        self.inputs = inputs
        self.fd: int | None = None
        self.stage: Path | None = None
        self.committed = False
        self.created: list[Path] = []   # the folders this run made, the deepest first

    def _refuse(self, message: str):
        raise ScenarioError("--out", display_path(self.out), message)

    def __enter__(self):
        out = self.out
        if out.exists() and not out.is_dir():
            self._refuse("exists and is not a folder")
        for name in self.own:
            if (out / name).is_dir():
                self._refuse(f"{name} in it is a folder; remove it or choose another --out")
            if (out / name).exists() and any(same_file(out / name, p) for p in self.inputs):
                self._refuse(f"{name} in it is an input of this run (a run replaces its files there); "
                             f"choose another --out")
        missing = [p for p in [out, *out.parents] if not p.exists()]
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            self._refuse(f"cannot create the output folder: {e.strerror or e}")
        self.created = missing
        try:
            self._lock()
            for stale in out.glob(f"{glob.escape(STAGE_PREFIX)}*{STAGE_SUFFIX}"):   # a killed run's
                shutil.rmtree(stale, ignore_errors=True)
            self.stage = Path(tempfile.mkdtemp(dir=out, prefix=STAGE_PREFIX, suffix=STAGE_SUFFIX))
        except OSError as e:
            self.__exit__()
            self._refuse(f"cannot write into the output folder: {e.strerror or e}")
        except BaseException:
            self.__exit__()
            raise
        return self

    def _lock(self) -> None:
        if not os.access(self.out, os.W_OK | os.X_OK):
            self._refuse("the output folder is not writable")
        try:
            self.fd = os.open(self.out, os.O_RDONLY)
        except OSError as e:
            self._refuse(f"cannot open the output folder: {e.strerror or e}")
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._refuse("another run is writing into this folder right now; wait for it or choose another --out")
        except OSError:
            pass  # a file system without locks: run unlocked rather than not at all

    # ---------------------------------------------------------------- where the run writes

    @property
    def folder(self) -> Path:
        """Where the run's files go now: the staging folder until the run is accepted."""
        return self.out if self.committed else self.stage

    def final(self, path: Path) -> Path:
        """Where a file written at ``path`` (in the staging folder) ends up."""
        path = Path(path)
        if self.stage is not None and path.parent == self.stage:
            return self.out / path.name
        return path

    def write(self, name: str, text: str):
        """Write a file of the run whole or not at all (auv_cosim.master.files.write_whole)."""
        write_whole(self.folder / name, text)

    def holds_earlier_run(self) -> bool:
        """Whether the folder holds any of an earlier run's own files."""
        return any((self.out / name).exists() for name in self.own)

    # ---------------------------------------------------------------- accepting the run

    def earlier_files(self) -> list[str]:
        """The names of the earlier run's files in the folder: its own, and those its
        summary.json lists (the formats it wrote, the exports made from it)."""
        names = list(self.own)
        if self.holds_earlier_run():   # what was made of an earlier run's results, never a user's own folder
            names += [name for name in self.derived if name not in names and (self.out / name).exists()]
        try:
            files = json.loads((self.out / "summary.json").read_text(encoding="utf-8")).get("files") or {}
        except (OSError, ValueError, AttributeError):
            files = {}
        listed = [v for v in files.values() if isinstance(v, str)]
        listed += [p for v in files.values() if isinstance(v, list) for p in v if isinstance(p, str)]
        for text in listed:
            name = Path(text).name
            if name and name not in names and not name.startswith(".") and (self.out / name).exists() \
                    and not any(same_file(self.out / name, p) for p in self.inputs):
                names.append(name)
        return names

    def commit(self) -> None:
        """The run is accepted: the earlier run's files go, this run's files move into place
        (folders wait for ``finish``)."""
        if self.committed or self.stage is None:
            return
        out = self.out
        for name in self.earlier_files():
            for p in [out / name, *out.glob(f".{glob.escape(name)}.*.partial")]:
                _remove(p)
        for p in sorted(self.stage.iterdir()):
            if not p.is_dir() or p.is_symlink():
                os.replace(p, out / p.name)
        self.committed = True

    def finish(self) -> None:
        """After the run's writers are closed: the staged folders move into place, the staging
        folder goes."""
        if self.stage is None:
            return
        if self.committed:
            for p in sorted(self.stage.iterdir()):
                target = self.out / p.name
                if target.exists() or target.is_symlink():
                    _remove(target)
                os.replace(p, target)
        shutil.rmtree(self.stage, ignore_errors=True)
        self.stage = None

    def discard(self) -> None:
        """Nothing of this run is kept: the staging folder goes, and the folders it created."""
        if self.stage is not None:
            shutil.rmtree(self.stage, ignore_errors=True)
            self.stage = None
        for folder in self.created:
            try:
                folder.rmdir()
            except OSError:
                break   # not empty (something else is there now) or not ours to remove

    def __exit__(self, *exc):
        try:
            if self.committed:
                self.finish()
            else:
                self.discard()
        finally:
            if self.fd is not None:
                os.close(self.fd)  # releases the lock
                self.fd = None
        return False


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    else:
        try:
            p.unlink()
        except FileNotFoundError:
            pass
