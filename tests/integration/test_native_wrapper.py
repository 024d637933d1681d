"""The project's native FMI 2.0 wrapper (auv_cosim/build/native/python_fmu.c) inside the FMUs.

Checked in the hosts it was written for: a C host without Python (tests/hosts/fmi2_host.c,
as a C/C++ co-simulation tool would load the FMU), and Python hosts through fmpy. What the
issue asked: no LD_PRELOAD, no crash at exit, fmi2Error for a bad parameter with the instance
still usable for fmi2Reset / fmi2FreeInstance, fmi2Error for a non-finite input, logging that
reaches the host, and the ways the embedded interpreter finds numpy and scipy.

Without a C compiler tools/build_fmus.py keeps pythonfmu's stock binary: the module is then
skipped, with that reason.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from fmpy import calloc, extract, free, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                       fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)

from tests.wrapper_kind import ERROR, has_native_wrapper, native_wrapper

ROOT = Path(__file__).resolve().parents[2]
FMUS = ROOT / "fmus"
AUV = FMUS / "Auv.fmu"
HOST_SOURCE = ROOT / "tests" / "hosts" / "fmi2_host.c"
CRUISE = {"ThrustPower": 30.0, "Pos0[3]": 10.0, "AverageDensity": 1025.0, "LocalVel0[1]": 1.3}


@pytest.fixture(scope="module", autouse=True)
def built_fmus():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "build_fmus.py"), "-q"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    if not has_native_wrapper(AUV):
        pytest.skip("fmus/Auv.fmu carries pythonfmu's stock binary: no C compiler was found when "
                    f"it was built ({native_wrapper.NO_COMPILER_COST})")


@pytest.fixture(scope="module")
def auv(tmp_path_factory):
    """(model description, extracted folder, name -> value reference) of Auv.fmu."""
    md = read_model_description(str(AUV))
    folder = extract(str(AUV), unzipdir=str(tmp_path_factory.mktemp("Auv")))
    return md, Path(folder), {v.name: v.valueReference for v in md.modelVariables}


@pytest.fixture(scope="module")
def c_host(tmp_path_factory):
    compiler = native_wrapper.find_compiler()
    assert compiler, "the FMU has the native wrapper, so a compiler was found to build it"
    host = tmp_path_factory.mktemp("host") / "fmi2_host"
    subprocess.run([*compiler, "-std=c99", "-O1", "-o", str(host), str(HOST_SOURCE), "-ldl"],
                   check=True)
    return host


def _clean_environment(**extra):
    """The environment of a host that knows nothing of Python."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env.update(extra)
    return env


def _run_c_host(c_host, auv, stop=5.0, output="Pos[1]", env=None):
    md, folder, vr = auv
    command = [str(c_host), str(folder / "binaries" / "linux64" / "Auv.so"),
               str(folder / "resources"), str(stop), "0.1", str(vr[output]),
               *[f"{vr[name]}={value!r}" for name, value in CRUISE.items()]]
    return subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env=env if env is not None else _clean_environment())


def _fmpy_value(auv, stop=5.0, output="Pos[1]"):
    """The same run as _run_c_host, in this process through fmpy."""
    md, folder, vr = auv
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=str(folder), modelIdentifier="Auv",
                    instanceName="host")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.setReal([vr[n] for n in CRUISE], list(CRUISE.values()))
    fmu.exitInitializationMode()
    for k in range(int(round(stop / 0.1))):
        fmu.doStep(k * 0.1, 0.1)
    value = fmu.getReal([vr[output]])[0]
    fmu.terminate()
    fmu.freeInstance()
    return value


# ------------------------------------------------------------------------------ no LD_PRELOAD
def test_binary_does_not_link_libpython(auv):
    md, folder, vr = auv
    needed = subprocess.run(["ldd", str(folder / "binaries" / "linux64" / "Auv.so")],
                            capture_output=True, text=True).stdout
    assert "libc.so" in needed and "libpython" not in needed, needed


def test_c_host_runs_auv_without_ld_preload_and_exits_cleanly(c_host, auv):
    """A host without Python: no LD_PRELOAD, no PYTHONPATH; the wrapper starts the
    interpreter recorded in resources/python_environment.txt (the build's venv). Same
    result as fmpy in this process, bit for bit, and exit status 0 each time."""
    expected = _fmpy_value(auv)
    for _ in range(3):
        result = _run_c_host(c_host, auv)
        assert result.returncode == 0, (result.returncode, result.stderr[-3000:])
        assert float(result.stdout.split("=")[1]) == expected


def test_embedded_interpreter_follows_the_settings(c_host, auv, tmp_path):
    """FMU_PYTHON_EXECUTABLE is the first candidate: a venv without numpy is refused (it is
    asked, not started) and the FMU goes on to the interpreter recorded at build, saying why;
    with PYTHONPATH giving it the packages the same venv is the one used."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = str(bare / "bin" / "python")
    result = _run_c_host(c_host, auv, stop=0.5, env=_clean_environment(FMU_PYTHON_EXECUTABLE=python))
    assert result.returncode == 0, (result.returncode, result.stderr[-3000:])
    refused = f"FMU_PYTHON_EXECUTABLE={python}: lacks "
    assert refused in result.stderr and "numpy==" in result.stderr.split(refused)[1], result.stderr[-3000:]
    assert "the interpreter recorded at build" in result.stderr and "chosen" in result.stderr
    site = sysconfig.get_paths()["purelib"]
    result = _run_c_host(c_host, auv, stop=0.5,
                         env=_clean_environment(FMU_PYTHON_EXECUTABLE=python, PYTHONPATH=site))
    assert result.returncode == 0, (result.returncode, result.stderr[-3000:])
    assert "chosen" not in result.stderr, result.stderr[-3000:]


def test_python_host_loads_steps_and_frees_the_three_fmus_and_exits_0(tmp_path):
    """A Python host that exits normally (no os._exit): pythonfmu's binary aborted now and then
    here ("corrupted double-linked list"); 50 runs: tools/prove_native_wrapper.py."""
    script = tmp_path / "host.py"
    script.write_text(textwrap.dedent(f"""
        from fmpy import simulate_fmu
        for name in ("Auv", "AuvSensors", "AuvControl"):
            simulate_fmu({str(FMUS)!r} + "/" + name + ".fmu", stop_time=1.0, step_size=0.1)
        print("done")
    """))
    env = dict(os.environ)
    env.pop("AUV_TEST_NORMAL_EXIT", None)
    for _ in range(3):
        result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                                timeout=300, env=env)
        assert (result.returncode, result.stdout.strip()) == (0, "done"), result.stderr[-3000:]


# ------------------------------------------------------------------------------ status codes
class Instance:
    """Auv.fmu through fmpy with its log messages captured (formatted by fmpy's proxy, as
    fmpy's own default callbacks do)."""

    def __init__(self, auv, logging_on=True, name="auv", model="Auv"):
        from ctypes import byref
        from fmpy.logging import addLoggerProxy

        md, folder, self.vr = auv
        self.messages = []

        def logger(env, instance, status, category, message):
            self.messages.append((status, (category or b"").decode(), (message or b"").decode()))

        self.callbacks = fmi2CallbackFunctions()
        self.callbacks.logger = fmi2CallbackLoggerTYPE(logger)
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        addLoggerProxy(byref(self.callbacks))
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=str(folder), modelIdentifier=model,
                             instanceName=name)
        self.fmu.instantiate(callbacks=self.callbacks, loggingOn=logging_on)

    def initialize(self, **values):
        self.fmu.setupExperiment(startTime=0.0)
        self.fmu.enterInitializationMode()
        self.fmu.setReal([self.vr[n] for n in values], list(values.values()))
        self.fmu.exitInitializationMode()
        return self

    def errors(self):
        return [m for s, _, m in self.messages if s >= ERROR]


def test_bad_parameter_is_fmi2error_and_the_instance_can_be_reset(auv):
    i = Instance(auv)
    with pytest.raises(FMICallException) as failure:
        i.initialize(Length=-1.0)
    assert (failure.value.function, failure.value.status) == ("fmi2ExitInitializationMode", ERROR)
    assert any("Length" in m for m in i.errors()), i.messages
    i.fmu.reset()                                            # fmi2Reset: back to instantiated
    i.initialize(**CRUISE)
    i.fmu.doStep(0.0, 1.0)
    assert i.fmu.getReal([i.vr["Depth"]])[0] == pytest.approx(10.0, abs=0.05)
    i.fmu.terminate()
    i.fmu.freeInstance()
    other = Instance(auv, name="freed")                      # fmi2FreeInstance right after
    with pytest.raises(FMICallException):
        other.initialize(**{"Quater0[1]": 0.0})
    other.fmu.freeInstance()


def test_non_finite_input_is_fmi2error_and_the_state_can_be_restored(auv):
    i = Instance(auv).initialize(**CRUISE)
    i.fmu.doStep(0.0, 0.5)
    saved = i.fmu.getFMUstate()
    before = i.fmu.getReal([i.vr["Pos[1]"]])[0]
    i.fmu.setReal([i.vr["RudderYaw"]], [float("inf")])
    with pytest.raises(FMICallException) as failure:
        i.fmu.doStep(0.5, 0.5)
    assert failure.value.status == ERROR
    assert any("RudderYaw" in m and "not finite" in m for m in i.errors()), i.messages
    i.fmu.setFMUstate(saved)                                 # what the standard offers after fmi2Error
    i.fmu.freeFMUstate(saved)
    i.fmu.setReal([i.vr["RudderYaw"]], [0.0])
    i.fmu.doStep(0.5, 0.5)
    assert i.fmu.getReal([i.vr["Pos[1]"]])[0] > before
    i.fmu.terminate()
    i.fmu.freeInstance()


def test_errors_reach_the_host_with_logging_off_and_info_only_with_it_on(auv):
    quiet = Instance(auv, logging_on=False, name="quiet")
    with pytest.raises(FMICallException):
        quiet.initialize(Length=-2.0)
    assert quiet.messages and all(s == ERROR for s, _, _ in quiet.messages), quiet.messages
    assert any("Length" in m for m in quiet.errors())
    quiet.fmu.freeInstance()
    talkative = Instance(auv, logging_on=True, name="talkative").initialize(**CRUISE)
    assert any("the vehicle library _auv_cosim_" in m and " from " in m for s, _, m in talkative.messages if s == 0), \
        talkative.messages
    talkative.fmu.freeInstance()


def test_percent_signs_reach_the_host_intact(tmp_path):
    """The wrapper passes each message as the logger's format with '%' doubled: a printf-style
    host (fmpy's proxy) shows the text as written."""
    md = read_model_description(str(FMUS / "AuvControl.fmu"))
    folder = extract(str(FMUS / "AuvControl.fmu"), unzipdir=str(tmp_path / "control"))
    control = (md, Path(folder), {v.name: v.valueReference for v in md.modelVariables})
    i = Instance(control, model="AuvControl")
    i.fmu.setupExperiment(startTime=0.0)
    i.fmu.enterInitializationMode()
    i.fmu.exitInitializationMode()
    with pytest.raises(FMICallException):                 # a fixed parameter: fmi2Error, logged
        i.fmu.setString([i.vr["Waypoints"]], ["100%,0,5"])
    refused = [m for m in i.errors() if "cannot set Waypoints" in m]
    assert refused and "'100%,0,5'" in refused[0], i.messages
    i.fmu.freeInstance()


# ------------------------------------------------------------------------------ per-call shortcuts
# The wrapper skips the Python log helper when the slave's log queue is empty, and passes the
# same tuple of value references again when a host repeats them (auv_cosim/build/native/python_fmu.c,
# drain_log and references_of). A tiny plain-pythonfmu slave shows each effect from the host.
PROBE_SOURCE = '''
from pythonfmu import Fmi2Slave, Fmi2Causality, Real
from pythonfmu.enums import Fmi2Status


class WrapperProbe(Fmi2Slave):
    """Outputs X, Y, Z echo the inputs A, B, C; do_step logs and, for A < 0, raises."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.A = self.B = self.C = 0.0
        for name in "ABC":
            self.register_variable(Real(name, causality=Fmi2Causality.input))
        for name, source in zip("XYZ", "ABC"):
            self.register_variable(Real(name, causality=Fmi2Causality.output,
                                        getter=lambda source=source: getattr(self, source)))

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        pass   # the project's wrapper passes the start time only

    def do_step(self, current_time, step_size):
        if self.A > 0:
            self.log(f"first of two at t={current_time}", Fmi2Status.ok)
            self.log("second of two", Fmi2Status.warning)
        if self.A < 0:
            self.log("logged before the failure", Fmi2Status.warning)
            raise RuntimeError("A is negative")
        return True
'''


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """(model description, extracted folder, name -> value reference) of WrapperProbe.fmu
    with the project's wrapper."""
    d = tmp_path_factory.mktemp("probe")
    src = d / "native_wrapper_probe_slave.py"   # a module name no other FMU of the session uses
    src.write_text(PROBE_SOURCE)
    subprocess.run([sys.executable, "-m", "pythonfmu", "build", "-f", str(src), "-d", str(d)],
                   check=True, capture_output=True, cwd=d)
    fmu = d / "WrapperProbe.fmu"
    assert native_wrapper.install(fmu, "WrapperProbe")
    md = read_model_description(str(fmu))
    folder = extract(str(fmu), unzipdir=str(d / "extracted"))
    return md, Path(folder), {v.name: v.valueReference for v in md.modelVariables}


def _started_probe(probe, logging_on=True):
    i = Instance(probe, logging_on=logging_on, name="probe", model="WrapperProbe")
    i.fmu.setupExperiment(startTime=0.0)
    i.fmu.enterInitializationMode()
    i.fmu.exitInitializationMode()
    i.messages.clear()
    return i


def test_each_queued_message_reaches_the_host_once_in_order_and_an_empty_queue_sends_none(probe):
    i = _started_probe(probe)
    i.fmu.doStep(0.0, 1.0)
    assert i.messages == []
    i.fmu.setReal([i.vr["A"]], [1.0])
    i.fmu.doStep(1.0, 1.0)
    i.fmu.doStep(2.0, 1.0)
    assert [(s, m) for s, _, m in i.messages] == [(0, "first of two at t=1.0"), (1, "second of two"),
                                                  (0, "first of two at t=2.0"), (1, "second of two")]
    i.fmu.freeInstance()
    quiet = _started_probe(probe, logging_on=False)       # logging off: the warnings only
    quiet.fmu.setReal([quiet.vr["A"]], [1.0])
    quiet.fmu.doStep(0.0, 1.0)
    assert [(s, m) for s, _, m in quiet.messages] == [(1, "second of two")]
    quiet.fmu.freeInstance()


def test_what_the_slave_logged_before_raising_comes_before_the_failure(probe):
    i = _started_probe(probe)
    i.fmu.setReal([i.vr["A"]], [-1.0])
    with pytest.raises(FMICallException) as failure:
        i.fmu.doStep(0.0, 1.0)
    assert failure.value.status == ERROR
    assert [(s, m) for s, _, m in i.messages] == [
        (1, "logged before the failure"), (ERROR, "fmi2DoStep: RuntimeError: A is negative")]
    i.fmu.freeInstance()


def test_repeated_changed_and_reordered_references_read_and_write_the_right_variables(probe):
    i = _started_probe(probe)
    a, b, c, x, y, z = (i.vr[n] for n in "ABCXYZ")
    i.fmu.setReal([a, b, c], [1.0, 2.0, 3.0])
    assert i.fmu.getReal([x, y, z]) == [1.0, 2.0, 3.0]
    assert i.fmu.getReal([x, y, z]) == [1.0, 2.0, 3.0]        # the same references again
    i.fmu.setReal([a, b, c], [4.0, 5.0, 6.0])                 # the same references, new values
    assert i.fmu.getReal([z, y, x]) == [6.0, 5.0, 4.0]        # same count, another order
    assert i.fmu.getReal([y]) == [5.0]                        # fewer
    i.fmu.setReal([c, a], [7.0, 8.0])
    assert i.fmu.getReal([x, y, z]) == [8.0, 5.0, 7.0]
    i.fmu.reset()                                             # a new slave: the values start over
    assert i.fmu.getReal([x, y, z]) == [0.0, 0.0, 0.0]
    i.fmu.setReal([a, b, c], [1.5, 2.5, 3.5])
    assert i.fmu.getReal([x, y, z]) == [1.5, 2.5, 3.5]
    i.fmu.freeInstance()
