"""Suite-wide settings.

The FMUs run their Python inside this test process. Built without a C compiler they carry
pythonfmu 0.7.0's native binary, which releases its interpreter guard twice when the process
exits (a static shared_ptr is destroyed by the C++ exit handlers, then reset again by the
library's destructor): glibc aborts now and then with "corrupted double-linked list" after
every test has passed, and the exit status would turn a green run red (the project's wrapper,
auv_cosim/build/native/python_fmu.c, does not; tests/integration/test_native_wrapper.py checks hosts that exit
normally). Once pytest has reported, the process therefore ends with os._exit and the
session's own status, skipping the C exit handlers. `auv-cosim`
does the same (auv_cosim/__main__.py).
"""
import os
import sys

import pytest

_session_status = {"code": None}


def pytest_sessionfinish(session, exitstatus):
    _session_status["code"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    code = _session_status["code"]
    if code is None or os.environ.get("AUV_TEST_NORMAL_EXIT"):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@pytest.fixture(scope="session")
def fmus_built():
    """The FMUs of fmus/, built by ./build.sh (which `./build.sh test` runs first)."""
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    fmus = [root / "fmus" / f"{name}.fmu" for name in ("Auv", "AuvSensors", "AuvControl")]
    missing = [str(p.relative_to(root)) for p in fmus if not p.is_file()]
    if missing:
        pytest.fail(f"the FMUs are not built ({', '.join(missing)} missing): run ./build.sh first")
    return fmus
