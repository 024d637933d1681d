"""Fixtures of the master tests (helpers in master_helpers.py)."""
from __future__ import annotations

import pytest

from master_helpers import FMUS, REPO, Run, master


@pytest.fixture(scope="session")
def fmus_built():
    missing = [str(p.relative_to(REPO)) for p in FMUS if not p.is_file()]
    if missing:
        pytest.fail(f"the FMUs are not built ({', '.join(missing)} missing): run ./build.sh first")
    return FMUS


@pytest.fixture(scope="session")
def runs(tmp_path_factory, fmus_built):
    """Each scenario run once per session (several tests read the same run)."""
    root = tmp_path_factory.mktemp("runs")
    cache: dict[tuple, Run] = {}

    def get(*args: str) -> Run:
        if args not in cache:
            out = root / f"run{len(cache):02d}"
            cache[args] = master("run", *args, out=out)
        return cache[args]

    return get
