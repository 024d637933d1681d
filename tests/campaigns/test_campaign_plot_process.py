"""The campaign plots drawn by a plot process forked before the cluster starts
(auv_cosim.campaigns.plots.PlotProcess): the same files, byte for byte, as make_plots in the sweep's
own process; a plot process that dies before the table comes, or is stopped without drawing,
leaves the sweep drawing the plots itself and no process behind. Each case runs in a fresh
single-threaded process (the plot process is forked only where no other thread is alive)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import hashlib, json, os, signal, sys, time
from pathlib import Path
from auv_cosim.campaigns.plots import PlotProcess, make_plots
from auv_cosim.campaigns.store import CampaignTable

out = Path(sys.argv[1])
case = sys.argv[2]
rows = []
for seed in range(1, 7):
    for length in (1.8, 2.2):
        rows.append({"run_id": f"r{seed}-{length}", "vehicle.Length": length, "sensors.Seed": seed,
                     "status": "completed" if seed != 3 else "failed", "reason": "",
                     "distance_run_m": 20.0 + seed * length, "energy_used_J": 1000.0 - seed * 7.5 + length,
                     "depth_error_m.rms": 0.01 * seed})
cols = list(rows[0])
table = CampaignTable(rows, cols, ["vehicle.Length", "sensors.Seed"],
                      ["distance_run_m", "energy_used_J", "depth_error_m.rms"], out)

def digests(files):
    return {Path(f).name: hashlib.sha256(Path(f).read_bytes()).hexdigest() for f in files}

result = {"here": digests(make_plots(table, out / "here", "sensors.Seed"))}
plotter = PlotProcess.start()
result["forked"] = plotter is not None
if plotter is not None:
    pid = plotter.pid
    if case == "nice":
        result["nice"] = [os.getpriority(os.PRIO_PROCESS, 0), os.getpriority(os.PRIO_PROCESS, pid)]
        plotter.runs_going()
        result["nice"].append(os.getpriority(os.PRIO_PROCESS, pid))
        result["child"] = digests(plotter.draw(table, out / "child", "sensors.Seed"))
        result["drew"] = plotter.drew
    if case == "draw":
        result["child"] = digests(plotter.draw(table, out / "child", "sensors.Seed"))
        result["drew"] = plotter.drew
    elif case == "killed":
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
        result["child"] = digests(plotter.draw(table, out / "child", "sensors.Seed"))
        result["drew"] = plotter.drew
    elif case == "closed":
        plotter.close()
    try:
        os.waitpid(pid, os.WNOHANG)
        result["reaped"] = False
    except ChildProcessError:
        result["reaped"] = True
print(json.dumps(result))
sys.stdout.flush()
os._exit(0)
"""


def _run(tmp_path: Path, case: str, **env) -> dict:
    script = tmp_path / "plot_process_case.py"
    script.write_text(SCRIPT)
    e = {k: v for k, v in os.environ.items() if k != "AUV_MASTER_PLOTS"}
    e.update(PYTHONPATH=str(REPO), **env)
    r = subprocess.run([sys.executable, str(script), str(tmp_path / "out"), case], cwd=str(REPO), env=e,
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                    reason="the plot process needs fork and two CPUs (elsewhere the sweep draws the plots itself)")
@pytest.mark.parametrize("case", ["draw", "killed"])
def test_the_plot_process_draws_the_same_files(tmp_path, case):
    r = _run(tmp_path, case)
    assert r["forked"]
    assert sorted(r["here"]) == ["vs_vehicle.Length.png"]
    assert r["child"] == r["here"]
    assert r["drew"] is (case == "draw")  # killed: drawn by the sweep's own process instead
    assert r["reaped"]


@pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                    reason="the plot process needs fork and two CPUs")
def test_the_plot_process_gets_ready_at_the_lowest_priority_then_at_runs_nice(tmp_path):
    """PREPARE_NICE from its start (set by the sweep: no moment at the sweep's priority once
    ``start`` returns), RUNS_NICE above the sweep's own once the runs go; drawing as before."""
    from auv_cosim.campaigns.plots import PREPARE_NICE, RUNS_NICE

    r = _run(tmp_path, "nice")
    own, at_start, running = r["nice"]
    assert at_start == PREPARE_NICE == 19
    assert running == min(own + RUNS_NICE, 19) and (own > 14 or running < at_start)
    assert r["child"] == r["here"] and r["drew"] is True and r["reaped"]


@pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                    reason="the plot process needs fork and two CPUs")
def test_a_plot_process_stopped_without_drawing_is_reaped(tmp_path):
    r = _run(tmp_path, "closed")
    assert r["forked"] and r["reaped"]


def test_no_plot_process_when_asked_for_serial_plots(tmp_path):
    r = _run(tmp_path, "draw", AUV_MASTER_PLOTS="serial")
    assert r["forked"] is False and sorted(r["here"]) == ["vs_vehicle.Length.png"]


def _table(out: Path, n_figures: int):
    from auv_cosim.campaigns.store import CampaignTable

    figures = [f"figure_{k}" for k in range(n_figures)]
    rows = [{"run_id": f"r{seed}", "sensors.Seed": seed, "status": "completed", "reason": "",
             **{f: (k + 1) * 10.0 ** (k % 5 - 2) * (1.0 + 0.1 * seed + 0.01 * (seed * k % 7)) for k, f in enumerate(figures)}}
            for seed in range(1, 9)]
    return CampaignTable(rows, list(rows[0]), ["sensors.Seed"], figures, out)


@pytest.mark.parametrize("n_figures", [12, 3])
def test_a_figure_built_ahead_draws_the_same_file(tmp_path, n_figures):
    """make_plots with the figure the plot process builds ahead (its panels' tick objects made
    then): the same PNG as built when drawn; a figure built ahead for another grid is not used,
    and closed."""
    import hashlib

    import matplotlib.pyplot as plt

    from auv_cosim.campaigns.plots import MAX_PANELS, build_figure, grid_of, make_plots

    table = _table(tmp_path, n_figures)
    fresh = make_plots(table, tmp_path / "fresh", "sensors.Seed")
    ahead = build_figure(*grid_of(MAX_PANELS))
    assert all(len(ax.xaxis.majorTicks) >= 12 for ax in ahead[0].axes)
    built = make_plots(table, tmp_path / "ahead", "sensors.Seed", built={grid_of(MAX_PANELS): ahead})
    assert [p.name for p in fresh] == [p.name for p in built] == ["vs_sensors.Seed.png"]
    assert hashlib.sha256(fresh[0].read_bytes()).digest() == hashlib.sha256(built[0].read_bytes()).digest()
    # drawn into the figure built ahead only when its grid is the campaign's (12 figures: 4 x 3)
    assert (ahead[0].axes[0].get_title() != "") == (grid_of(n_figures) == grid_of(MAX_PANELS))
    assert not plt.fignum_exists(ahead[0].number)
