"""The plots drawn by two processes (a forked child draws part of them, auv_cosim/master/plots.py) are the
files one process draws alone, byte for byte."""
from master_helpers import master

PLOTS = ["actuators.png", "attitude.png", "battery.png", "depth.png", "navigation.png", "track.png"]


def test_plots_shared_with_a_child_are_those_drawn_alone(tmp_path, monkeypatch, fmus_built):
    shared = master("run", "depth_step", "--stop-time", "60", out=tmp_path / "shared")
    monkeypatch.setenv("AUV_MASTER_PLOTS", "serial")
    alone = master("run", "depth_step", "--stop-time", "60", out=tmp_path / "alone")
    assert shared.rc == 0 and alone.rc == 0, (shared, alone)
    for run in (shared, alone):
        assert sorted(p.rsplit("/", 1)[-1] for p in run.summary["files"]["plots"]) == PLOTS
        assert "plot_error" not in run.summary
    for name in PLOTS:
        a, b = (tmp_path / "shared" / name).read_bytes(), (tmp_path / "alone" / name).read_bytes()
        assert a[:8] == b"\x89PNG\r\n\x1a\n" and a == b, name
