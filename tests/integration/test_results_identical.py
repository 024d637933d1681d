"""Every scenario's results.csv is byte-identical to the one written before the vehicle
library was restructured (issue 10): short runs of each (references/results_identical.py
SHORT_RUNS; the battery one goes flat within it), against the sha256 recorded then.

The full scenarios: `.venv/bin/python tools/check_results_identical.py` (about 20 s)."""
from __future__ import annotations

import csv
import json

import pytest

from references.results_identical import HASHES, SHORT_RUNS, check


@pytest.fixture(scope="module")
def short_run(fmus_built, tmp_path_factory):
    """name -> the outcome of its short run (check's), run once per worker when first asked: each
    test runs its own scenario, so that two workers share the runs rather than each making all."""
    kept = tmp_path_factory.mktemp("short-runs")
    hashes = json.loads(HASHES.read_text())["short"]
    done: dict = {}

    def outcome(name: str) -> dict:
        if name not in done:
            done[name] = check([name], hashes=hashes, keep=kept, short=True)[name]
            done[name]["csv"] = kept / name.replace(":", "-") / "results.csv"
        return done[name]
    return outcome


@pytest.mark.parametrize("name", sorted(SHORT_RUNS))
def test_results_csv_is_byte_identical_to_the_recorded_run(short_run, name):
    outcome = short_run(name)
    assert outcome["same"], (
        f"{name}: results.csv changed (sha256 {outcome['sha256']}); if the change is "
        f"meant to alter the results, record them with tools/check_results_identical.py "
        f"--short --record and say so in the commit")


def test_the_short_battery_run_goes_flat(short_run):
    """The battery's projection onto zero after a step (the vehicle's project_state) is in the
    compared run."""
    path = short_run("battery")["csv"]
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    fractions = [float(row["vehicle.BatteryFraction"]) for row in rows]
    assert fractions[0] == pytest.approx(2000.0 / 18000.0) and fractions[-1] == 0.0
    assert 0 < fractions.index(0.0) < len(fractions) - 100   # flat, then 30 s more (0.1 s steps)
