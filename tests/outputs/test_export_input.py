"""export reads results.csv as a run wrote it, or says why not: a cut last row is dropped with
a warning naming the file and the line (never written as a half row of NaN), a file of no rows
is refused by name (no numpy warning), several formats are written at once or none."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from auv_cosim.master.results_csv import ResultsFileError, read_results_csv

pytestmark = pytest.mark.usefixtures("fmus_built")


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "auv_cosim", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "run"
    r = _cli("run", "depth_step", "--stop-time", "3", "--no-plots", "-q", "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out


def _copy(src: Path, dst: Path, csv_text: str | None = None) -> Path:
    dst.mkdir()
    for name in ("results.csv", "scenario.resolved.yaml", "summary.json"):
        (dst / name).write_bytes((src / name).read_bytes())
    if csv_text is not None:
        (dst / "results.csv").write_text(csv_text)
    return dst


def _digest(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.rglob("*"))}


def test_a_cut_last_row_is_dropped_with_a_warning_naming_the_file_and_line(finished, tmp_path):
    text = (finished / "results.csv").read_text()
    lines = text.splitlines(keepends=True)
    cut = "".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2]   # the last number cut in the middle
    folder = _copy(finished, tmp_path / "cut", cut)
    r = _cli("export", str(folder), "--format", "parquet")
    assert r.returncode == 0, r.stderr
    assert f"line {len(lines)}" in r.stderr and "results.csv" in r.stderr and "cut" in r.stderr
    import pyarrow.parquet as pq

    table = pq.read_table(folder / "results.parquet")
    assert table.num_rows == len(lines) - 2                       # the header and the cut row left out
    whole = np.loadtxt(finished / "results.csv", delimiter=",", skiprows=1)[:-1]
    assert np.array_equal(np.column_stack([table.column(i).to_numpy() for i in range(table.num_columns)]), whole)


def test_a_row_of_another_width_inside_the_file_is_refused_naming_its_line(finished, tmp_path):
    lines = (finished / "results.csv").read_text().splitlines(keepends=True)
    lines[5] = lines[5].split(",", 3)[0] + "\n"
    folder = _copy(finished, tmp_path / "bad", "".join(lines))
    before = _digest(folder)
    r = _cli("export", str(folder), "--format", "mcap")
    assert r.returncode == 2 and "line 6" in r.stderr and "Traceback" not in r.stderr
    assert _digest(folder) == before


@pytest.mark.parametrize("rows", [0, 1])
def test_a_file_of_no_or_one_row_gets_a_clear_message_and_no_numpy_warning(finished, tmp_path, rows):
    lines = (finished / "results.csv").read_text().splitlines(keepends=True)
    folder = _copy(finished, tmp_path / f"rows{rows}", "".join(lines[:1 + rows]))
    r = _cli("export", str(folder), "--format", "mcap")
    assert "Warning" not in r.stderr and "loadtxt" not in r.stderr and "Traceback" not in r.stderr
    if rows == 0:
        assert r.returncode == 2 and "no rows" in r.stderr and "results.csv" in r.stderr
        assert not (folder / "results.mcap").exists()
    else:   # the initial point alone: one message per channel
        assert r.returncode == 0, r.stderr
        assert (folder / "results.mcap").stat().st_size > 0
    v = _cli("view", str(folder))
    assert v.returncode == 2 and f"{rows} data row(s)" in v.stderr and "Warning" not in v.stderr


def test_several_formats_are_exported_at_once_or_none(finished, tmp_path):
    folder = _copy(finished, tmp_path / "many")
    r = _cli("export", str(folder), "--format", "mcap,parquet")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert (folder / "results.mcap").is_file() and (folder / "results.parquet").is_file()
    before = _digest(folder)
    again = _cli("export", str(folder), "--format", "rosbag,parquet")   # parquet exists: neither is written
    assert again.returncode == 2 and "results.parquet" in again.stderr
    assert _digest(folder) == before
    forced = _cli("export", str(folder), "--format", "rosbag,parquet,mcap", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (folder / "rosbag" / "metadata.yaml").is_file()
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]   # no temporary left


def test_the_reader_reads_what_numpy_reads_and_refuses_a_cut_header(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("time,a.x,a.n\n0.0,1.5,3\n0.1,-2e-05,4\n")
    header, rows = read_results_csv(good)
    assert header == ["time", "a.x", "a.n"] and rows.tolist() == [[0.0, 1.5, 3.0], [0.1, -2e-05, 4.0]]
    cut = tmp_path / "cut.csv"
    cut.write_text("time,a.x")
    with pytest.raises(ResultsFileError, match="header"):
        read_results_csv(cut)
