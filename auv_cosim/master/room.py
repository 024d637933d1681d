"""Will a run's results fit on the disk? An estimate made before the first step.

results.csv holds one line per recorded communication point (``Plan.output_every``): the
time and every recorded variable as text. A Real that changes takes 17 to 22 characters (the
shortest text of a double), one that holds still or is zero 3 to 5, an Integer or a Boolean 1
or 2. The estimate counts ``REAL_BYTES`` (13) a Real and ``WHOLE_BYTES`` (2) an Integer or
Boolean, each with its comma: below what most runs write (depth_step writes 705 bytes a row of
45 columns, the estimate says 537), so that a run is refused only when it surely will not fit
(a week of depth_step, 4.3 GB, starts on a disk with 4.3 GB free). Each other format the run
writes (``--format``) is counted at ``FORMAT_BYTES`` a value. A run that fits by the estimate
but fills the disk all the same ends as failed, its whole rows kept (recorder.py).

The room is the free space of the disk that holds the output folder, plus what the earlier
run's files there take (the run replaces them).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .scenario import ScenarioError, display_path

REAL_BYTES = 13
WHOLE_BYTES = 2
FORMAT_BYTES = 4


def estimated_bytes(plan, formats: int = 0) -> tuple[int, int, int]:
    """(bytes, rows, bytes a row of results.csv) the run is expected to write at least."""
    whole = {f"{n}.{v.name}" for n, ip in plan.instances.items() for v in ip.outputs
             if v.type in ("Integer", "Boolean", "Enumeration")}
    row = REAL_BYTES + sum(WHOLE_BYTES if name in whole else REAL_BYTES for name in plan.record)
    rows = plan.n_steps // plan.output_every + 2
    values = (1 + len(plan.record)) * rows
    return row * rows + FORMAT_BYTES * values * formats, rows, row


def _size(path: Path) -> int:
    if path.is_dir() and not path.is_symlink():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return path.stat().st_size if path.is_file() else 0


def check_room(plan, out: Path, formats: int = 0, replaced: tuple[str, ...] = ()) -> None:
    """Refuse (ScenarioError naming --out, the estimate and the free space) a run whose results
    will not fit on the disk of ``out``; ``replaced``: the names of the earlier run's files in
    ``out`` that the run replaces (their room counts as free)."""
    need, rows, row = estimated_bytes(plan, formats)
    folder = Path(out)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return   # nothing to measure: the run will say when the disk is full
    freed = sum(_size(Path(out) / name) for name in replaced) if Path(out).is_dir() else 0
    if need <= free + freed:
        return
    what = f"{rows:,} rows of about {row} bytes in results.csv" + (
        f" and {formats} other format(s)" if formats else "")
    raise ScenarioError("--out", display_path(out),
                        f"the results need at least {_human(need)} ({what}) and its disk has {_human(free + freed)} "
                        f"free: shorten the run (--stop-time), record every k-th step (--output-interval), or "
                        f"choose another --out")


def _human(n: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000.0
    return f"{n:.1f} EB"

