"""The FMU extraction cache: each FMU file is unzipped once per content, into a folder shared by
every run and every campaign worker on the machine, so that what an FMU compiles and caches
beside its own sources (numba's cache of the vehicle physics) survives from one run to the next.
With the cache off (``AUV_MASTER_FMU_CACHE=off``) or not writable, an FMU goes into a temporary
folder removed when the process ends (``cleanup_temporary``)."""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

from fmpy import extract

_extracted: dict[tuple, str] = {}  # (path, mtime, size) -> folder, for this process
_temporary: list[str] = []


def cleanup_temporary() -> None:
    """Remove the temporary folders this process extracted into (not the shared cache)."""
    for d in _temporary:
        shutil.rmtree(d, ignore_errors=True)
    _temporary.clear()


def cache_root() -> Path | None:
    env = os.environ.get("AUV_MASTER_FMU_CACHE", "")
    if env.lower() in ("0", "off", "no", "none"):
        return None
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "auv-cosim" / "fmus"


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:20]


class FmuArchiveError(Exception):
    """An FMU file that cannot be unpacked (not a zip, a CRC error): the message names it."""


def check_fmu_archive(path: Path) -> None:
    """Read every member of the FMU's zip and check its CRC (fmpy reads only
    modelDescription.xml up front, so a corrupt binary or Python source would only surface
    half-extracted, in the middle of a run)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        raise FmuArchiveError(f"{path} is not a readable FMU (zip) file: {e}") from None
    except Exception as e:  # zlib.error and friends on a damaged stream
        raise FmuArchiveError(f"{path} is a damaged FMU (zip) file: {type(e).__name__}: {e}") from None
    if bad is not None:
        raise FmuArchiveError(f"{path} is a damaged FMU (zip) file: bad CRC of {bad}; rebuild or copy it again")


def _extract_checked(path: Path, into: str) -> str:
    check_fmu_archive(path)
    try:
        return extract(str(path), unzipdir=into)
    except Exception as e:
        raise FmuArchiveError(f"{path} cannot be extracted: {type(e).__name__}: {e}") from None


def extract_fmu(path: Path) -> str:
    """Extract an FMU once. Into the cache folder keyed by the FMU's content (reused across
    runs and processes, so what the FMUs compile and cache next to their sources survives), or
    into a temporary folder when the cache is off or not writable. Every member's CRC is
    checked before anything is extracted (FmuArchiveError naming the file); a failed
    extraction leaves nothing behind in the cache."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key in _extracted:
        return _extracted[key]
    root = cache_root()
    target = None
    if root is not None:
        try:
            root.mkdir(parents=True, exist_ok=True)
            target = root / f"{path.stem}-{_digest(path)}"
            if not (target / ".complete").is_file():
                tmp = Path(tempfile.mkdtemp(prefix=f".{path.stem}-", dir=root))
                try:
                    _extract_checked(path, str(tmp))
                except BaseException:
                    shutil.rmtree(tmp, ignore_errors=True)
                    raise
                (tmp / ".complete").write_text(str(path) + "\n")
                try:
                    os.rename(tmp, target)
                except OSError:  # another process got there first, or a stale partial copy
                    if (target / ".complete").is_file():
                        shutil.rmtree(tmp, ignore_errors=True)
                    else:
                        shutil.rmtree(target, ignore_errors=True)
                        os.rename(tmp, target)
            _prune(root, keep=12)
        except OSError:
            target = None
    if target is None:
        d = tempfile.mkdtemp(prefix="auv-master-")
        _temporary.append(d)
        if len(_temporary) == 1:
            atexit.register(cleanup_temporary)
        target = Path(_extract_checked(path, d))
    _extracted[key] = str(target)
    return str(target)


def _prune(root: Path, keep: int, min_age_s: float = 3600.0):
    """Drop the least recently extracted FMUs beyond ``keep`` (each rebuild makes a new one),
    never one extracted in the last hour (another process may be running it), nor leftovers
    of an interrupted extraction younger than that."""
    now = time.time()
    try:
        entries = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
        done = [p for p in entries if not p.name.startswith(".")]
        stale = done[keep:] + [p for p in entries if p.name.startswith(".")]
        for p in stale:
            if now - p.stat().st_mtime > min_age_s:
                shutil.rmtree(p, ignore_errors=True)
    except OSError:
        pass
