"""``run --format`` and ``export``: which writers a run gets, and a finished run replayed
through the same writers.

A writer is an observer of the loop (``FileWriter``): told the run's folder (``into_folder``,
the folder locked by the run), it replaces its own file of an earlier run there, as the run
replaces results.csv. ``export RESULTS_DIR --format F`` reads results.csv and
scenario.resolved.yaml back, rebuilds the run's plan from the latter (for what the scenario
tells: the vehicles' sizes, the waypoints, the floor) and hands the rows of the former to the
same writer: the file is the one the run would have written from the same rows. It refuses to
write over an existing file unless ``--force``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np

from ..master.loop import Observer
from ..master.scenario import ScenarioError, display_path

FORMATS = ("csv", "mcap", "rosbag", "parquet")
#: what each format writes into a results folder
FILES = {"mcap": "results.mcap", "rosbag": "rosbag", "parquet": "results.parquet"}


def parse_formats(text: str, allowed=FORMATS) -> list[str]:
    """``csv,mcap`` -> ["csv", "mcap"]; an unknown or repeated one is refused naming --format."""
    if not (text or "").strip():
        raise ScenarioError("--format", repr(text), f"empty (choose from {', '.join(allowed)})")
    items = [x.strip() for x in text.split(",")]
    bad = [x for x in items if x not in allowed]
    if bad:
        raise ScenarioError("--format", text, f"unknown format {bad[0]!r} (choose from {', '.join(allowed)})")
    if len(set(items)) != len(items):
        raise ScenarioError("--format", text, "a format is named twice")
    return items


class FileWriter(Observer):
    """An observer writing one file (or folder) ``name`` of a run's folder."""

    name = ""
    kind = ""
    records = True   # it records the run's rows: every k-th one with --output-interval

    def __init__(self, folder: Path | None = None, force: bool = True):
        self.folder = Path(folder) if folder is not None else None
        self.force = force

    def into_folder(self, out: Path) -> None:
        self.folder = Path(out)

    @property
    def path(self) -> Path:
        return self.folder / self.name

    @property
    def summary_file(self) -> tuple[str, Path] | None:
        """(key, path) of summary.json's ``files``."""
        return (self.kind, self.path) if self.folder is not None else None

    def make_room(self) -> None:
        """Remove this writer's file of an earlier run (never without ``force``)."""
        p = self.path
        if p.exists() or p.is_symlink():
            if not self.force:
                raise FileExistsError(f"{display_path(p)} exists (use --force to replace it)")
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()


class McapWriter(FileWriter):
    name, kind = "results.mcap", "mcap"

    def __init__(self, folder=None, force=True, record=None, seabeds=None):
        super().__init__(folder, force)
        self.record = record
        self.seabeds = seabeds   # the grids a finished run read (summary.json's), for an export
        self.inner = None

    def start(self, plan, layout) -> None:
        from .foxglove import FoxgloveObserver, mcap_sinks

        self.make_room()
        self.inner = FoxgloveObserver(mcap_sinks(self.path), record=self.record, seabeds=self.seabeds)
        self.inner.start(plan, layout)

    def rows(self, block) -> None:
        self.inner.rows(block)

    def ended(self, status, reason, time, messages) -> None:
        if self.inner is not None:
            self.inner.ended(status, reason, time, messages)

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()


#: the files of the formats (``run --format``, ``export``) in a run's folder: made from its
#: results, they go with them when another run replaces the run in its folder
FORMAT_FILES = ("results.mcap", "results.parquet", "rosbag")


def writers_for(formats: list[str]) -> list[FileWriter]:
    """The writers of ``run --format`` (csv is the run's own results.csv: none here)."""
    from .parquet import ParquetWriter
    from .rosbag import RosbagWriter

    kinds = {"mcap": McapWriter, "parquet": ParquetWriter, "rosbag": RosbagWriter}
    return [kinds[f]() for f in formats if f in kinds]


# ----------------------------------------------------------------------------- export

class _Layout:
    """The part of the master's row layout a writer reads: the columns' names."""

    def __init__(self, columns: list[str]):
        self.columns = columns
        self.colmap = {c: i for i, c in enumerate(columns)}


def read_run(results_dir: Path):
    """(plan, columns, rows) of a finished run's folder; a ScenarioError names what is missing."""
    from ..master.plan import build_plan
    from ..master.scenario import load_scenario

    results_dir = Path(results_dir)
    resolved = results_dir / "scenario.resolved.yaml"
    columns, rows = _read_table(results_dir)
    if not resolved.is_file():
        raise ScenarioError("RESULTS_DIR", display_path(resolved), "no such file (a run writes it beside results.csv)")
    loaded = load_scenario(resolved)
    reached = float(rows[-1, 0])
    plan = build_plan(loaded, stop_time=max(reached, loaded.model.stop_time or reached))
    return plan, columns, rows


def _read_table(results_dir: Path):
    """results.csv's columns and rows (auv_cosim.master.results_csv: a cut last row dropped with
    a warning, a malformed row refused); a ScenarioError names what cannot be exported."""
    from ..master.results_csv import ResultsFileError, read_results_csv

    path = Path(results_dir) / "results.csv"
    if not path.is_file():
        raise ScenarioError("RESULTS_DIR", display_path(path), "no such file (give the folder a run wrote)")
    try:
        columns, rows = read_results_csv(path)
    except ResultsFileError as e:
        raise ScenarioError("RESULTS_DIR", display_path(results_dir), str(e)) from None
    except OSError as e:
        raise ScenarioError("RESULTS_DIR", display_path(path), f"cannot read it: {e.strerror or e}") from None
    if len(rows) == 0:
        raise ScenarioError("RESULTS_DIR", display_path(path), "holds no rows, only its header (the run stopped "
                                                               "before its initial point was recorded): nothing to export")
    return columns, rows


def export(results_dir: Path, formats, force: bool = False) -> list[Path]:
    """Write each of ``formats`` (a name or a list: mcap, rosbag, parquet) beside a finished
    run's results.csv; their paths. Everything is checked before anything is written (an
    existing file without ``force`` is refused for all of them), each file is written into a
    temporary folder beside it and moved into place once every one is complete: a refused or
    failed export leaves the folder as it was."""
    from .parquet import ParquetWriter
    from .rosbag import RosbagWriter

    results_dir = Path(results_dir)
    formats = [formats] if isinstance(formats, str) else list(formats)
    plan, columns, rows = read_run(results_dir)
    kinds = {"mcap": McapWriter, "parquet": ParquetWriter, "rosbag": RosbagWriter}
    writers = [kinds[fmt](results_dir, force=force, record=columns[1:]) for fmt in formats]
    for writer in writers:
        if isinstance(writer, McapWriter):   # the seabed the run read, where it read it
            writer.seabeds = _summary(results_dir).get("seabeds")
    for writer in writers:
        if (writer.path.exists() or writer.path.is_symlink()) and not force:
            raise ScenarioError("--force", display_path(writer.path), "exists; not replaced without --force")
    with tempfile.TemporaryDirectory(dir=results_dir, prefix=".export.") as tmp:
        finals = []
        for writer in writers:
            finals.append(writer.path)
            writer.into_folder(Path(tmp))
            writer.start(plan, _Layout(columns))
            try:
                for k in range(0, len(rows), 4096):
                    writer.rows(rows[k:k + 4096])
            finally:
                writer.close()
        for writer, final in zip(writers, finals):
            _move_into_place(writer.path, final, Path(tmp))
    return finals


def _summary(results_dir: Path) -> dict:
    """A finished run's summary.json (empty when it has none or it cannot be read)."""
    import json

    try:
        summary = json.loads((Path(results_dir) / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return summary if isinstance(summary, dict) else {}


def _move_into_place(new: Path, final: Path, spare: Path) -> None:
    """``new`` renamed to ``final``; an earlier folder there is moved into ``spare`` (removed
    with it) first, a file is replaced in one rename."""
    if final.is_dir() and not final.is_symlink():
        final.rename(spare / f".old.{final.name}")
    new.replace(final)
