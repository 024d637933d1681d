"""The bytecode every FMU ships beside its Python sources (auv_cosim/build/shipping.py, `add_bytecode`;
issue 15's start-up): checked against each source's hash, so that a fresh extraction, in any
folder and with any modification times, imports it without compiling a module."""
from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
import subprocess
import sys
import zipfile

import pytest
from fmpy import extract

from auv_cosim.build.shipping import bytecode_member
from tests.harness import FMU_DIR, ROOT, build

#: the flags word of a pyc checked against its source's hash (PEP 552: hash-based, check_source)
CHECKED_HASH = 0b11


@pytest.mark.parametrize("name", ["Auv", "AuvSensors", "AuvControl", "H100", "H100Control"])
def test_every_bundled_source_ships_bytecode_that_matches_it(name):
    build(name)
    with zipfile.ZipFile(FMU_DIR / f"{name}.fmu") as archive:
        members = set(archive.namelist())
        sources = sorted(n for n in members if n.startswith("resources/") and n.endswith(".py"))
        assert {n for n in members if n.endswith((".pyc", ".pyo"))} == {bytecode_member(n) for n in sources}
        for source in sources:
            pyc = archive.read(bytecode_member(source))
            assert pyc[:4] == importlib.util.MAGIC_NUMBER, source
            assert int.from_bytes(pyc[4:8], "little") == CHECKED_HASH, source
            assert pyc[8:16] == importlib.util.source_hash(archive.read(source)), source


# In a fresh interpreter that may not write bytecode: import the slave script of an FMU
# extracted into `resources`, recording every module Python compiles from source on the way.
IMPORT_AND_RECORD_COMPILES = """
import importlib.machinery, json, os, sys
resources, script = sys.argv[1], sys.argv[2]
compiled = []
source_to_code = importlib.machinery.SourceFileLoader.source_to_code
def recording(self, data, path, *args, **kwargs):
    compiled.append(path)
    return source_to_code(self, data, path, *args, **kwargs)
importlib.machinery.SourceFileLoader.source_to_code = recording
sys.path.insert(0, resources)
module = __import__(script)
bundled = [m.__file__ for m in list(sys.modules.values())
           if (getattr(m, "__file__", None) or "").startswith(resources)]
print(json.dumps({"compiled": [p for p in compiled if p.startswith(resources)], "bundled": bundled}))
sys.stdout.flush()
os._exit(0)
"""


@pytest.mark.parametrize("name", ["Auv", "AuvControl"])
def test_a_fresh_extraction_imports_its_slave_without_compiling(name, tmp_path):
    build(name)
    resources = os.path.join(extract(str(FMU_DIR / f"{name}.fmu"), unzipdir=str(tmp_path / "fmu")), "resources")
    script = Path(resources, "slavemodule.txt").read_text().strip()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", IMPORT_AND_RECORD_COMPILES, resources, script],
                         cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(report["bundled"]) > 10, report  # the FMU's own copies were imported, not the checkout's
    assert report["compiled"] == []
