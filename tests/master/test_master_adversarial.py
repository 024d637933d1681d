"""Issue 17: what a demanding user found wrong in `auv-cosim` (run, validate, list), one
test per finding (numbered as in the issue), black-box: through the CLI in a fresh process or
the public loading API (load a scenario, plan it). The campaign findings are in
tests/campaigns/test_campaign_adversarial.py."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from auv_cosim.master import ScenarioError, load_scenario
from auv_cosim.master.plan import build_plan

from master_helpers import REPO, _env, master, popen_master
from auv_cosim.master import find_scenario

pytestmark = pytest.mark.usefixtures("fmus_built")

DEPTH_STEP = (find_scenario("depth_step")).as_posix()
STACK = (find_scenario("stacks/survey")).as_posix()


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def refused(tmp_path, text: str, name="s.yaml", overrides=None, **kw) -> str:
    with pytest.raises(ScenarioError) as e:
        build_plan(load_scenario(write(tmp_path, name, text), overrides), **kw)
    return str(e.value)


def start_values(plan, inst: str) -> dict:
    return {v.name: val for v, val in plan.instances[inst].params}


# ---------------------------------------------------------------- silently wrong results


def test_01_disconnect_keeps_the_files_own_new_connection(tmp_path):
    text = f"""include: {DEPTH_STEP}
disconnect: [control.MeasuredDepth]
connections: [vehicle.Depth -> control.MeasuredDepth]
"""
    plan = build_plan(load_scenario(write(tmp_path, "s.yaml", text)))
    into = [c.text for c in plan.connections if c.dst == "control" and c.dst_var.name == "MeasuredDepth"]
    assert into == ["vehicle.Depth -> control.MeasuredDepth"]
    assert "control.MeasuredDepth" not in plan.unconnected_inputs
    # the new connection is checked like any other
    bad = text.replace("vehicle.Depth -> control.MeasuredDepth", "vehicle.Depth -> control.AltitudeValid")
    bad = bad.replace("[control.MeasuredDepth]", "[control.AltitudeValid]")
    assert "type mismatch, vehicle.Depth is Real but control.AltitudeValid is Boolean" in refused(tmp_path, bad, "b.yaml")


def test_02_set_on_a_driven_input_replaces_the_signal_or_is_refused(tmp_path):
    plan = build_plan(load_scenario(DEPTH_STEP, {"control.SpeedCommand": "0.8"}))
    sig = next(s for s in plan.signals if s.target == "control.SpeedCommand")
    assert sig.spec.constant == 0.8
    # a start value that a connection would overwrite is refused wherever it is given
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\ninstances:\n  vehicle: {{parameters: {{ThrustPower: 50}}}}\n")
    assert "s.yaml: instances.vehicle.parameters.ThrustPower: vehicle.ThrustPower is driven by connection" in msg


def test_03_the_latest_setting_wins_whole_vector_or_element(tmp_path):
    elem = write(tmp_path, "elem.yaml", f"include: {DEPTH_STEP}\ninstances:\n  vehicle: {{parameters: {{'Pos0[3]': 10}}}}\n")
    pos0 = lambda plan: [start_values(plan, "vehicle")[f"Pos0[{i}]"] for i in (1, 2, 3)]  # noqa: E731
    # --set of the whole vector over a file's element
    assert pos0(build_plan(load_scenario(elem, {"vehicle.Pos0": ["0", "0", "3"]}))) == [0, 0, 3]
    # an including file's whole vector over an included element
    top = write(tmp_path, "top.yaml", "include: elem.yaml\ninstances:\n  vehicle: {parameters: {Pos0: [0, 0, 20]}}\n")
    assert pos0(build_plan(load_scenario(top))) == [0, 0, 20]
    # an element over a whole vector of an included file, and --set of an element
    assert pos0(build_plan(load_scenario(DEPTH_STEP, {"vehicle.Pos0[3]": "6"}))) == [0, 0, 6]
    assert pos0(build_plan(load_scenario(top, {"vehicle.Pos0[3]": "6"}))) == [0, 0, 6]
    # within one file, the later line wins
    one = write(tmp_path, "one.yaml", f"include: {STACK}\nstop_time: 1\ninstances:\n"
                                      "  vehicle: {parameters: {\"Pos0[3]\": 10, Pos0: [0, 0, 7]}}\n")
    assert pos0(build_plan(load_scenario(one))) == [0, 0, 7]


def test_04_integers_that_do_not_fit_32_bits_are_refused(tmp_path):
    r = master("run", "depth_step", "--set", "sensors.Seed=4294967297", "--stop-time", "1", "--no-plots",
               out=tmp_path / "o")
    assert r.rc == 2, r
    assert "--set: sensors.Seed: sensors.Seed is an Integer (32 bits); 4294967297 is outside" in r.stderr
    assert not (tmp_path / "o" / "results.csv").exists()
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\ninstances:\n  sensors: {{parameters: {{Seed: 4294967297}}}}\n")
    assert "s.yaml: instances.sensors.parameters.Seed: sensors.Seed is an Integer (32 bits)" in msg


def test_05_a_step_that_does_not_divide_the_run_is_refused(tmp_path):
    r = master("run", "depth_step", "--step", "0.3", "--stop-time", "1", "--no-plots", out=tmp_path / "o")
    assert r.rc == 2, r
    assert "--step: step: the step 0.3 s does not divide the run from 0 to 1 s" in r.stderr
    assert "or stop at 0.9 s or 1.2 s" in r.stderr
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\nstop_time: 1.05\n")
    assert "s.yaml: stop_time: the step 0.1 s does not divide the run from 0 to 1.05 s" in msg
    # what does divide still runs to exactly the stop time
    r = master("run", "depth_step", "--step", "0.25", "--stop-time", "1", "--no-plots", out=tmp_path / "ok")
    assert r.rc == 0, r
    assert r.column("time") == [0, 0.25, 0.5, 0.75, 1.0]


def test_06_tiny_steps_give_distinct_times(tmp_path):
    r = master("run", "depth_step", "--step", "1e-11", "--stop-time", "1e-9", "--no-plots", out=tmp_path / "o")
    assert r.rc == 0, r
    times = r.column("time")
    assert len(times) == 101 and len(set(times)) == 101
    assert all(b > a for a, b in zip(times, times[1:]))
    assert times[-1] == 1e-9


# ---------------------------------------------------------------- lost data


def test_07_two_runs_into_one_folder_the_second_is_refused(tmp_path):
    out = tmp_path / "o"
    # long enough to be still running whatever the machine's load (it is interrupted below)
    first = popen_master("run", "depth_step", "--stop-time", "100000", "--no-plots", "--no-progress", out=out)
    try:
        deadline = time.monotonic() + 60
        while not (out / "results.csv").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = master("run", "zigzag", "--stop-time", "1", "--no-plots", out=out)
        assert second.rc == 2, second
        assert "another run is writing into this folder" in second.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=120)
    assert first.returncode == 130
    s = json.loads((out / "summary.json").read_text())
    assert s["scenario"] == "depth_step" and s["status"] == "interrupted"
    # and once the first has ended, the folder is free again
    assert master("run", "depth_step", "--stop-time", "1", "--no-plots", out=out).rc == 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_08_a_signal_while_the_plots_are_drawn_keeps_summary_json(tmp_path, sig):
    out = tmp_path / "o"
    for attempt in range(3):
        proc = popen_master("run", "depth_step", "--stop-time", "120", "--no-progress", out=out)
        deadline = time.monotonic() + 120
        while not list(out.glob("*.png")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        proc.send_signal(sig)
        proc.communicate(timeout=120)
        if proc.returncode != 0:  # the signal arrived while the plots were drawn
            break
    assert proc.returncode == 130, proc.returncode
    s = json.loads((out / "summary.json").read_text())
    assert s["status"] == "interrupted"
    assert "after the simulation had finished (reached stop time 120 s)" in s["reason"]
    assert s["steps"] == 1200 and s["analysis"]["depth_step"]["to_m"] == 11.0
    assert len((out / "results.csv").read_text().splitlines()) == 1202


# ---------------------------------------------------------------- named errors, not tracebacks


def test_10_binary_and_non_utf8_files_are_refused_by_name(tmp_path):
    r = master("run", "fmus/Auv.fmu", out=tmp_path / "o")
    assert r.rc == 2 and "Traceback" not in r.stderr, r
    assert "fmus/Auv.fmu: not a text file in UTF-8" in r.stderr
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(f"description: Tiefe \xfcber Grund\ninclude: {DEPTH_STEP}\n".encode("latin-1"))
    r = master("run", str(latin), out=tmp_path / "o")
    assert r.rc == 2 and "latin.yaml: not a text file in UTF-8 (byte 0xfc" in r.stderr, r
    r = master("sweep", "fmus/Auv.fmu", "--vary", "vehicle.Length=1.5", "--dry-run", out=tmp_path / "c")
    assert r.rc == 2 and "Traceback" not in r.stderr and "not a text file in UTF-8" in r.stderr, r
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "bad.yaml").write_bytes(b"description: \xff\xfe\n")
    (tmp_path / "dir" / "good.yaml").write_text(f"description: fine\ninclude: {DEPTH_STEP}\n")
    r = master("list", "--dir", str(tmp_path / "dir"))
    assert r.rc == 0, r
    assert "bad   (unreadable:" in r.stdout and "good  fine" in r.stdout


def test_11_an_unusable_output_folder_is_refused_by_name(tmp_path):
    (tmp_path / "file").write_text("x")
    for out, why in ((tmp_path / "file", "exists and is not a folder"),
                     (tmp_path / "file" / "sub", "cannot create the output folder")):
        r = master("run", "depth_step", "--stop-time", "1", "--no-plots", out=out)
        assert r.rc == 2 and "Traceback" not in r.stderr, r
        assert f"--out: {out}: {why}" in r.stderr
    (tmp_path / "o" / "results.csv").mkdir(parents=True)
    r = master("run", "depth_step", "--stop-time", "1", "--no-plots", out=tmp_path / "o")
    assert r.rc == 2 and "results.csv in it is a folder" in r.stderr, r
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        r = master("run", "depth_step", "--stop-time", "1", "--no-plots", out=ro)
        assert r.rc == 2 and "not writable" in r.stderr, r


def test_12_infinite_start_time_is_refused(tmp_path):
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\nstart_time: -.inf\n")
    assert "s.yaml: start_time: Input should be a finite number" in msg


def _corrupt_copy(tmp_path) -> Path:
    """Auv.fmu with one byte flipped inside the compressed data of its largest member."""
    src = REPO / "fmus" / "Auv.fmu"
    with zipfile.ZipFile(src) as z:
        info = max(z.infolist(), key=lambda i: i.compress_size)
    data = bytearray(src.read_bytes())
    # local header: 30 bytes + name + extra, then the data
    name_len = int.from_bytes(data[info.header_offset + 26:info.header_offset + 28], "little")
    extra_len = int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
    at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
    data[at] ^= 0x01
    bad = tmp_path / "Auv.fmu"
    bad.write_bytes(bytes(data))
    return bad


def test_13_a_crc_corrupt_fmu_is_caught_by_validate_and_refused_by_run(tmp_path):
    bad = _corrupt_copy(tmp_path)
    r = master("validate", str(bad))
    assert r.rc == 1, r
    assert "damaged FMU" in r.stdout and ": OK" not in r.stdout
    scen = write(tmp_path, "s.yaml", f"include: {DEPTH_STEP}\ninstances:\n  vehicle: {{fmu: {bad}}}\n")
    cache = tmp_path / "cache"
    env = {**_env(), "AUV_MASTER_FMU_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, "-m", "auv_cosim", "run", str(scen), "--out", str(tmp_path / "o"), "--no-plots"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert "s.yaml: instances.vehicle.fmu:" in proc.stderr and "damaged FMU" in proc.stderr
    assert not (tmp_path / "o" / "results.csv").exists()
    # no partial extraction of the corrupt FMU left behind in the cache (the good ones may be there)
    leftovers = [p.name for p in cache.iterdir() if p.name.lstrip(".").startswith("Auv-")] if cache.exists() else []
    assert leftovers == []


def test_14_runs_that_cannot_finish_are_refused_at_once(tmp_path):
    """More steps than a double counts exactly (2**53) is refused; a run's memory no longer
    limits its length (a week at sea: tests/master/test_streaming_summary.py)."""
    for flag, value, blamed in (("--step", "1e-300", "--step: step:"), ("--stop-time", "1e17", "--stop-time: stop_time:")):
        t0 = time.monotonic()
        r = master("run", "depth_step", flag, value, "--no-plots", out=tmp_path / "o", timeout=60)
        assert r.rc == 2, r
        assert blamed in r.stderr and "steps; a run is limited to 2**53 steps" in r.stderr
        assert time.monotonic() - t0 < 30


def test_15_the_resolved_scenario_of_a_run_with_set_runs_again(tmp_path):
    r = master("run", "depth_step", "--stop-time", "1", "--no-plots", "--set", "sensors.Seed=7",
               "--set", "vehicle.Pos0=[0,0,3]", "--set", "control.GuidanceMode=hold", out=tmp_path / "a")
    assert r.rc == 0, r
    resolved = yaml.safe_load((tmp_path / "a" / "scenario.resolved.yaml").read_text())
    params = resolved["instances"]
    assert params["sensors"]["parameters"]["Seed"] == 7
    assert params["vehicle"]["parameters"]["Pos0"] == [0.0, 0.0, 3.0]
    again = master("run", str(tmp_path / "a" / "scenario.resolved.yaml"), "--no-plots", out=tmp_path / "b")
    assert again.rc == 0, again
    assert (tmp_path / "a" / "results.csv").read_bytes() == (tmp_path / "b" / "results.csv").read_bytes()


def test_16_a_diamond_include_merges_the_shared_stack_once(tmp_path):
    write(tmp_path, "left.yaml", f"include: {STACK}\n")
    write(tmp_path, "right.yaml", f"include: {STACK}\n")
    plan = build_plan(load_scenario(write(tmp_path, "top.yaml", "include: [left.yaml, right.yaml]\nstop_time: 1\n")))
    assert len(plan.connections) == 23


def test_17_a_whole_float_is_an_integer_on_the_command_line_too(tmp_path):
    plan = build_plan(load_scenario(DEPTH_STEP, {"sensors.Seed": "2.0"}))
    assert start_values(plan, "sensors")["Seed"] == 2
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\n", overrides={"sensors.Seed": "2.5"})
    assert "--set: sensors.Seed: sensors.Seed is an Integer; expected a whole number, got 2.5" in msg


@pytest.mark.parametrize("line, field", [("stop_time: yes", "stop_time"), ('step: "0.5"', "step"),
                                         ("step: true", "step"), ("start_time: .nan", "start_time"),
                                         ("stop_time: .inf", "stop_time")])
def test_19_times_must_be_finite_numbers_written_as_numbers(tmp_path, line, field):
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\n{line}\n")
    assert f"s.yaml: {field}: Input should be a" in msg


def test_20_a_stop_condition_on_a_vector_names_its_elements(tmp_path):
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\nstop_when: 'vehicle.Pos > 1'\n")
    assert "'vehicle.Pos > 1': vehicle.Pos is a vector of 3 elements; compare one of them, e.g. vehicle.Pos[3]" in msg
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\nstop_when: 'vehicle.Pos[4] > 1'\n")
    assert "vehicle.Pos has 3 elements (Pos[1] .. Pos[3]); there is no element [4]" in msg


def test_21_an_element_past_the_end_of_a_vector_is_named(tmp_path):
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\n", overrides={"vehicle.Pos0[4]": "1"})
    assert "--set: vehicle.Pos0[4]: vehicle.Pos0 has 3 elements (Pos0[1] .. Pos0[3]); there is no element [4]" in msg


def test_22_errors_of_the_command_line_blame_the_flag(tmp_path):
    for args, blamed in ((["--step", "0"], "--step: step: must be a positive finite number"),
                         (["--stop-time", "nan"], "--stop-time: stop_time: must be a finite time"),
                         (["--set", "vehicle.Pos0[3]=abc"], "--set: vehicle.Pos0[3]: vehicle.Pos0[3] is a Real")):
        r = master("run", "depth_step", *args, "--no-plots", out=tmp_path / "o")
        assert r.rc == 2 and blamed in r.stderr, (args, r)
    # the sweep blamed the scenario for its own flags
    for args, blamed in ((["--step", "0"], "--step: step: must be a positive finite number"),
                         (["--stop-time", "nan"], "--stop-time: stop_time: must be a positive finite number"),
                         (["--step", "0.3", "--stop-time", "1"], "--step: step: the step 0.3 s does not divide")):
        r = master("sweep", "depth_step", "--vary", "vehicle.Length=1.5", *args, "--dry-run", out=tmp_path / "c")
        assert r.rc == 2 and blamed in r.stderr and "<scenario>" not in r.stderr, (args, r)


def test_23_an_analysis_naming_nothing_is_refused_before_the_run(tmp_path):
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\nanalysis:\n  depth_step: {{command: control.DepthComand}}\n")
    assert ("s.yaml: analysis.depth_step.command: no signal drives 'control.DepthComand'" in msg
            and "did you mean 'control.DepthCommand'" in msg)
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\nanalysis:\n  surfacing: {{vehicle: auv}}\n")
    assert "s.yaml: analysis.surfacing.vehicle: unknown instance 'auv'" in msg


def test_24_validate_names_what_is_wrong_with_a_path_it_was_given(tmp_path):
    r = master("validate", str(tmp_path / "Nope.fmu"))
    assert r.rc == 2 and "Nope.fmu: no such file" in r.stderr and "build it" not in r.stdout + r.stderr, r
    r = master("validate", str(tmp_path))
    assert r.rc == 2 and "is a directory, not an FMU file" in r.stderr, r


# ---------------------------------------------------------------- the same classes, elsewhere


def test_class_a_signal_on_a_boolean_input_takes_only_0_or_1(tmp_path):
    """Silently wrong: the master hands Integer and Boolean inputs whole numbers, so 0.5 became
    false and a sine a square wave of truncations."""
    base = f"include: {DEPTH_STEP}\ndisconnect: [control.AltitudeValid]\nsignals:\n"
    msg = refused(tmp_path, base + "  control.AltitudeValid: 0.5\n")
    assert "control.AltitudeValid is a Boolean: the signal takes the value 0.5; a Boolean input takes 0 or 1" in msg
    msg = refused(tmp_path, base + "  control.AltitudeValid: {sine: {amplitude: 1, period: 10}}\n")
    assert "only constant and step signals can drive it" in msg
    plan = build_plan(load_scenario(write(tmp_path, "ok.yaml", base + "  control.AltitudeValid: {step: {time: 1, after: 1}}\n")))
    assert any(s.target == "control.AltitudeValid" for s in plan.signals)


def test_class_elements_past_the_end_are_named_in_connections_and_signals(tmp_path):
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\nconnections: ['vehicle.Pos[4] -> control.NavNorth']\n"
                            "disconnect: [control.NavNorth]\n")
    assert "'vehicle.Pos[4] -> control.NavNorth': vehicle.Pos has 3 elements (Pos[1] .. Pos[3]); there is no element [4]" in msg
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\nsignals:\n  'vehicle.ExternalForce[7]': 1\n")
    assert "vehicle.ExternalForce has 3 elements" in msg and "there is no element [7]" in msg


def test_class_list_of_a_missing_folder_is_refused(tmp_path):
    r = master("list", "--dir", str(tmp_path / "nope"))
    assert r.rc == 2 and "--dir:" in r.stderr and "no such folder" in r.stderr, r


def test_class_a_key_given_twice_in_a_file_is_refused(tmp_path):
    """Silently wrong: YAML kept the last of two equal keys, so a second `vehicle:` under
    `instances` dropped every parameter of the first."""
    msg = refused(tmp_path, f"include: {DEPTH_STEP}\ninstances:\n  vehicle:\n    parameters: {{Length: 1.7}}\n"
                            "  vehicle:\n    parameters: {Diameter: 0.2}\n")
    assert "s.yaml: not valid YAML (line 5, column 3): the key 'vehicle' is given twice in one mapping (first at line 3)" in msg
