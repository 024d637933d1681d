"""The master's stepping loop in C (auv_cosim/master/native_loop.py, auv_cosim/master/_step_loop.c) against the
Python loop it replaces: the same rows bit for bit, the same stops, the same failures (the same
summary, naming the same instance, variable, connection and time), whatever makes the C loop
hand back to Python (a full block, a stop condition and its run-on, the progress bar, a time
block of signal values)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from auv_cosim.master import engine
from auv_cosim.master import native_loop, run
from auv_cosim.master.layout import RowLayout
from auv_cosim.master.loop import TIME_BLOCK, NativeSteps, PythonSteps
from master_helpers import REPO
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")

#: a row of the time alone, and no stop conditions: what choosing a backend needs
_EMPTY = RowLayout(["time"], {"time": 0}, {}, slice(1, 1), None)
_NO_STOPS = None

STACK = (find_scenario("stacks/survey")).as_posix()


@pytest.fixture(scope="module")
def c_loop():
    """The compiled loop; without a C compiler the master steps in Python and these tests have
    nothing to compare: they skip, saying why."""
    function, reason = native_loop.available()
    if function is None:
        pytest.skip(f"SKIPPED LOUDLY: the master's C loop is not available here ({reason})")
    return function


def _run(mapping: dict, out: Path, loop: str, monkeypatch, **kwargs):
    """One run with the C loop ('c') or the Python loop ('python')."""
    made = []
    original = engine.backend_for

    def spy(*args, **kw):
        backend = original(*args, **kw)
        made.append(type(backend))
        return backend
    with monkeypatch.context() as patch:
        patch.setattr(engine, "backend_for", spy)
        result = run(json.loads(json.dumps(mapping)), out_dir=out, plots=False, echo_messages=False, loop=loop,
                     **kwargs)
    assert made == [NativeSteps if loop == "c" else PythonSteps], "the loop asked for is not the loop that ran"
    return result


def _same(mapping: dict, tmp_path: Path, monkeypatch, **kwargs):
    """Runs `mapping` with both loops; asserts the same results.csv and summary; returns both."""
    a = _run(mapping, tmp_path / "c", "c", monkeypatch, **kwargs)
    b = _run(mapping, tmp_path / "python", "python", monkeypatch, **kwargs)
    csv_a, csv_b = a.results_csv.read_bytes(), b.results_csv.read_bytes()
    assert hashlib.sha256(csv_a).hexdigest() == hashlib.sha256(csv_b).hexdigest()
    for key in ("status", "reason", "failure", "steps", "rows", "simulated_time_s", "stop"):
        assert a.summary.get(key) == b.summary.get(key), key
    return a, b


@pytest.mark.parametrize("algorithm", ["gauss-seidel", "jacobi"])
def test_signals_stop_condition_with_run_on_and_discrete_connections(c_loop, tmp_path, monkeypatch, algorithm):
    # the survey stack carries Integer and Boolean connections (AltitudeValid, WaypointIndex,
    # MissionFinished); the depth command is a step signal; the stop fires mid-block and runs on
    mapping = {"include": (find_scenario("depth_step")).as_posix(), "stop_time": 200.0,
               "algorithm": algorithm, "stop_when": {"condition": "vehicle.Depth > 10.5", "after": 7.3}}
    a, _ = _same(mapping, tmp_path, monkeypatch)
    assert a.status == "completed" and "stop condition met" in a.reason
    assert a.summary["steps"] % 256 not in (0, 255)   # it ended inside a block


def test_a_run_longer_than_a_time_block_and_a_flush(c_loop, tmp_path, monkeypatch):
    # 4096 steps make a time block (TIME_BLOCK): the signal table is computed anew
    mapping = {"include": (find_scenario("depth_step")).as_posix(), "stop_time": 450.0}
    a, _ = _same(mapping, tmp_path, monkeypatch)
    assert a.summary["steps"] > TIME_BLOCK


def test_with_the_progress_bar(c_loop, tmp_path, monkeypatch):
    # the bar is updated every 10 s of simulated time: the C loop hands back there
    mapping = {"include": (find_scenario("depth_step")).as_posix(), "stop_time": 35.0}
    _same(mapping, tmp_path, monkeypatch, progress=True)


@pytest.mark.parametrize("algorithm", ["gauss-seidel", "jacobi"])
def test_a_non_finite_value_on_a_connection(c_loop, nan_fmu, tmp_path, monkeypatch, algorithm):
    mapping = {"stop_time": 10.0, "algorithm": algorithm,
               "instances": {"source": {"fmu": nan_fmu.as_posix(), "parameters": {"NanTime": 2.75}},
                             "vehicle": {"fmu": (REPO / "fmus" / "Auv.fmu").as_posix(),
                                         "parameters": {"Pos0": [0, 0, 5]}}},
               "connections": ["source.Power -> vehicle.ThrustPower"]}
    a, _ = _same(mapping, tmp_path, monkeypatch)
    assert a.status == "failed"
    assert a.summary["failure"]["connection"] == "source.Power -> vehicle.ThrustPower"
    assert "non-finite value nan exchanged on connection" in a.reason
    # Gauss-Seidel: the source turns NaN in the step to 2.8 s and the vehicle is handed it in
    # the same step; Jacobi: in the next one
    assert a.summary["rows"] == (28 if algorithm == "gauss-seidel" else 29)


def test_an_fmu_error_in_the_middle_of_a_block(c_loop, tmp_path, monkeypatch):
    # a negative thrust power from a signal at t = 12.3 s: the Auv FMU refuses it in fmi2DoStep
    mapping = {"include": (find_scenario("depth_step")).as_posix(), "stop_time": 40.0,
               "disconnect": ["vehicle.ThrustPower"],
               "signals": {"vehicle.ThrustPower": {"step": {"time": 12.3, "before": 30.0, "after": float("inf")}}}}
    a, _ = _same(mapping, tmp_path, monkeypatch)
    assert a.status == "failed" and a.summary["failure"]["function"] == "fmi2DoStep"
    assert a.summary["failure"]["instance"] == "vehicle"


def test_the_library_is_compiled_once_and_found_again(c_loop, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = native_loop.build()
    assert first.is_file() and first.is_relative_to(tmp_path)
    stamp = first.stat().st_mtime_ns
    assert native_loop.build() == first and first.stat().st_mtime_ns == stamp
    assert not list(first.parent.glob("*.part"))


def test_no_compiler_means_the_python_loop_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CC", "no-such-compiler-here")
    monkeypatch.setattr(native_loop, "_loaded", None)
    function, reason = native_loop.available()
    assert function is None and "no C compiler" in reason and "no-such-compiler-here" in reason
    # the default is then the Python loop; asking for the C loop is refused with the reason
    assert engine.backend_for(None, [], False, _EMPTY, None, _NO_STOPS, 0.1, None).__class__ is PythonSteps
    with pytest.raises(RuntimeError, match="the C loop is not available: no C compiler"):
        engine.backend_for("c", [], False, _EMPTY, None, _NO_STOPS, 0.1, None)
    with pytest.raises(ValueError, match="unknown loop 'fortran'"):
        engine.backend_for("fortran", [], False, _EMPTY, None, _NO_STOPS, 0.1, None)


def test_timing_the_calls_changes_nothing_and_times_every_call(c_loop, tmp_path, monkeypatch):
    """native_loop.time_calls (benchmarks/bench_stack.py --breakdown): the same results with the
    calls timed; each call of the survey stack's step timed, in the engine's order (per instance
    its transfers in, fmi2DoStep, its reads), and nothing timed once it is stopped."""
    np = pytest.importorskip("numpy")
    mapping = {"include": (find_scenario("survey")).as_posix(), "stop_time": 30.0}
    plain = _run(mapping, tmp_path / "plain", "c", monkeypatch)
    ns, kinds = np.zeros(64, dtype=np.int64), np.full(64, -1, dtype=np.int64)
    native_loop.time_calls(ns, kinds)
    try:
        timed = _run(mapping, tmp_path / "timed", "c", monkeypatch)
    finally:
        native_loop.time_calls(None, None)
    assert timed.results_csv.read_bytes() == plain.results_csv.read_bytes()
    used = kinds[kinds >= 0]
    assert list(used).count(native_loop.CALL_DO_STEP) == 3                  # control, vehicle, sensors
    assert (ns[:len(used)] > 0).all() and (kinds[len(used):] == -1).all()
    assert used[0] in (native_loop.CALL_SET_REAL, native_loop.CALL_SET_DISCRETE)
    before = ns.copy()
    _run(mapping, tmp_path / "after", "c", monkeypatch)
    assert (ns == before).all()
