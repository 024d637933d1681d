"""The FMU extraction cache: each FMU file is unzipped once per content, into a folder shared by
every run and every campaign worker on the machine, so that what an FMU compiles and caches
beside its own sources (numba's cache of the vehicle physics) survives from one run to the next.
With the cache off (``AUV_MASTER_FMU_CACHE=off``) or not writable, an FMU goes into a temporary
folder removed when the process ends (``cleanup_temporary``).

The cache folder holds, for an FMU ``Auv.fmu`` of content digest ``D``:

    Auv-D/        the extracted FMU, and ``.complete`` once the extraction has finished
    Auv-D.pin     the pin: every process that uses the entry holds a shared ``flock`` on it
                  until it exits; its modification time is the entry's last use
    .lock         held exclusively while an entry is extracted or the cache is pruned
    .sha256-P     the digest D of the FMU file at path P (hashed), with that file's identity
                  (inode, size, times): a start that finds its entry hashes no FMU; a prune
                  removes the notes not written for ``MIN_AGE_S``

A process pins an entry *before* it looks at it, checks it against the FMU's own file list
(extracting it again when anything is missing), and keeps the pin for the rest of its life
(the FMU's shared library and Python modules stay loaded: unloading a pythonfmu library is not
safe). The prune, after each new extraction, removes entries beyond the ``KEEP`` most recently
used, and only those it can lock exclusively (no process holds their pin) and that nobody used
for ``MIN_AGE_S`` (processes of older versions of this module take no pins). The same scheme
as pip's and fmpy's caches would have, had they to share an extracted folder with running
processes: ``flock`` locks vanish with their process, so a crash leaves no stale lock.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import shutil
import tempfile
import time
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path

from fmpy import extract

KEEP = 12  # entries kept beyond those in use: each rebuild of an FMU makes a new one
MIN_AGE_S = 3600.0  # an entry used (or a leftover made) in the last hour is never removed
COMPLETE = ".complete"
MUTEX = ".lock"
PIN_SUFFIX = ".pin"

_extracted: dict[tuple, str] = {}  # (path, mtime, size) -> folder, for this process
_pins: dict[str, int] = {}  # entry folder -> file descriptor of its pin, held until exit
_temporary: list[str] = []


class FmuCacheError(OSError):
    """The cache could not provide a complete copy of the FMU."""


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


_sha256: dict[tuple, str] = {}  # (path, mtime, size) -> digest


def file_sha256(path: Path) -> str:
    """The sha256 of a file's content (hex), computed once per file version in this process."""
    st = os.stat(path)
    key = (str(path), st.st_mtime_ns, st.st_size)
    digest = _sha256.get(key)
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        digest = _sha256[key] = h.hexdigest()
    return digest


DIGEST_PREFIX = ".sha256-"


def _identity(st: os.stat_result) -> str:
    """What changes whenever a file's content may have: its inode, size, and modification and
    change times (the change time cannot be set back: a rebuilt, copied or touched FMU has a
    new one)."""
    return f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"


def _digest_note(root: Path, fmu: Path) -> Path:
    return root / f"{DIGEST_PREFIX}{hashlib.sha1(str(fmu.resolve()).encode()).hexdigest()[:20]}"


def remembered_sha256(root: Path, fmu: Path) -> tuple[str, bool]:
    """The FMU's sha256 (``file_sha256``) and whether the cache remembered it: a note in the
    cache root holds it with the file's identity, so that a start that finds its entry does not
    hash megabytes of FMU (5-10 ms a stack) to name it."""
    identity = _identity(os.stat(fmu))
    try:
        noted_identity, _, digest = _digest_note(root, fmu).read_text().strip().rpartition(" ")
        if noted_identity == identity and len(digest) == 64:
            return digest, True
    except OSError:
        pass
    return file_sha256(fmu), False


def remember_sha256(root: Path, fmu: Path, digest: str) -> None:
    """Note the digest of an FMU whose entry is complete (whole or not at all, for a process
    reading it meanwhile); a note that cannot be written is left out."""
    note = _digest_note(root, fmu)
    partial = note.with_name(f"{note.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(f"{_identity(os.stat(fmu))} {digest}\n")
        os.replace(partial, note)
    except OSError:
        partial.unlink(missing_ok=True)


def _members(fmu: Path) -> list[str]:
    with zipfile.ZipFile(fmu) as z:
        return [n for n in z.namelist() if not n.endswith("/")]


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
    """Extract the FMU into `into`, checking every member's CRC on the way: zipfile checks it
    as it reads a member to its end, so a separate pass (`check_fmu_archive`) would read and
    decompress the whole archive twice (a third of a fresh H100 stack's start-up). The caller
    removes `into` when this raises."""
    try:
        return extract(str(path), unzipdir=into)
    except (zipfile.BadZipFile, zlib.error, EOFError) as e:
        raise FmuArchiveError(f"{path} is a damaged FMU (zip) file: {type(e).__name__}: {e}; "
                              f"rebuild or copy it again") from None
    except Exception as e:
        raise FmuArchiveError(f"{path} cannot be extracted: {type(e).__name__}: {e}") from None


def is_complete(folder: Path, members: list[str]) -> bool:
    """The extraction finished and every file of the FMU is there."""
    return (folder / COMPLETE).is_file() and all((folder / n).is_file() for n in members)


def extract_fmu(path: Path) -> str:
    """The folder of the extracted FMU ``path``, pinned for the life of this process: from the
    shared cache (extracted there first when missing or incomplete), or a temporary folder when
    the cache is off or not writable. Every member's CRC is checked as it is extracted, into a
    folder that only becomes the entry once all is well; an FMU that cannot be read or extracted
    raises ``FmuArchiveError`` naming it, and leaves nothing behind."""
    path = Path(path)
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    try:
        members = _members(path)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        raise FmuArchiveError(f"{path} is not a readable FMU (zip) file: {e}") from None
    folder = _extracted.get(key)
    if folder is not None and is_complete(Path(folder), members):
        return folder
    root = cache_root()
    target = None
    if root is not None:
        try:
            target = _from_cache(root, path, members)
        except OSError:
            target = None
    if target is None:
        d = tempfile.mkdtemp(prefix="auv-master-")
        _temporary.append(d)
        if len(_temporary) == 1:
            atexit.register(cleanup_temporary)
        try:
            target = Path(_extract_checked(path, d))
        except FmuArchiveError:
            shutil.rmtree(d, ignore_errors=True)
            raise
    _extracted[key] = str(target)
    return str(target)


def _from_cache(root: Path, fmu: Path, members: list[str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    digest, remembered = remembered_sha256(root, fmu)
    entry = root / f"{fmu.stem}-{digest[:20]}"
    pin(entry)
    if is_complete(entry, members):
        if not remembered:
            remember_sha256(root, fmu, digest)
        return entry
    with _mutex(root):
        if not is_complete(entry, members):  # another process may have just finished it
            try:
                _extract_into(fmu, entry, members)
            except BaseException:
                _unpin(entry)  # nothing of a failed extraction stays behind, its pin neither
                _remove_unless_pinned(entry)
                raise
        prune(root, protect=entry)
    remember_sha256(root, fmu, digest)
    return entry


def _extract_into(fmu: Path, entry: Path, members: list[str]):
    """Extract beside the entry, then move it into place; an incomplete entry is moved aside
    first (a half-extracted or damaged copy: whoever used it could not run it anyway)."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{entry.name}-", dir=entry.parent))
    try:
        _extract_checked(fmu, str(tmp))
        (tmp / COMPLETE).write_text(f"{fmu}\n")
        if entry.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".trash-{entry.name}-", dir=entry.parent))
            os.rename(entry, trash / "entry")
            shutil.rmtree(trash, ignore_errors=True)
        os.rename(tmp, entry)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not is_complete(entry, members):
        raise FmuCacheError(f"the extraction of {fmu} into {entry} is incomplete")


def pin(entry: Path) -> None:
    """Hold a shared lock on the entry's pin for the rest of this process (once per entry), and
    mark the entry used now. A pin file removed by a prune while this process waited for it is
    created again."""
    if str(entry) in _pins:
        return
    pin_path = entry.with_name(entry.name + PIN_SUFFIX)
    while True:
        fd = os.open(pin_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            same = os.fstat(fd).st_ino == os.stat(pin_path).st_ino
        except FileNotFoundError:
            same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)
    os.utime(fd)  # recency by use
    _pins[str(entry)] = fd


def _unpin(entry: Path) -> None:
    fd = _pins.pop(str(entry), None)
    if fd is not None:
        os.close(fd)


@contextmanager
def _mutex(root: Path):
    fd = os.open(root / MUTEX, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def last_use(entry: Path) -> float:
    """When a process last pinned the entry (the folder's time for an entry never pinned)."""
    try:
        return entry.with_name(entry.name + PIN_SUFFIX).stat().st_mtime
    except FileNotFoundError:
        return entry.stat().st_mtime


def prune(root: Path, keep: int = KEEP, min_age_s: float = MIN_AGE_S, protect: Path | None = None) -> list[Path]:
    """Remove the entries beyond the ``keep`` most recently used that no process has pinned and
    nobody used for ``min_age_s``, and leftovers of interrupted extractions older than that.
    Call it under the mutex (``extract_fmu`` does), or alone: it takes the mutex itself when
    ``protect`` is None. Returns what it removed."""
    if protect is None:
        with _mutex(root):
            return _prune(root, keep, min_age_s, protect)
    return _prune(root, keep, min_age_s, protect)


def _prune(root: Path, keep: int, min_age_s: float, protect: Path | None) -> list[Path]:
    now = time.time()
    removed = []
    try:
        folders = [p for p in root.iterdir() if p.is_dir()]
        leftovers = [p for p in folders if p.name.startswith(".")]
        entries = sorted((p for p in folders if not p.name.startswith(".")), key=last_use, reverse=True)
        for p in leftovers:
            if now - p.stat().st_mtime > min_age_s:
                shutil.rmtree(p, ignore_errors=True)
                removed.append(p)
        for entry in entries[keep:]:
            if entry == protect or str(entry) in _pins or now - last_use(entry) <= min_age_s:
                continue
            if _remove_unless_pinned(entry):
                removed.append(entry)
        # pins left without their entry (removed by hand or by an older version)
        for pin_path in root.glob(f"*{PIN_SUFFIX}"):
            entry = pin_path.with_name(pin_path.name[: -len(PIN_SUFFIX)])
            if not entry.exists() and str(entry) not in _pins:
                _remove_unless_pinned(entry)
        # digest notes not written for min_age_s (one per FMU path ever used: copies in
        # temporary folders, old checkouts); a note removed is written again at its next use
        for note in root.glob(f"{DIGEST_PREFIX}*"):
            if now - note.stat().st_mtime > min_age_s:
                note.unlink(missing_ok=True)
    except OSError:
        pass
    return removed


def _remove_unless_pinned(entry: Path) -> bool:
    """Remove the entry and its pin if no process holds the pin (an exclusive lock can be had)."""
    pin_path = entry.with_name(entry.name + PIN_SUFFIX)
    try:
        fd = os.open(pin_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # in use
        shutil.rmtree(entry, ignore_errors=True)
        os.unlink(pin_path)  # while locked: a process waiting for this pin creates a new one
        return True
    finally:
        os.close(fd)
