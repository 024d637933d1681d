"""The FMU extraction cache (auv_cosim/master/fmu_cache.py, issue 16): an entry a process has chosen or
is running is never removed, recency is by use, an incomplete entry is extracted again, and a
failure to load an FMU is a named error, not a traceback."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from auv_cosim.master import fmu_cache
from master_helpers import REPO, _env, master
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")

FMUS = REPO / "fmus"
HOUR = 3600.0


def _copy_fmu(name: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(FMUS / f"{name}.fmu", folder / f"{name}.fmu"))


def _fake_entries(root: Path, count: int) -> list[Path]:
    """Complete-looking entries of other FMUs (as rebuilds and scenario variants leave)."""
    entries = []
    for i in range(count):
        entry = root / f"Other{i:02d}-{i:020d}"
        (entry / "binaries" / "linux64").mkdir(parents=True)
        (entry / "modelDescription.xml").write_text("<fmiModelDescription/>\n")
        (entry / ".complete").write_text(f"Other{i:02d}.fmu\n")
        entries.append(entry)
    return entries


def _age_everything(root: Path, seconds: float):
    """Set the modification time of every entry (and anything beside it) ``seconds`` back."""
    t = time.time() - seconds
    for p in root.iterdir():
        os.utime(p, (t, t))


def _missing_files(fmu: Path, folder: Path) -> list[str]:
    with zipfile.ZipFile(fmu) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
    return [n for n in names if not (folder / n).is_file()]


def test_the_entry_in_use_survives_a_prune_when_it_is_the_oldest(tmp_path, monkeypatch):
    """Today's failure: more than 12 entries, the one in use extracted first (the oldest), the
    mtimes an hour and more in the past; the next extraction prunes it."""
    root = tmp_path / "cache"
    monkeypatch.setenv("AUV_MASTER_FMU_CACHE", str(root))
    control = _copy_fmu("AuvControl", tmp_path / "fmus")
    sensors = _copy_fmu("AuvSensors", tmp_path / "fmus")

    in_use = Path(fmu_cache.extract_fmu(control))     # chosen by this process, about to be loaded
    assert not _missing_files(control, in_use)
    _fake_entries(root, 12)
    _age_everything(root, 2 * HOUR)
    t = time.time() - 3 * HOUR
    os.utime(in_use, (t, t))                           # extracted first: the oldest

    fmu_cache.extract_fmu(sensors)                     # the next extraction prunes

    assert in_use.is_dir(), "the entry in use was removed"
    assert not _missing_files(control, in_use), "the entry in use lost files"
    entries = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    assert len(entries) <= 13, f"nothing was pruned: {sorted(p.name for p in entries)}"


def test_recency_is_by_use_not_by_extraction(tmp_path):
    """Of two entries nobody holds, the one extracted first but used last is the one kept."""
    root = tmp_path / "cache"
    used_lately, extracted_lately = _fake_entries(root, 2)
    now = time.time()
    os.utime(used_lately, (now - 5 * HOUR,) * 2)
    os.utime(extracted_lately, (now - 2 * HOUR,) * 2)
    used_pin = used_lately.with_name(used_lately.name + fmu_cache.PIN_SUFFIX)
    used_pin.touch()
    os.utime(used_pin, (now - 1.5 * HOUR,) * 2)   # pinned (used) after the other was extracted

    removed = fmu_cache.prune(root, keep=1)

    assert removed == [extracted_lately]
    assert used_lately.is_dir() and not extracted_lately.exists()


def test_an_incomplete_entry_is_extracted_again(tmp_path):
    """A file missing from an entry (a prune by an older version, a hand clean-up) is noticed by
    the next process to use it, which extracts the FMU again."""
    root = tmp_path / "cache"
    sensors = _copy_fmu("AuvSensors", tmp_path / "fmus")
    code = ("import sys; from pathlib import Path; from auv_cosim.master.fmu_cache import extract_fmu; "
            "print(extract_fmu(Path(sys.argv[1])))")
    env = dict(_env(), AUV_MASTER_FMU_CACHE=str(root))
    first = subprocess.run([sys.executable, "-c", code, str(sensors)], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    entry = Path(first.stdout.strip())
    library = next(entry.glob("binaries/*/*.so"))
    library.unlink()
    assert _missing_files(sensors, entry)

    again = subprocess.run([sys.executable, "-c", code, str(sensors)], env=env, capture_output=True, text=True)

    assert again.returncode == 0, again.stderr
    assert Path(again.stdout.strip()) == entry
    assert not _missing_files(sensors, entry)


PRUNER = """
import sys, time
from pathlib import Path
from auv_cosim.master import fmu_cache
root, stop = Path(sys.argv[1]), Path(sys.argv[2])
rounds = removed = 0
while not stop.exists():
    if root.is_dir():
        t = time.time() - 10 * 3600
        for p in root.iterdir():            # everything looks old and unused
            try:
                import os; os.utime(p, (t, t))
            except OSError:
                pass
        removed += len(fmu_cache.prune(root, keep=0, min_age_s=0))
        rounds += 1
    time.sleep(0.005)
print(rounds, removed)
"""


def test_two_runs_share_the_cache_while_a_third_process_prunes_it(tmp_path):
    """Two runs of the whole stack start together on one cache folder while a third process
    prunes it as hard as it can (keep nothing, no minimum age, every mtime ten hours back):
    both runs complete with the same results, and the prune did remove what nobody used."""
    root = tmp_path / "cache"
    stop = tmp_path / "stop"
    env = dict(_env(), AUV_MASTER_FMU_CACHE=str(root), AUV_NO_JIT="1")
    _fake_entries(root, 3)
    pruner = subprocess.Popen([sys.executable, "-c", PRUNER, str(root), str(stop)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        runs = [subprocess.Popen([sys.executable, "-m", "auv_cosim", "run", "depth_step", "--stop-time", "30",
                                  "--no-plots", "--no-progress", "-q", "--out", str(tmp_path / f"run{i}")],
                                 cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for i in range(2)]
        results = [r.communicate(timeout=300) for r in runs]
    finally:
        stop.touch()
        pruned = pruner.communicate(timeout=60)
    for r, (out, err) in zip(runs, results):
        assert r.returncode == 0, err
        assert "Traceback" not in err, err
    assert pruner.returncode == 0, pruned[1]
    rounds, removed = map(int, pruned[0].split())
    assert rounds > 10 and removed >= 3, pruned[0]
    a, b = ((tmp_path / f"run{i}" / "results.csv").read_bytes() for i in range(2))
    assert a == b and a.count(b"\n") == 1 + 301  # header and t = 0 .. 30 s


def test_an_fmu_that_does_not_load_is_a_named_error(tmp_path):
    """An FMU whose shared library is missing: the run fails with the instance and the file
    named, exit status 1, no traceback."""
    broken = tmp_path / "fmus" / "AuvControl.fmu"
    broken.parent.mkdir()
    with zipfile.ZipFile(FMUS / "AuvControl.fmu") as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            if not item.filename.startswith("binaries/"):
                dst.writestr(item, src.read(item.filename))
    scenario = tmp_path / "broken.yaml"
    scenario.write_text(f"include: {(find_scenario('depth_step')).as_posix()}\n"
                        f"instances:\n  control:\n    fmu: {broken.as_posix()}\n")

    r = master("run", str(scenario), "--no-plots", "--stop-time", "1", out=tmp_path / "out")

    assert r.rc == 1, r
    assert "Traceback" not in r.stderr, r
    failure = r.summary["failure"]
    assert failure["instance"] == "control" and failure["function"] == "load"
    assert failure["file"].endswith("AuvControl.fmu")
    assert r.summary["reason"].startswith(f"control: cannot load the FMU {failure['file']}"), r.summary["reason"]


def test_a_corrupt_fmu_leaves_nothing_in_the_cache(tmp_path, monkeypatch):
    """Neither a partial extraction nor its pin stays behind after a refused FMU."""
    root = tmp_path / "cache"
    monkeypatch.setenv("AUV_MASTER_FMU_CACHE", str(root))
    good = _copy_fmu("AuvSensors", tmp_path / "fmus")
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as z:
        info = z.getinfo(next(n for n in z.namelist() if n.endswith(".py")))
    data[info.header_offset + 30 + len(info.filename) + 5] ^= 0xFF   # a byte of that member's data
    bad = tmp_path / "bad" / "AuvSensors.fmu"
    bad.parent.mkdir()
    bad.write_bytes(bytes(data))

    with pytest.raises(fmu_cache.FmuArchiveError, match="AuvSensors.fmu"):
        fmu_cache.extract_fmu(bad)

    assert [p.name for p in root.iterdir() if p.name != fmu_cache.MUTEX] == []


def test_a_start_that_finds_its_entry_hashes_no_fmu(tmp_path, monkeypatch):
    """The FMU's digest (the entry's name) is remembered in the cache with the file's identity:
    a later process finds its entry without hashing the FMU, and a rewritten FMU is hashed
    again."""
    root = tmp_path / "cache"
    monkeypatch.setenv("AUV_MASTER_FMU_CACHE", str(root))
    fmu = _copy_fmu("AuvControl", tmp_path / "fmus")
    first = fmu_cache.extract_fmu(fmu)
    hashed = []
    real_sha256 = fmu_cache.file_sha256

    def counting_sha256(path):
        hashed.append(Path(path).name)
        return real_sha256(path)

    def as_a_new_process():
        monkeypatch.setattr(fmu_cache, "_extracted", {})
        monkeypatch.setattr(fmu_cache, "_sha256", {})

    monkeypatch.setattr(fmu_cache, "file_sha256", counting_sha256)
    as_a_new_process()
    assert fmu_cache.extract_fmu(fmu) == first and hashed == []
    fmu.write_bytes(fmu.read_bytes())           # the same content, written again: a new identity
    as_a_new_process()
    assert fmu_cache.extract_fmu(fmu) == first and hashed == ["AuvControl.fmu"]
    as_a_new_process()
    assert fmu_cache.extract_fmu(fmu) == first and hashed == ["AuvControl.fmu"]


def test_an_fmu_is_read_once_when_it_is_extracted(tmp_path, monkeypatch):
    """Its CRCs are checked as it is extracted, not by a pass of their own beforehand (which
    read and decompressed the archive twice)."""
    monkeypatch.setenv("AUV_MASTER_FMU_CACHE", str(tmp_path / "cache"))
    read = []
    real_open = zipfile.ZipFile.open

    def counting_open(self, name, *args, **kwargs):
        info = name if isinstance(name, zipfile.ZipInfo) else self.getinfo(name)
        read.append(info.filename)
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", counting_open)
    fmu = _copy_fmu("AuvSensors", tmp_path / "fmus")
    fmu_cache.extract_fmu(fmu)
    assert read and len(read) == len(set(read)), sorted(n for n in set(read) if read.count(n) > 1)[:5]


def test_a_prune_removes_the_digest_notes_not_written_for_an_hour(tmp_path, monkeypatch):
    """One note per FMU path ever used would pile up (copies in temporary folders): a prune
    removes those older than MIN_AGE_S, and the next start that needs one writes it again."""
    root = tmp_path / "cache"
    monkeypatch.setenv("AUV_MASTER_FMU_CACHE", str(root))
    fmu = _copy_fmu("AuvControl", tmp_path / "fmus")
    fmu_cache.extract_fmu(fmu)
    notes = list(root.glob(f"{fmu_cache.DIGEST_PREFIX}*"))
    assert len(notes) == 1
    fmu_cache.prune(root)
    assert notes[0].exists()                                  # written just now: kept
    _age_everything(root, 2 * HOUR)
    fmu_cache.prune(root)
    assert not notes[0].exists()
    monkeypatch.setattr(fmu_cache, "_extracted", {})          # as a new process
    fmu_cache.extract_fmu(fmu)
    assert notes[0].exists()
