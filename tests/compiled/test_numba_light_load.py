"""The physics' compiled code loaded from numba's cache the light way
(auv_cosim/compiled/numba_cache.py: numba's runtime alone, not its compiler's set-up, the runtime's
own functions from their cache, no bitcode parsed) computes what numba's ordinary load
computes, bit for bit, and really skips that work."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: a fresh interpreter: 50 steps of the AUV, its outputs and Jacobians (digest), whether numba's
#: compiler set-up ran (its refresh imports numba's polynomial support, which nothing of the
#: physics uses), how many times numba's runtime was compiled and LLVM bitcode parsed, the
#: cache hits and misses of the physics' compiled functions
SCRIPT = r"""
import hashlib, json, sys
import llvmlite.binding as ll
import numba
from numba.core.dispatcher import Dispatcher
from numba.core.runtime import nrtdynmod

calls = {"runtime_compiled": 0, "bitcode_parsed": 0}
def counted(name, function):
    def call(*args, **kwargs):
        calls[name] += 1
        return function(*args, **kwargs)
    return call
nrtdynmod.create_nrt_module = counted("runtime_compiled", nrtdynmod.create_nrt_module)
ll.parse_bitcode = counted("bitcode_parsed", ll.parse_bitcode)
from auv_cosim.vehicles import Environment, VehicleSimulator
from auv_cosim.vehicles.auv import AuvModel, AuvParameters, initial_state, inputs
from auv_cosim.compiled import numba_cache as _numba_load

model = AuvModel(AuvParameters(), Environment(CurrentVelocity=(0.0, 0.3, 0.0)))
sim = VehicleSimulator(model, initial_state(Pos0=(0, 0, 10), LocalVel0=(1.4, 0, 0)), rtol=1e-6, atol=1e-8)
for k in range(50):
    sim.advance(k * 0.1, (k + 1) * 0.1, inputs(thrust_power=30.0, rudder_yaw=0.1, rudder_dive=0.05))
outputs = model.outputs(sim.state, inputs(30.0))
A, B = model.linearize(model.cruise_state(1.5), inputs(model.cruise_power(1.5)))
text = repr((sim.state.tolist(), repr(outputs), A.tolist(), B.tolist()))
dispatchers = [v for name, m in list(sys.modules.items()) if name.startswith("auv_cosim.vehicles")
               for v in vars(m).values() if isinstance(v, Dispatcher)]
print(json.dumps({"digest": hashlib.sha256(text.encode()).hexdigest(), "light": _numba_load.ENABLED,
                  "registries": "numba.np.polynomial.polynomial_core" in sys.modules,
                  "extensions": numba.core.entrypoints._already_initialized,
                  "hits": sum(sum(d._cache_hits.values()) for d in dispatchers),
                  "misses": sum(sum(d._cache_misses.values()) for d in dispatchers), **calls}))
"""


def fly(full: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), AUV_NUMBA_FULL_LOAD="1" if full else "0")
    env.pop("AUV_NO_JIT", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_light_load_computes_what_the_ordinary_load_computes():
    pytest.importorskip("numba", reason="numba is not installed: the physics run as plain Python, nothing to load")
    from auv_cosim.compiled import numba_cache as _numba_load

    fly(full=True)                      # compiles into the cache whatever it does not hold yet
    fly(full=False)                     # ... and the runtime's functions
    ordinary, light = fly(full=True), fly(full=False)
    assert ordinary["misses"] == 0 and ordinary["hits"] > 0 and not ordinary["light"], ordinary
    assert ordinary["registries"], ordinary     # numba's ordinary load sets its compiler up
    assert ordinary["runtime_compiled"] == 1 and ordinary["bitcode_parsed"] > 0, ordinary
    if not _numba_load.ENABLED:
        pytest.skip(f"numba {_numba_load.numba.__version__} is not among the versions the light load was "
                    f"checked with ({sorted(_numba_load.CHECKED)}): every load is the ordinary one")
    assert light["light"] and light["misses"] == 0 and light["hits"] == ordinary["hits"], light
    assert not light["registries"], light       # ... the light one does not
    assert light["runtime_compiled"] == 0 and light["bitcode_parsed"] == 0, light
    assert ordinary["extensions"] and not light["extensions"], light   # numba's extensions: only to compile
    assert light["digest"] == ordinary["digest"]


#: a fresh interpreter calls a cached function, then compiles a function that calls it (so links
#: the cached function's code into its own: the bitcode the light load left unparsed)
LINK = r"""
import json
import numpy as np
import numba
from auv_cosim.vehicles.auv import dynamics
from auv_cosim.compiled import numba_cache as _numba_load

@numba.njit
def doubled_thrust(power, speed, table):
    return 2.0 * dynamics.compute_thrust(power, speed, table)

table = np.full(200, 2.0)
print(json.dumps({"light": _numba_load.ENABLED, "thrust": dynamics.compute_thrust(30.0, 1.0, table),
                  "doubled": doubled_thrust(30.0, 1.0, table), "hits": sum(dynamics.compute_thrust._cache_hits.values())}))
"""


@pytest.mark.parametrize("full", ["0", "1"])
def test_a_compilation_links_in_a_function_loaded_from_the_cache(full):
    pytest.importorskip("numba", reason="numba is not installed: the physics run as plain Python, nothing to link")
    env = dict(os.environ, PYTHONPATH=str(ROOT), AUV_NUMBA_FULL_LOAD=full)
    env.pop("AUV_NO_JIT", None)
    subprocess.run([sys.executable, "-c", LINK], cwd=ROOT, env=env, capture_output=True, timeout=900)  # warm
    proc = subprocess.run([sys.executable, "-c", LINK], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["hits"] == 1, report      # compute_thrust came from the cache
    assert (report["thrust"], report["doubled"]) == (60.0, 120.0), report


def test_the_symbols_read_from_machine_code_are_those_numba_lists_from_the_bitcode():
    """`defined_symbols` (the ELF symbol table) against numba's own list (the bitcode's defined
    functions and globals), for every data file of the physics' cache: the same names but the
    module-private constants (.const.*, .bytes.*), which no lookup asks for."""
    pytest.importorskip("numba", reason="numba is not installed: no cache")
    import pickle
    import llvmlite.binding as ll
    from auv_cosim.compiled import numba_cache as _numba_load

    # the cache files of a module that still exists (a checkout may keep stale ones of a module
    # since moved or removed, which cannot be unpickled: numba itself ignores them)
    def cache_files():
        return [path for path in (ROOT / "auv_cosim" / "vehicles").rglob("__pycache__/*.nbc")
                if "numba_runtime" not in path.name and (path.parent.parent / f"{path.name.split('.')[0]}.py").exists()]

    files = cache_files()
    if not files:   # this test alone on a worker (xdist) or a fresh tree: fill the cache as the others do
        fly(True)
        files = cache_files()
    assert files, "the physics' flight left no cache data file to read"
    read = 0
    for path in files:
        try:
            name, kind, (object_code, bitcode) = pickle.loads(path.read_bytes())[0]
        except (ModuleNotFoundError, AttributeError):
            # a stale file of a module that still exists but was compiled when it imported one
            # since removed (a checkout that flew another branch): numba ignores it too
            continue
        read += 1
        module = ll.parse_bitcode(bitcode)
        from_bitcode = {value.name for values in (module.functions, module.global_variables) for value in values
                        if not value.is_declaration and not value.name.startswith((".const.", ".bytes."))}
        assert _numba_load.defined_symbols(object_code) == from_bitcode, path.name
    assert read, "every cache data file was stale"


#: a fresh interpreter calls one compiled function of a copied physics package; whether numba's
#: extensions were started (they are before numba compiles anything)
CALL = r"""
import sys
import numpy as np
from numba.core import entrypoints
sys.path.insert(0, sys.argv[1])
from auv_cosim.vehicles.auv import dynamics
assert dynamics.__file__.startswith(sys.argv[1]), dynamics.__file__
print(dynamics.compute_thrust(30.0, 1.0, np.full(200, 2.0)), entrypoints._already_initialized)
"""


@pytest.mark.parametrize("full", ["0", "1"])
@pytest.mark.parametrize("broken", ["nbi", "nbc"])
def test_an_unreadable_cache_file_is_compiled_again_not_an_error(tmp_path, broken, full):
    """A corrupt index (.nbi) or data file (.nbc) in the cache (shipped in an FMU, left by a
    crash) is a miss: the function compiles, the light load and numba's ordinary one alike
    (numba alone raises UnpicklingError from the call)."""
    pytest.importorskip("numba", reason="numba is not installed: the physics run as plain Python, no cache")
    import shutil

    shutil.copytree(ROOT / "auv_cosim", tmp_path / "auv_cosim")  # modification times kept
    env = dict(os.environ, AUV_NUMBA_FULL_LOAD=full)
    env.pop("AUV_NO_JIT", None)
    env.pop("PYTHONPATH", None)

    def call():
        return subprocess.run([sys.executable, "-c", CALL, str(tmp_path)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)

    first = call()  # the cache of the copy holds the function now
    assert first.returncode == 0 and first.stdout.split()[0] == "60.0", first.stderr
    files = sorted((tmp_path / "auv_cosim" / "vehicles" / "auv" / "__pycache__").glob(f"dynamics.compute_thrust-*.{broken}"))
    assert files, "no cache file of compute_thrust to break"
    for f in files:
        f.write_bytes(bytes(range(7, 250)) * 3)
    again = call()  # compiled, numba's extensions started first
    assert again.returncode == 0 and again.stdout.split() == ["60.0", "True"], again.stderr
