"""numba's cache of a compiled function (auv_cosim/compiled/numba_cache.py `callees_stamp`) is valid
only while the sources of the compiled functions it calls, directly or not, from other modules,
are unchanged too.

numba itself checks only the file of the function it compiled, yet a compiled function carries
the machine code of the compiled functions it calls: with numba's own check, a change to a
callee in another module left the caller running the old code from the cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SOURCES = {
    "__init__.py": "",
    "leaf.py": "from auv_cosim.compiled.jit import jit\n\n\n@jit\ndef offset(x):\n    return x + {value}\n",
    # calls the leaf through the module: an attribute of a global
    "middle.py": ("from auv_cosim.compiled.jit import jit\nfrom stamped import leaf\n\n\n"
                  "@jit\ndef tripled(x):\n    return 3.0 * leaf.offset(x)\n"),
    "caller.py": ("from auv_cosim.compiled.jit import jit\nfrom stamped.middle import tripled\n\n\n"
                  "@jit\ndef doubled(x):\n    return 2.0 * tripled(x)\n"),
    "unrelated.py": "X = 1\n",
}
SCRIPT = ("import json\nfrom stamped.caller import doubled\n"
          "print(json.dumps([doubled(1.0), sum(doubled.stats.cache_hits.values()),"
          " sum(doubled.stats.cache_misses.values())]))\n")


def call(folder: Path) -> list:
    """[doubled(1.0), cache hits, cache misses] of the caller, in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(ROOT)]))
    env.pop("AUV_NO_JIT", None)
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_changed_callee_two_modules_away_is_compiled_again(tmp_path):
    package = tmp_path / "stamped"
    package.mkdir()
    for name, text in SOURCES.items():
        (package / name).write_text(text.format(value=1.0))

    assert call(tmp_path) == [12.0, 0, 1]
    assert call(tmp_path) == [12.0, 1, 0]      # unchanged: from the cache

    (package / "unrelated.py").write_text("X = 2\n")
    assert call(tmp_path) == [12.0, 1, 0]      # what the caller does not call does not count

    (package / "leaf.py").write_text(SOURCES["leaf.py"].format(value=100.0))   # caller.py untouched
    assert call(tmp_path) == [606.0, 0, 1]     # numba's own check: 12.0, from the cache
    assert call(tmp_path) == [606.0, 1, 0]
