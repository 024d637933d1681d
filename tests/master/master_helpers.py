"""The master tests' names for the shared harness (tests/harness.py): run the CLI in a fresh
process, read what it wrote. The real FMUs in fmus/ are used; `./build.sh test` builds them first.

(tests/master has no __init__.py on purpose: as a package it would be imported under the name
`master` and shadow the real master package.)"""
from __future__ import annotations

from tests.harness import FMU_DIR, FMU_NAMES, ROOT as REPO, Run, _env, master, popen_master

FMUS = [FMU_DIR / f"{n}.fmu" for n in FMU_NAMES]

__all__ = ["REPO", "FMUS", "Run", "_env", "master", "popen_master"]
