"""`auv-cosim` asks OpenBLAS for one thread before numpy loads (auv_cosim/master/threads.py)."""
from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from master_helpers import REPO

COUNT_THREADS = ("import os, sys; sys.path.insert(0, {root!r}); {call}"
                 "import numpy, scipy.linalg; print(len(os.listdir('/proc/self/task')))")


def _threads_after_numpy(call: str, **env) -> int:
    code = COUNT_THREADS.format(root=str(REPO), call=call)
    # OpenBLAS also reads GOTO_NUM_THREADS and OMP_NUM_THREADS (which Dask's tests may have set)
    ignored = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
    environment = {k: v for k, v in os.environ.items() if k not in ignored} | env
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    return int(out.stdout.strip())


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or (os.cpu_count() or 1) < 2,
                    reason="counts threads in /proc on a machine with two CPUs or more")
def test_one_blas_thread_unless_the_user_chose():
    single = "from auv_cosim.master.threads import single_threaded_blas; single_threaded_blas(); "
    assert _threads_after_numpy(single) == 1
    assert _threads_after_numpy("") > 1                      # OpenBLAS's default: a thread per CPU
    assert _threads_after_numpy(single, OPENBLAS_NUM_THREADS="2") > 1    # the user's choice stays


def test_the_command_sets_it_before_anything_else_is_imported():
    main = next(node for node in ast.parse((REPO / "auv_cosim" / "__main__.py").read_text()).body
                if isinstance(node, ast.FunctionDef) and node.name == "main")
    statements = main.body
    calls = [i for i, node in enumerate(statements) if isinstance(node, ast.Expr)
             and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "single_threaded_blas"]
    project_imports = [i for i, node in enumerate(statements) if isinstance(node, ast.ImportFrom)
                       and node.module.startswith("auv_cosim") and node.module != "auv_cosim.master.threads"]
    assert calls and project_imports and calls[0] < min(project_imports)
