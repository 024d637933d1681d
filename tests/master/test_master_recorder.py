"""results.csv is the same, byte for byte, whether its rows are formatted in the master's process
or handed to the writer process (master/csv_writer.py) that long runs use."""
from __future__ import annotations

import math

import numpy as np
import pytest

from master import csv_writer
from master.recorder import CsvRecorder


def _write(path, monkeypatch, mode, blocks):
    monkeypatch.setenv("AUV_MASTER_CSV_WRITER", mode)
    columns = ["time", "a.x", "a.n", "b.y", "b.flag", "sig"]
    colmap = {c: i for i, c in enumerate(columns)}
    rec = CsvRecorder(path, columns, colmap, ["b.y", "a.x", "a.n", "b.flag"], {"a.n", "b.flag"}, expected_rows=10)
    assert rec.background == (mode == "process")
    for block in blocks:
        rec.write_block(block)
    rec.flush()
    rec.close()
    rec.close()  # twice is harmless
    assert rec.rows == sum(len(b) for b in blocks)
    return path.read_bytes()


def test_writer_process_and_inline_give_the_same_bytes(tmp_path, monkeypatch):
    rng = np.random.default_rng(4)
    blocks = []
    for n in (1, 256, 37, 256):
        b = rng.normal(size=(n, 6)) * 10.0 ** rng.integers(-8, 17, size=(n, 6))
        b[:, 2] = rng.integers(0, 20, size=n)        # an Integer column
        b[:, 4] = rng.integers(0, 2, size=n)         # a Boolean column
        blocks.append(b)
    blocks[1][3, 1] = math.nan
    blocks[1][4, 1] = math.inf
    blocks[1][5, 3] = -0.0
    blocks[1][6, 3] = 1e16
    blocks[1][7, 3] = 1e-5
    inline = _write(tmp_path / "inline.csv", monkeypatch, "inline", blocks)
    process = _write(tmp_path / "process.csv", monkeypatch, "process", blocks)
    assert inline == process
    lines = inline.decode().splitlines()
    assert lines[0] == "time,b.y,a.x,a.n,b.flag"
    assert len(lines) == 1 + 1 + 256 + 37 + 256
    assert ",nan," in inline.decode() and ",inf," in inline.decode() and "-0.0" in inline.decode()
    first = blocks[0][0].tolist()
    assert lines[1] == f"{first[0]!r},{first[3]!r},{first[1]!r},{int(first[2])},{int(first[4])}"


def test_a_block_formatted_column_by_column_is_the_percent_format_of_each_row():
    """format_block's text is "%r" of every Real and "%d" of every whole-number column, row by
    row, also for the columns it formats once (constant in the block) and those it must not
    (zeros of both signs, NaN)."""
    rng = np.random.default_rng(7)
    n = 50
    columns = {
        "noise": rng.normal(size=n) * 10.0 ** rng.integers(-8, 17, size=n),
        "constant": np.full(n, 60.0),
        "constant negative": np.full(n, -0.349),
        "zeros of both signs": np.where(rng.random(n) < 0.5, 0.0, -0.0),
        "negative zeros": np.full(n, -0.0),
        "nan": np.full(n, math.nan),
        "inf then finite": np.where(np.arange(n) < 3, math.inf, 1.5),
        "constant then one change": np.where(np.arange(n) == n - 1, 2.0, 1.0),
        "index": rng.integers(0, 20, size=n).astype(float),
        "flag": np.ones(n),
    }
    integer = [name in ("index", "flag") for name in columns]
    block = np.column_stack(list(columns.values()))
    percent = ",".join("%d" if i else "%r" for i in integer) + "\n"
    expected = "".join(percent % tuple(row) for row in block.tolist())
    kinds = csv_writer.column_kinds(integer)
    assert csv_writer.format_block(kinds, block.ravel().tolist()) == expected
    assert csv_writer.format_block(kinds, block[:1].ravel().tolist()) == expected.splitlines(True)[0]
    assert csv_writer.format_block(kinds, []) == ""


def test_nothing_but_the_header_when_no_row_came(tmp_path, monkeypatch):
    for mode in ("inline", "process"):
        path = tmp_path / f"{mode}.csv"
        assert _write(path, monkeypatch, mode, []) == b"time,b.y,a.x,a.n,b.flag\n"


@pytest.mark.parametrize("scenario", ["depth_step"])
def test_a_run_writes_the_same_file_either_way(tmp_path, fmus_built, scenario):
    import subprocess
    import sys

    from master_helpers import REPO, _env

    files = {}
    for mode in ("inline", "process"):
        out = tmp_path / mode
        env = dict(_env(), AUV_MASTER_CSV_WRITER=mode)
        r = subprocess.run([sys.executable, "-m", "master", "run", scenario, "--out", str(out), "--no-plots",
                            "--no-progress", "-q"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        files[mode] = (out / "results.csv").read_bytes()
    assert files["inline"] == files["process"]
