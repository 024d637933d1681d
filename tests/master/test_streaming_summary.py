"""summary.json's figures are made as the rows stream past (auv_cosim/master/running.py, the
streams of auv_cosim/vehicles/auv/host/figures.py): the same figures whatever the blocks the rows come in,
the same as a transcription of the figures read off the whole table (numpy over every row, as
they were computed before they streamed), and in memory that does not grow with the run."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.master import ExactSum, RunningStats, Window, build_plan, load_scenario, run, stats
from auv_cosim.master.summary import SummaryObserver, build_summary
from auv_cosim.analyses.metrics import StepResponse, step_response

from master_helpers import REPO
from auv_cosim.master import find_scenario


def _blocks(data: np.ndarray, sizes) -> list[np.ndarray]:
    out, i = [], 0
    for n in sizes:
        if i >= len(data):
            break
        out.append(data[i:i + n])
        i += n
    if i < len(data):
        out.append(data[i:])
    return out


def _random_sizes(rng, n):
    return [int(k) for k in rng.integers(1, 300, size=n)]


# --------------------------------------------------------------------------- the pieces


def test_exact_sum_is_the_correctly_rounded_sum_whatever_the_blocks():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, 20000) * 10.0 ** rng.integers(-8, 8, 20000)
    whole = ExactSum()
    whole.add(x)
    assert whole.value == math.fsum(x.tolist())
    for sizes in ([1] * 50 + [7] * 30, _random_sizes(rng, 400), [256] * 100):
        s = ExactSum()
        for b in _blocks(x, sizes):
            s.add(b)
        assert s.value == whole.value


def test_exact_sum_of_nan_and_of_both_infinities_is_nan_and_of_one_infinity_that_infinity():
    for values, expected in (([1.0, math.nan], "nan"), ([math.inf, 1.0], math.inf), ([math.inf, -math.inf], "nan")):
        s = ExactSum()
        for v in values:
            s.add(np.array([v]))
        assert (math.isnan(s.value) if expected == "nan" else s.value == expected), (values, s.value)


def test_running_stats_are_summary_stats():
    rng = np.random.default_rng(5)
    x = rng.normal(0.3, 2.0, 5000)
    x[::97] = np.nan
    x[::301] = np.inf
    r = RunningStats()
    for b in _blocks(x, _random_sizes(rng, 100)):
        r.add(b)
    assert r.result() == stats(x)
    assert RunningStats().result() is None and stats(np.array([np.nan])) is None


def test_a_window_keeps_the_last_span_of_rows_and_no_more():
    w = Window(10.0)
    t = np.arange(0, 100000) * 0.1
    for b in _blocks(t, [256] * 1000):
        w.add(b, 2 * b)
        assert sum(len(part[0]) for part in w.blocks) <= 100 + 2 * 256   # 10 s and the blocks around
    times, doubled = w.arrays()
    assert times[-1] == t[-1] and times[0] <= t[-1] - 10.0 and np.array_equal(doubled, 2 * times)


def _step_response_whole(t, y, y0, y1, band=0.05, tail_s=10.0, tail_fraction=0.2):
    """The step response as it was computed from the whole record (an independent transcription)."""
    size = y1 - y0
    sgn = 1.0 if size > 0 else -1.0
    progress = (y - y0) / size
    overshoot = max(0.0, float(np.max(sgn * (y - y1)))) / abs(size) * 100.0

    def first(cond):
        i = np.nonzero(cond)[0]
        return float(t[i[0]]) if len(i) else None

    t10, t90 = first(progress >= 0.1), first(progress >= 0.9)
    width = band * abs(size)
    outside = np.nonzero(np.abs(y - y1) > width)[0]
    settling = 0.0 if len(outside) == 0 else (None if outside[-1] == len(y) - 1 else float(t[outside[-1] + 1]))
    tail = t >= t[-1] - min(tail_s, tail_fraction * t[-1])
    return {"overshoot_percent": overshoot, "rise_time_10_90_s": (t90 - t10) if t10 is not None and t90 is not None else None,
            "settling_time_s": settling, "settling_band": width, "steady_state_error": float(abs(np.mean(y[tail]) - y1))}


@pytest.mark.parametrize("shape", ["settles", "rings_at_the_end", "never_leaves", "short"])
def test_the_step_response_is_the_same_bit_for_bit_in_any_blocks(shape):
    rng = np.random.default_rng(11)
    t = np.arange(0, 3000) * 0.1 if shape != "short" else np.arange(0, 40) * 0.1
    y = {"settles": 10 + 1 - np.exp(-t / 3) * np.cos(t),
         "rings_at_the_end": 10 + 1 + 0.3 * np.sin(t) * (t > 200),
         "never_leaves": np.full_like(t, 11.0),
         "short": 10 + 1 - np.exp(-t / 3)}[shape]
    expected = _step_response_whole(t, y, 10.0, 11.0)
    assert step_response(t, y, 10.0, 11.0) == expected
    for sizes in ([1] * len(t), _random_sizes(rng, 200), [256] * 20):
        r = StepResponse(10.0, 11.0)
        for tb, yb in zip(_blocks(t, sizes), _blocks(y, sizes)):
            r.add(tb, yb)
        assert r.result() == expected, sizes[:5]


def test_the_rows_kept_for_plots_are_thinned_evenly_past_their_limit():
    from auv_cosim.master.loop import RowKeeper

    rng = np.random.default_rng(7)
    data = np.arange(1000, dtype=float)[:, None] * np.ones((1, 3))
    keeper = RowKeeper(3, limit=100)
    for b in _blocks(data, _random_sizes(rng, 50)):
        keeper.rows(b)
        assert keeper.kept <= 100
    assert keeper.stride == 16       # 1000 / 8 rows would be 125
    assert np.array_equal(keeper.data[:, 0], np.arange(0, 1000, 16))
    whole = RowKeeper(3)
    whole.rows(data)
    assert np.array_equal(whole.data, data)


# --------------------------------------------------------------------------- real runs


def _old_vehicle_figures(d, v):
    """The vehicle figures as they were read off the whole table (numpy over every row)."""
    from auv_cosim.master import rounded

    col = lambda k: d[f"{v}.{k}"]  # noqa: E731
    n, e, z = col("Pos[1]"), col("Pos[2]"), col("Pos[3]")
    dn, de, dz = np.diff(n), np.diff(e), np.diff(z)
    return {"distance_run_m": rounded(np.sum(np.sqrt(dn ** 2 + de ** 2 + dz ** 2))),
            "horizontal_distance_m": rounded(np.sum(np.hypot(dn, de))),
            "final_position_m": [rounded(n[-1]), rounded(e[-1]), rounded(z[-1])],
            "final_depth_m": rounded(col("Depth")[-1]), "max_depth_m": rounded(np.nanmax(col("Depth"))),
            "mean_speed_m_s": rounded(np.nanmean(col("Speed"))),
            "energy_used_J": rounded(col("Battery")[0] - col("Battery")[-1]),
            "battery_final_J": rounded(col("Battery")[-1]),
            "battery_final_fraction": rounded(col("BatteryFraction")[-1]),
            # where SeabedContact rises: nowhere in a run that never touches the seabed
            "seabed_contacts": [] if not np.any(col("SeabedContact") > 0.5) else None}


@pytest.fixture(scope="module")
def survey_run(tmp_path_factory, fmus_built):
    out = tmp_path_factory.mktemp("streamed") / "survey"
    return run(find_scenario("survey"), out_dir=out, stop_time=300, plots=False, progress=False,
               echo_messages=False)


def test_the_streamed_figures_are_those_of_the_whole_table_in_any_blocks(survey_run):
    res = survey_run
    plan = build_plan(load_scenario(find_scenario("survey")), stop_time=300)
    whole = build_summary(plan, res.data, res.colmap)
    streamed = {k: res.summary[k] for k in whole}
    assert streamed == whole                        # 256-row blocks (the run) against one block
    rng = np.random.default_rng(2)
    for sizes in ([1] * 700, _random_sizes(rng, 300)):
        observer = SummaryObserver(plan, res.colmap)
        for b in _blocks(res.data, sizes):
            observer.rows(b)
        assert observer.result() == whole
    table = {name: res.data[:, j] for name, j in res.colmap.items()}
    assert whole["vehicles"]["vehicle"] == _old_vehicle_figures(table, "vehicle")
    # the mission's error statistics, over the rows where the mission is active
    active = table["control.MissionFinished"] <= 0.5
    assert whole["controls"]["control"]["cross_track_error_m"] == stats(table["control.CrossTrackError"][active])
    # the yo-yo's excursion outside its band 5..25 m, from the first entry into it
    depth = table["vehicle.Depth"]
    inside = (depth >= 5.0) & (depth <= 25.0)
    from_entry = np.arange(len(depth)) >= np.argmax(inside)
    excursion = np.where(depth > 25.0, depth - 25.0, np.where(depth < 5.0, depth - 5.0, 0.0))
    assert whole["depth_error_m"] == stats(excursion[active & from_entry])
    assert whole["depth_error_m"]["samples"] < 3001 and whole["depth_error_m"]["max"] > 0


def test_a_run_that_keeps_no_rows_has_the_same_summary(survey_run, tmp_path):
    res = run(find_scenario("survey"), out_dir=tmp_path / "flat", stop_time=300, plots=False,
              progress=False, echo_messages=False, keep_rows=False)
    assert res.data is None and res.rows == survey_run.rows == 3001
    volatile = ("started", "startup_time_s", "stepping_time_s", "real_time_factor", "wall_time_s", "files")
    assert {k: v for k, v in res.summary.items() if k not in volatile} == \
           {k: v for k, v in survey_run.summary.items() if k not in volatile}
    with pytest.raises(ValueError, match="not kept"):
        res.column("vehicle.Depth")


def test_a_week_at_sea_is_planned_not_refused(fmus_built):
    """The step count is no longer limited by a table kept in memory."""
    plan = build_plan(load_scenario(find_scenario("depth_step")), stop_time=604800)
    assert plan.n_steps == 6048000


def _old_zigzag(t, psi, rud, ref, check):
    """The zig-zag figures as they were read off the whole table (an independent transcription)."""
    from auv_cosim.master import rounded

    dev = np.angle(np.exp(1j * (psi - ref)))
    sgn = np.sign(rud)
    nz = np.nonzero(sgn != 0)[0]
    rev = [i for i in range(nz[0] + 1, len(sgn)) if sgn[i] != 0 and sgn[i] != sgn[i - 1] and sgn[i - 1] != 0]
    overs = []
    for j, i in enumerate(rev):
        end = rev[j + 1] if j + 1 < len(rev) else len(dev)
        if end - i < 2 or j + 1 >= len(rev) and end - i < 5:
            continue
        overs.append(math.degrees(max(0.0, float((dev[i:end] * -sgn[i]).max()) - check)))
    t_rev = [float(t[i]) for i in rev]
    return {"check_heading_deg": rounded(math.degrees(check)), "rudder_deg": rounded(math.degrees(float(np.max(np.abs(rud))))),
            "reversals": len(rev), "reversal_times_s": [rounded(x) for x in t_rev[:20]],
            "overshoots_deg": [rounded(x, 4) for x in overs[:20]],
            "first_overshoot_deg": rounded(overs[0], 4) if overs else None,
            "second_overshoot_deg": rounded(overs[1], 4) if len(overs) > 1 else None,
            "max_heading_deviation_deg": rounded(math.degrees(float(np.max(np.abs(dev))))),
            **({"period_s": rounded(2 * float(np.mean(np.diff(t_rev))))} if len(t_rev) >= 3 else {})}


def test_the_zigzag_streams_as_it_was_read_off_the_whole_table(tmp_path, fmus_built):
    res = run(find_scenario("zigzag"), out_dir=tmp_path / "z", stop_time=200, plots=False, progress=False,
              echo_messages=False)
    plan = build_plan(load_scenario(find_scenario("zigzag")), stop_time=200)
    col = lambda n: res.data[:, res.colmap[n]]  # noqa: E731
    psi = col("vehicle.Heading") if "vehicle.Heading" in res.colmap else col("vehicle.Euler[3]")
    ref = col("control.HeadingCommand") if "control.HeadingCommand" in res.colmap else np.zeros_like(psi)
    from auv_cosim.master import param

    expected = _old_zigzag(res.data[:, 0], psi, col("control.RudderYaw"), ref, param(plan, "control", "ZigZagHeading", 0.349))
    assert expected["reversals"] >= 3 and expected["first_overshoot_deg"] is not None
    assert res.summary["analysis"]["zigzag"] == expected
    rng = np.random.default_rng(4)
    for sizes in ([1] * 2001, _random_sizes(rng, 100)):
        observer = SummaryObserver(plan, res.colmap)
        for b in _blocks(res.data, sizes):
            observer._feed(b)
        assert observer.result()["analysis"]["zigzag"] == expected
