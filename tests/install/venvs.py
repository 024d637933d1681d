"""Fresh Python environments for the tests of the package as users install it, made offline and
fast from the project's own venv:

* ``wheelhouse()``: a wheel of every distribution auv-cosim needs to run (its dependencies and
  theirs, no extras), repacked from what the project's venv has installed (the files each
  distribution's RECORD lists, its dist-info, a new RECORD; stored, not compressed), kept in
  ``.venv/.wheelhouse/<hash of the names and versions>/`` for the next runs. Nothing is
  downloaded: ``pip install --no-index --find-links`` installs from it.
* ``fresh_venv(path)``: an empty venv (no pip: the project's pip installs into it, ``--python``).
* ``overlay_venv(path)``: an empty venv that sees the project's venv (a .pth file adds its
  site-packages), for a test that installs one more distribution without touching the project's
  venv, which other tests use at the same time.
"""
from __future__ import annotations

import base64
import csv
import hashlib
import io
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
#: what pip writes into a dist-info at install time: not part of a wheel
_INSTALL_RECORDS = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def _closure(name: str = "auv-cosim") -> list:
    """The installed distributions ``name`` needs to run, ``name`` itself left out."""
    seen: dict = {}
    todo = [name]
    while todo:
        key = canonicalize_name(todo.pop())
        if key in seen:
            continue
        dist = metadata.distribution(key)
        seen[key] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    seen.pop(canonicalize_name(name))
    return sorted(seen.values(), key=lambda d: canonicalize_name(d.metadata["Name"]))


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def repack(dist, folder: Path) -> Path:
    """A wheel of an installed distribution: the files its RECORD lists inside site-packages
    (no bytecode, no scripts: pip writes the console scripts anew from entry_points.txt)."""
    info = next(f for f in dist.files if f.parts[0].endswith(".dist-info")).parts[0]
    base = Path(dist.locate_file(""))
    wheel_text = (base / info / "WHEEL").read_text() if (base / info / "WHEEL").is_file() else ""
    tags = [line.split(":", 1)[1].strip().split("-") for line in wheel_text.splitlines() if line.startswith("Tag:")]
    # the wheel's compressed tag set (py2.py3-none-any): every tag its WHEEL file lists
    tag = "-".join(".".join(dict.fromkeys(t[i] for t in tags)) for i in range(3)) if tags else "py3-none-any"
    stem = f"{canonicalize_name(dist.metadata['Name']).replace('-', '_')}-{dist.version}"
    target = folder / f"{stem}-{tag}.whl"
    rows = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        for entry in dist.files:
            path = base / entry
            if entry.parts[0] == ".." or "__pycache__" in entry.parts or entry.suffix == ".pyc" \
                    or (entry.parts[0] == info and entry.name in _INSTALL_RECORDS) or not path.is_file():
                continue
            data = path.read_bytes()
            archive.writestr(entry.as_posix(), data)
            rows.append((entry.as_posix(), _record_hash(data), str(len(data))))
        if not wheel_text:
            archive.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: tests/install/venvs.py\n"
                                              "Root-Is-Purelib: true\nTag: py3-none-any\n")
            rows.append((f"{info}/WHEEL", "", ""))
        record = io.StringIO()
        csv.writer(record, lineterminator="\n").writerows([*rows, (f"{info}/RECORD", "", "")])
        archive.writestr(f"{info}/RECORD", record.getvalue())
    return target


def wheelhouse() -> Path:
    """The folder of wheels (made once per set of installed versions; see the module)."""
    dists = _closure()
    key = hashlib.sha256("\n".join(f"{d.metadata['Name']}=={d.version}" for d in dists).encode()
                         + sys.implementation.cache_tag.encode()).hexdigest()[:16]
    folder = Path(sys.prefix) / ".wheelhouse" / key
    if not (folder / "complete").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.whl"):
            old.unlink()
        for dist in dists:
            repack(dist, folder)
        (folder / "complete").write_text("\n".join(f"{d.metadata['Name']}=={d.version}" for d in dists) + "\n")
    return folder


def fresh_venv(path: Path) -> Path:
    """An empty venv of this Python, without pip; returns its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def overlay_venv(path: Path) -> Path:
    """An empty venv that also sees the project's venv (its site-packages added by a .pth file,
    processed as a site dir so that the editable install of auv-cosim works there too)."""
    python = fresh_venv(path)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "_project_venv.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    return python


def pip_install(python: Path, *arguments: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """The project's pip installing into the venv of ``python`` (no bytecode written: an
    interpreter compiles what it imports, and writing it for every module of numpy, scipy and
    numba took most of an install's time)."""
    return subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                           "--disable-pip-version-check", "--no-compile", *arguments], capture_output=True, text=True,
                          timeout=timeout)
