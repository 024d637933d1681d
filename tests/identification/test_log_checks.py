"""What `auv-cosim identify` refuses before any fit, one test per finding of a demanding user's
report (numbered as there): each is exit 2 with a message naming the file, the line, the column
and the time, where a fit of the log would have given confident wrong numbers (or hung). The
logs are written here in results.csv's columns; no FMU and no fit runs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from auv_cosim.cli import main as cli
from auv_cosim.vehicles.h100 import VEHICLES_DIR

NINE = ("LinearDamping[1,1],LinearDamping[3,3],QuadraticDamping[1,1],QuadraticDamping[2,2],QuadraticDamping[3,3],"
        "QuadraticDamping[6,6],AddedMass[1,1],AddedMass[3,3],ThrusterEfficiency")
CHANNELS = ["vehicle.Pos[1]", "vehicle.Pos[2]", "vehicle.Depth", "vehicle.Euler[1]", "vehicle.Euler[2]",
            "vehicle.Euler[3]", "vehicle.LocalVel[1]", "vehicle.LocalVel[2]", "vehicle.LocalVel[3]",
            "vehicle.Omega[1]", "vehicle.Omega[2]", "vehicle.Omega[3]"]


def h100_log(path: Path, rows: int = 300, step: float = 0.1, thrusters: int = 8, edit=None) -> Path:
    """A log of the H100 in results.csv's columns: `rows` rows `step` apart, a surge command on;
    `edit(lines)` may change the text lines (header first) before they are written."""
    header = ["time"] + [f"vehicle.ThrusterCommand[{i}]" for i in range(1, thrusters + 1)] + CHANNELS
    lines = [",".join(header)]
    for k in range(rows):
        t = k * step
        values = [t] + [0.2] * thrusters + [0.01 * t, 0.0, 10.0] + [0.0] * 3 + [0.05, 0.0, 0.0] + [0.0] * 3
        lines.append(",".join(f"{v:.10g}" for v in values))
    if edit:
        edit(lines)
    path.write_text("\n".join(lines) + "\n")
    return path


def identify(log: Path, tmp_path: Path, *more: str) -> int:
    return cli(["identify", str(log), "--vehicle", "h100", "--fit", NINE, "--out", str(tmp_path / "fit"), *more])


def set_value(lines: list[str], column: str, row: int, text: str) -> None:
    j = lines[0].split(",").index(column)
    cells = lines[row + 1].split(",")
    cells[j] = text
    lines[row + 1] = ",".join(cells)


def test_1_a_vehicle_file_with_fewer_thrusters_than_the_log_s_commands_is_refused(tmp_path, capsys):
    log = h100_log(tmp_path / "log.csv")
    for vehicle_file in ("BlueROV2.yaml", "H100_6_slanted.yaml"):
        assert identify(log, tmp_path, "--vehicle-file", str(Path(VEHICLES_DIR) / vehicle_file)) == 2
        err = capsys.readouterr().err
        assert "8 thruster commands (vehicle.ThrusterCommand[1] .. [8])" in err, err
        assert f"the vehicle file {vehicle_file} has 6 thrusters" in err, err
    assert not (tmp_path / "fit").exists()
    # and a log with fewer command columns than the vehicle's thrusters: the missing one named
    short = h100_log(tmp_path / "six.csv", thrusters=6)
    assert identify(short, tmp_path) == 2
    assert "no column for ThrusterCommand[7]" in capsys.readouterr().err


def test_2_a_log_too_short_for_the_asked_parameters_is_refused(tmp_path, capsys):
    log = h100_log(tmp_path / "log.csv", rows=3)
    assert identify(log, tmp_path) == 2
    err = capsys.readouterr().err
    assert "3 samples (0.2 s) are too short a log for 9 fitted parameter(s)" in err, err
    assert "at least 180 samples and 10 s" in err
    assert not (tmp_path / "fit" / "h100_fitted.yaml").exists()
    # a window of a long log is held to the same rule
    assert identify(h100_log(tmp_path / "long.csv"), tmp_path, "--start", "10", "--stop", "15") == 2
    assert "51 samples (5 s) are too short" in capsys.readouterr().err


def test_3_a_hole_and_an_uneven_step_are_refused(tmp_path, capsys):
    def hole(lines):        # rows of 40 to 70 s missing
        del lines[401:701]
    log = h100_log(tmp_path / "hole.csv", rows=1000, edit=hole)
    assert identify(log, tmp_path) == 2
    err = capsys.readouterr().err
    assert "lines 401-402, column 'time': the step from t = 39.9 s to t = 70 s is 30.1 s" in err, err
    assert "where the log's step is 0.1 s: rows missing (a hole in the log)" in err

    def uneven(lines):
        set_value(lines, "time", 50, "5.05")
    assert identify(h100_log(tmp_path / "uneven.csv", edit=uneven), tmp_path) == 2
    err = capsys.readouterr().err
    assert "the step from t = 4.9 s to t = 5.05 s is 0.15 s" in err and "an uneven step" in err, err


@pytest.mark.parametrize("column,text", [("vehicle.LocalVel[3]", "inf"), ("vehicle.LocalVel[3]", "nan"),
                                         ("vehicle.ThrusterCommand[4]", "inf"), ("vehicle.ThrusterCommand[4]", "nan")])
def test_5_7_a_value_that_is_not_finite_is_refused_by_one_rule_naming_file_line_column_and_time(
        tmp_path, capsys, column, text):
    log = h100_log(tmp_path / "log.csv", edit=lambda lines: set_value(lines, column, 120, text))
    assert identify(log, tmp_path) == 2
    err = capsys.readouterr().err
    assert f"log.csv, line 122, column '{column}' (" in err, err
    assert f"{text} at t = 12 s is not finite" in err, err
    assert "Pos0" not in err


def test_6_a_time_in_milliseconds_is_refused_at_once(tmp_path, capsys):
    log = h100_log(tmp_path / "ms.csv", step=100.0)
    assert identify(log, tmp_path) == 2
    err = capsys.readouterr().err
    assert "the log's step is 100" in err and "is the time in milliseconds?" in err, err


def test_7_a_truncated_last_line_is_named_as_such(tmp_path, capsys):
    def truncate(lines):
        lines[-1] = lines[-1][:len(lines[-1]) // 2].rsplit(",", 1)[0]
    log = h100_log(tmp_path / "log.csv", edit=truncate)
    assert identify(log, tmp_path) == 2
    err = capsys.readouterr().err
    assert "log.csv, line 301:" in err and "fields where the header has 21: a truncated row (the last line" in err, err
    assert "not finite" not in err


def test_8_a_start_after_the_stop_is_named(tmp_path, capsys):
    log = h100_log(tmp_path / "log.csv")
    assert identify(log, tmp_path, "--start", "50", "--stop", "40") == 2
    err = capsys.readouterr().err
    assert "--start 50 must come before --stop 40" in err and "zero-size" not in err, err


def test_two_columns_of_one_name_are_refused_naming_it(tmp_path, capsys):
    """A log with vehicle.Depth twice (the second a biased copy): which one is the depth is not
    known, so it is refused (exit 2) naming the column and where each copy is; identify took
    the last one and said nothing."""
    def twice(lines):
        lines[0] += ",vehicle.Depth"
        for k in range(1, len(lines)):
            lines[k] += ",10.5"
    log = h100_log(tmp_path / "log.csv", edit=twice)
    assert identify(log, tmp_path) == 2
    err = capsys.readouterr().err
    assert "2 columns are named 'vehicle.Depth' (columns 12, 22 of the header)" in err, err
    assert not (tmp_path / "fit").exists()


def test_what_a_log_lacks_is_said_never_filled_in_silently():
    """A log without the external forces and moments, and without roll: the fit takes them as 0
    and says so (TrialLog.assumed, printed in the report and kept in fit.json)."""
    import tempfile

    from auv_cosim.identification.log import read_log
    from auv_cosim.identification.vehicles import vehicle_adapter

    def no_roll(lines):
        j = lines[0].split(",").index("vehicle.Euler[1]")
        for k, line in enumerate(lines):
            cells = line.split(",")
            del cells[j]
            lines[k] = ",".join(cells)
    with tempfile.TemporaryDirectory() as d:
        log = read_log(h100_log(Path(d) / "log.csv", edit=no_roll), vehicle_adapter("h100", None))
    assert "roll" not in log.measured
    assert log.assumed == [
        "ExternalForce[1], ExternalForce[2], ExternalForce[3], ExternalMoment[1], ExternalMoment[2], "
        "ExternalMoment[3] taken as 0 throughout: log.csv has no column for them (map one with --columns NAME=COLUMN)",
        "the initial roll taken as 0: log.csv has no channel for it (looked for sensors.MeasuredEuler[1], "
        "vehicle.Euler[1])"]


def test_a_results_table_with_two_columns_of_one_name_is_refused_by_its_readers(tmp_path):
    """The 3-D view's reader (and export, which falls back on it) refuse a results.csv naming a
    column twice instead of taking the last."""
    from auv_cosim.master.view import ViewError, read_results

    (tmp_path / "results.csv").write_text("time,a.X,a.X\n0,1,2\n0.1,1,2\n0.2,1,2\n")
    with pytest.raises(ViewError, match=r"2 columns are named 'a.X' \(columns 2, 3\)"):
        read_results(tmp_path)
    assert cli(["export", str(tmp_path), "--format", "parquet"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv"]
