"""A run that will not fit on its disk is refused before its first step, naming the size and
the free space (without over-counting: a week of depth_step starts where it fits); a disk that
fills during a run ends it as failed with every whole row kept and summary.json written; and
--output-interval records every k-th step (a multiple of the step, else refused by name)."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from auv_cosim.cli import main
from auv_cosim.master import csv_writer
from auv_cosim.master.plan import build_plan
from auv_cosim.master.recorder import CsvRecorder
from auv_cosim.master.room import estimated_bytes
from auv_cosim.master.runner import find_scenario
from auv_cosim.master.scenario import load_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")


def _whole_rows(path: Path) -> list[str]:
    text = path.read_text()
    assert text.endswith("\n"), "a cut row at the end"
    lines = text.splitlines()
    assert all(line.count(",") == lines[0].count(",") for line in lines), "a partial row"
    return lines


def test_a_run_that_cannot_fit_is_refused_naming_its_size_and_the_free_space(tmp_path, capsys):
    out = tmp_path / "big"
    assert main(["run", "depth_step", "--stop-time", "5e9", "--no-plots", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and " TB " in err and "free" in err and "--output-interval" in err
    assert not out.exists()


def test_the_estimate_does_not_over_count(tmp_path):
    """depth_step writes more bytes a row than the estimate counts; a week of it is estimated
    below the 4.3 GB it writes, so it starts on a disk that holds it."""
    from auv_cosim.master import run

    res = run("depth_step", out_dir=tmp_path / "minute", stop_time=60, plots=False, echo_messages=False)
    written = res.results_csv.stat().st_size / res.summary["rows"]
    week = build_plan(load_scenario(find_scenario("depth_step")), stop_time=7 * 86400)
    need, rows, row = estimated_bytes(week)
    assert row < written                      # 537 against 705 bytes a row
    assert rows == 6_048_002 and 2.5e9 < need < rows * written


def test_a_disk_that_fills_during_the_run_ends_it_as_failed_with_every_whole_row(tmp_path, monkeypatch):
    """results.csv's writes fail with ENOSPC after 250 kB (the last one half written): the run
    fails, the file is cut back to its last whole row, summary.json is written and says so."""
    from auv_cosim.master import run

    monkeypatch.setenv("AUV_MASTER_CSV_WRITER", "inline")
    budget = {"left": 250_000}

    def write_some(self, view):
        if len(view) > budget["left"]:
            self._f.write(view[: budget["left"] // 2])   # a part of the block reaches the disk
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        budget["left"] -= len(view)
        return self._f.write(view)

    monkeypatch.setattr(CsvRecorder, "_write_some", write_some)
    res = run("depth_step", out_dir=tmp_path / "full", stop_time=60, plots=False, echo_messages=False,
              keep_rows=False)
    assert res.status == "failed" and res.exit_code == 1
    assert "No space left on device" in res.reason
    summary = json.loads(res.summary_path.read_text())
    lines = _whole_rows(res.results_csv)
    assert summary["status"] == "failed" and summary["rows"] == len(lines) - 1 > 1
    assert res.results_csv.stat().st_size <= 250_000


def test_the_writer_process_cuts_back_and_says_the_disk_is_full():
    proc = subprocess.run([sys.executable, "-I", "-S", csv_writer.__file__, "/dev/full", "2", "rr"],
                          input=csv_writer.HEADER.pack(2) + np.arange(4.0).tobytes(), capture_output=True)
    assert proc.returncode == errno.ENOSPC
    assert b"/dev/full" in proc.stderr and b"last whole row" in proc.stderr


def test_a_small_filesystem_fills_during_a_run(tmp_path):
    """The same on a real 380 kB tmpfs (the estimate, 330 kB for 601 rows, lets it start; the
    rows take 420 kB). Needs root and mount: skipped, saying so, where it cannot mount."""
    small = tmp_path / "small"
    small.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=380k", "tmpfs", str(small)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.decode().strip() or 'not permitted'}); "
                    f"the simulated full disk above covers the recorder")
    try:
        r = subprocess.run([sys.executable, "-m", "auv_cosim", "run", "depth_step", "--stop-time", "60", "--no-plots",
                            "--out", str(small / "run")], capture_output=True, text=True, timeout=300)
        assert r.returncode == 1, r.stderr
        assert "No space left on device" in r.stderr
        summary = json.loads((small / "run" / "summary.json").read_text())
        lines = _whole_rows(small / "run" / "results.csv")
        assert summary["status"] == "failed" and summary["rows"] == len(lines) - 1 > 100
    finally:
        subprocess.run(["umount", str(small)], capture_output=True)


def test_output_interval_records_every_kth_step_and_the_last(tmp_path):
    from auv_cosim.master import run

    every = run("depth_step", out_dir=tmp_path / "every", stop_time=3.1, plots=False, echo_messages=False)
    some = run("depth_step", out_dir=tmp_path / "some", stop_time=3.1, plots=False, echo_messages=False,
               output_interval=1.0)
    full = _whole_rows(every.results_csv)
    kept = _whole_rows(some.results_csv)
    assert [line.split(",")[0] for line in kept[1:]] == ["0.0", "1.0", "2.0", "3.0", "3.1"]
    assert kept[0] == full[0] and set(kept[1:]) <= set(full[1:])   # the same rows, bit for bit
    assert some.summary["rows"] == 5 and some.summary["output_interval_s"] == 1.0
    assert some.summary["steps"] == every.summary["steps"] == 31


def test_output_interval_thins_the_other_formats_too(tmp_path, capsys):
    out = tmp_path / "formats"
    assert main(["run", "depth_step", "--stop-time", "2", "--output-interval", "0.5", "--format", "parquet",
                 "--no-plots", "-q", "--out", str(out)]) == 0
    import pyarrow.parquet as pq

    assert pq.read_table(out / "results.parquet").num_rows == 5 == len(_whole_rows(out / "results.csv")) - 1


@pytest.mark.parametrize("command", [["run"], ["sweep", "--vary", "control.DepthKp=1,2"]])
def test_an_output_interval_that_is_no_multiple_of_the_step_is_refused_by_name(tmp_path, capsys, command):
    out = tmp_path / "x"
    assert main([command[0], "depth_step", *command[1:], "--stop-time", "2", "--output-interval", "0.25",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--output-interval" in err and "0.25" in err and "multiple of the step" in err
    assert not out.exists()
