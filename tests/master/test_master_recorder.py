"""results.csv is the same, byte for byte, whether its rows are formatted in the master's process
or handed to the writer process (auv_cosim/master/csv_writer.py) that long runs use."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.master import csv_writer
from auv_cosim.master.recorder import CsvRecorder


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
    assert rec.written == sum(len(b) for b in blocks)
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


@pytest.mark.parametrize("rows, columns, cpus, process", [
    (1201, 91, 2, True),      # a 120 s H100 run: 109,291 values
    (601, 42, 2, False),      # a 60 s survey run: 25,242
    (1099, 91, 2, True),      # 100,009: just over the threshold
    (1098, 91, 2, False),     # 99,918: just under it
    (20370, 42, 1, False),    # one CPU: the writer would only take turns with the master
])
def test_the_writer_process_is_chosen_by_the_values_a_run_records(monkeypatch, rows, columns, cpus, process):
    from auv_cosim.master import recorder

    monkeypatch.delenv("AUV_MASTER_CSV_WRITER", raising=False)
    monkeypatch.setattr(recorder.os, "cpu_count", lambda: cpus)
    assert recorder._want_writer_process(rows, columns) == process
    monkeypatch.setenv("AUV_MASTER_CSV_WRITER", "inline")
    assert not recorder._want_writer_process(rows, columns)


def test_the_pipe_to_the_writer_is_enlarged_where_linux_allows(tmp_path, monkeypatch):
    fcntl = pytest.importorskip("fcntl", reason="no fcntl module: the pipe keeps its default size")
    if not hasattr(fcntl, "F_GETPIPE_SZ"):
        pytest.skip("fcntl has no F_GETPIPE_SZ (not Linux): the pipe keeps its default size")
    from auv_cosim.master import recorder

    monkeypatch.setenv("AUV_MASTER_CSV_WRITER", "process")
    rec = CsvRecorder(tmp_path / "r.csv", ["time"], {"time": 0}, [], set(), expected_rows=10)
    limit = int(open("/proc/sys/fs/pipe-max-size").read())
    size = fcntl.fcntl(rec._writer.stdin.fileno(), fcntl.F_GETPIPE_SZ)
    rec.close()
    assert size >= min(limit, recorder.WRITER_PIPE_BYTES)


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
        r = subprocess.run([sys.executable, "-m", "auv_cosim", "run", scenario, "--out", str(out), "--no-plots",
                            "--no-progress", "-q"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        files[mode] = (out / "results.csv").read_bytes()
    assert files["inline"] == files["process"]


def _doubles_of_every_layout(rng, n):
    """n doubles of each family where a shortest-text formatter could differ from repr: any bit
    pattern (subnormals included), powers of two (unequal neighbours), whole numbers up to 1e17,
    short decimals, the edges of repr's positional range (1e-4, 1e16) and of the double range."""
    bits = rng.integers(0, 2 ** 63, n, dtype=np.uint64).view(np.float64)
    families = [
        bits[np.isfinite(bits)] * rng.choice([-1.0, 1.0], n)[np.isfinite(bits)],
        np.ldexp(rng.choice([-1.0, 1.0], n), rng.integers(-1074, 1024, n)),
        rng.integers(-10 ** 17, 10 ** 17, n).astype(float),
        np.round(rng.uniform(-100.0, 100.0, n) * 1e3) / 1e3,
        rng.normal(size=n) * 10.0 ** rng.integers(-12, 20, n),
        np.array([1e-4, np.nextafter(1e-4, 0.0), 1e16, np.nextafter(1e16, 0.0), 1e-5, 5e-324,
                  2.2250738585072014e-308, 1.7976931348623157e308, 0.0, -0.0]),
    ]
    return np.concatenate(families)


def test_the_fast_formatter_writes_repr_text_for_doubles_of_every_layout():
    """ujson (a dependency) formats the blocks (checked on load against repr), and its text,
    after the exponent padding, is "%r" of every double and "%d" of every whole number, for
    values of every layout (the byte-identical bar of results.csv rests on it)."""
    assert csv_writer._ujson is not None, "ujson is missing or does not write repr's text: pip install ujson"
    rng = np.random.default_rng(11)
    reals = _doubles_of_every_layout(rng, 4000)
    reals = reals[rng.permutation(len(reals))][: len(reals) // 3 * 3].reshape(-1, 3)
    whole = rng.integers(-5, 10 ** 6, (len(reals), 2)).astype(float)
    block = np.column_stack([reals[:, 0], whole[:, 0], reals[:, 1], reals[:, 2], whole[:, 1]])
    kinds = csv_writer.column_kinds([False, True, False, False, True])
    expected = "".join("%r,%d,%r,%r,%d\n" % tuple(row) for row in block.tolist())
    assert csv_writer._format_with_ujson(kinds, block.ravel().tolist()) == expected
    assert csv_writer.format_block(kinds, block.ravel().tolist()) == expected
    # a NaN or an infinity anywhere: the block goes through repr, with the same text as before
    block[5, 2], block[9, 0] = math.nan, -math.inf
    assert csv_writer._format_with_ujson(kinds, block.ravel().tolist()) is None
    assert csv_writer.format_block(kinds, block.ravel().tolist()) == "".join(
        "%r,%d,%r,%r,%d\n" % tuple(row) for row in block.tolist())


def test_a_formatter_that_does_not_write_repr_text_is_not_used():
    """The load-time check refuses an encoder whose text of some double differs from repr's, or
    that writes NaN instead of refusing it."""
    import json

    class Exponent:   # writes 1e16 as 1e16, repr's is 1e+16
        @staticmethod
        def dumps(values, allow_nan=True):
            return json.dumps(values, allow_nan=allow_nan).replace("e+", "e")

    class WritesNan:
        @staticmethod
        def dumps(values, allow_nan=True):
            return json.dumps(values)   # NaN even when told not to

    class Json:   # the standard library's encoder writes repr's text: accepted
        @staticmethod
        def dumps(values, allow_nan=True):
            return json.dumps(values, allow_nan=allow_nan, separators=(",", ":"))

    class RefusesLarge:   # refuses 1e308 as if it were infinite
        @staticmethod
        def dumps(values, allow_nan=True):
            if any(abs(v) > 1e300 for v in values):
                raise OverflowError("too large")
            return json.dumps(values, allow_nan=allow_nan, separators=(",", ":"))

    assert not csv_writer._formats_as_repr(RefusesLarge)
    assert not csv_writer._formats_as_repr(Exponent)
    assert not csv_writer._formats_as_repr(WritesNan)
    assert csv_writer._formats_as_repr(Json)


def test_the_writer_process_formats_with_ujson_too(tmp_path):
    """The writer process runs without site-packages (python -I -S): the recorder hands it the
    folder of ujson, and it loads it and passes the same check."""
    import subprocess
    import sys

    folder = csv_writer.fast_formatter_folder()
    assert folder is not None
    code = ("import sys, runpy; sys.argv = ['csv_writer', 'x', '1', 'r', sys.argv[1]]; "
            "m = runpy.run_path(%r); print(m['_ujson'] is None); "
            "m['sys'].path.append(%r); print(m['_load_ujson']() is not None)") % (csv_writer.__file__, folder)
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code, folder], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]   # not importable alone, loaded from the folder
