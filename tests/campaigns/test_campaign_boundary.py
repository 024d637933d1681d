"""Campaigns are a client of the master: they use only the master's public API, the master
never imports them (tests/test_import_direction.py), and the master runs without Dask (an
optional extra)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from auv_cosim import master

REPO = Path(__file__).resolve().parents[2]
CAMPAIGN = REPO / "auv_cosim" / "campaigns"
NO_DASK = "import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None\n"


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(level, module, names) of every import statement of a file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or "", [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(0, a.name, []) for a in node.names]
    return out


def test_the_campaign_package_uses_only_the_public_master_api():
    for path in sorted(CAMPAIGN.glob("*.py")):
        for level, module, names in _imports(path):
            where = f"{path.relative_to(REPO)}: from {'.' * level}{module} import {', '.join(names)}"
            assert level <= 1, f"reaches above its package: {where}"
            if level == 0 and module == "auv_cosim.master.plot_process":
                continue   # a plot function's child process: the module for what plugs into the master
            if level == 0 and module.startswith("auv_cosim.master"):
                assert module == "auv_cosim.master", f"imports a master module, not the public API: {where}"
                assert set(names) <= set(master.__all__), f"not in master.__all__: {where}"


def test_the_master_runs_without_dask(tmp_path):
    code = NO_DASK + ("import runpy; sys.argv = ['auv-cosim', 'run', 'depth_step', '--stop-time', '1', '--no-plots', "
                      f"'--out', {str(tmp_path / 'out')!r}]; runpy.run_module('auv_cosim', run_name='__main__')")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "results.csv").is_file()


def test_a_sweep_without_dask_says_what_to_install(tmp_path):
    code = NO_DASK + ("import runpy; sys.argv = ['auv-cosim', 'sweep', 'depth_step', '--stop-time', '1', '--workers', '1', "
                      f"'--no-progress', '--out', {str(tmp_path / 'c')!r}]; runpy.run_module('auv_cosim', run_name='__main__')")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert "pip install -e '.[campaign]'" in r.stderr, r.stderr
