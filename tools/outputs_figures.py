"""The figures of the run outputs (docs/outputs.md), each printed by this command.

    python tools/outputs_figures.py files     # the survey with every format, read back
    python tools/outputs_figures.py realtime  # depth_step 60 s at --realtime 1 and 10
    python tools/outputs_figures.py long      # a 24 h depth_step: CSV alone vs CSV + Parquet

`files`: the channels and message counts of results.mcap, the topics of the ROS 2 bag, and the
largest difference of the vehicle's position in each from results.csv's. `realtime`: the paced
stepping's wall time against the simulated time, and the lateness. `long`: the files' sizes
and the peak resident memory of each run (its own process, /proc's VmHWM).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _run(*args) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "auv_cosim", "run", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)
    return done


def files() -> None:
    from references.readers import bag_messages, mcap_messages, results_table

    base = Path(tempfile.mkdtemp(prefix="outputs-figures-"))
    out = base / "survey"
    _run("survey", "--no-plots", "-q", "--out", str(out), "--format", "csv,mcap,rosbag,parquet")
    _run("survey", "--no-plots", "-q", "--out", str(base / "plain"))
    wall = {k: json.loads((base / k / "summary.json").read_text())["wall_time_s"] for k in ("survey", "plain")}
    print(f"survey run: {wall['plain']:.2f} s wall with results.csv alone, {wall['survey']:.2f} s with "
          f"csv,mcap,rosbag,parquet (identical results.csv: "
          f"{(out / 'results.csv').read_bytes() == (base / 'plain' / 'results.csv').read_bytes()})")
    header, data = results_table(out)
    pos = data[:, [header.index(f"vehicle.Pos[{i}]") for i in (1, 2, 3)]]
    channels, msgs = mcap_messages(out / "results.mcap")
    print(f"survey: {len(data)} rows in results.csv, {data[-1, 0]:g} s")
    print(f"results.mcap ({(out / 'results.mcap').stat().st_size / 1e6:.2f} MB):")
    for topic, (schema, encoding, count) in sorted(channels.items()):
        print(f"  {topic:20s} {schema or '-':28s} {encoding:9s} {count}")
    enu = np.array([[m.pose.position.x, m.pose.position.y, m.pose.position.z] for t, _l, m in
                    [(topic, lt, m) for topic, lt, m in msgs if topic == "/vehicle/pose"]])
    print(f"  position vs results.csv: max |diff| {np.abs(enu[:, [1, 0, 2]] * [1, 1, -1] - pos).max():.3g} m")
    topics, bag = bag_messages(out / "rosbag")
    size = sum(p.stat().st_size for p in (out / "rosbag").rglob("*") if p.is_file())
    print(f"rosbag/ ({size / 1e6:.2f} MB):")
    for topic, (msgtype, count) in sorted(topics.items()):
        print(f"  {topic:20s} {msgtype:34s} {count}")
    odom = np.array([[m.pose.pose.position.y, m.pose.pose.position.x, -m.pose.pose.position.z]
                     for topic, _t, m in bag if topic == "/vehicle/odom"])
    print(f"  position vs results.csv: max |diff| {np.abs(odom - pos).max():.3g} m")
    print(f"results.parquet: {(out / 'results.parquet').stat().st_size / 1e6:.2f} MB, "
          f"results.csv {(out / 'results.csv').stat().st_size / 1e6:.2f} MB")
    shutil.rmtree(base)


def realtime() -> None:
    for factor in ("1", "10"):
        out = Path(tempfile.mkdtemp(prefix="outputs-rt-"))
        _run("depth_step", "--stop-time", "60", "--no-plots", "-q", "--out", str(out), "--realtime", factor)
        rt = json.loads((out / "summary.json").read_text())["realtime"]
        want = 60.0 / float(factor)
        print(f"--realtime {factor}: wall {rt['wall_s']:.4f} s for {rt['simulated_s']:g} s "
              f"({100 * (rt['wall_s'] - want) / want:+.3f} % of {want:g} s); lateness median "
              f"{rt['lateness_median_s'] * 1e3:.3f} ms, p99 {rt['lateness_p99_s'] * 1e3:.3f} ms, "
              f"max {rt['lateness_max_s'] * 1e3:.3f} ms; overruns {rt['overruns']} of {rt['points']}")
        shutil.rmtree(out)


def _peak_run(*args) -> int:
    """Peak resident memory (kB) of `auv-cosim run ARGS` in its own process."""
    code = ("import sys, runpy; sys.argv = ['auv-cosim', 'run'] + sys.argv[1:]\n"
            "from auv_cosim.cli import main\ncode = main()\n"
            "print('VmHWM', [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])\n"
            "sys.stdout.flush()\nimport os; os._exit(code)")
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        sys.exit(done.stderr)
    return int(done.stdout.strip().split()[-1])


def long() -> None:
    base = Path(tempfile.mkdtemp(prefix="outputs-24h-"))
    for label, extra in (("csv", []), ("csv+parquet", ["--format", "csv,parquet"])):
        out = base / label.replace("+", "_")
        peak = _peak_run("depth_step", "--stop-time", "86400", "--no-plots", "-q", "--out", str(out), *extra)
        sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in sorted(out.glob("results.*")))
        wall = json.loads((out / "summary.json").read_text())["wall_time_s"]
        print(f"24 h depth_step, {label}: peak memory {peak / 1024:.0f} MB; {sizes}; {wall:.1f} s wall")
        shutil.rmtree(out)


if __name__ == "__main__":
    {"files": files, "realtime": realtime, "long": long}[sys.argv[1] if len(sys.argv) > 1 else "files"]()
