"""Golden baselines (tests/baselines/, references/golden.py): each scenario's fresh run must
reproduce its stored reference within the tolerance stated in tests/baselines/cases.yaml, and a
1 % change of a force coefficient must not pass. Refresh deliberately with
`python tools/refresh_baselines.py` after a change meant to change results."""
from __future__ import annotations

from pathlib import Path

import pytest

from references.golden import compare, load_config, run_case

REPO = Path(__file__).resolve().parents[1]

CONFIG = load_config()


def _default_of(fmu: Path, name: str) -> float:
    from fmpy import read_model_description

    for v in read_model_description(str(fmu)).modelVariables:
        if v.name == name:
            return float(v.start)
    raise KeyError(f"{fmu.name} has no variable {name}")


@pytest.mark.parametrize("name", list(CONFIG.cases))
def test_a_fresh_run_reproduces_its_baseline(name, tmp_path):
    case = CONFIG.cases[name]
    assert case.file.is_file(), f"{case.file} missing: python tools/refresh_baselines.py {name}"
    problems = compare(CONFIG, case, run_case(case, tmp_path))
    assert not problems, (f"{name} no longer matches tests/baselines/{name}.csv "
                          f"(if the change is meant, python tools/refresh_baselines.py {name}):\n"
                          + "\n".join(f"  {p}" for p in problems))


@pytest.mark.parametrize("name, coefficient", [("depth_step", "AxialDragCoeff"), ("zigzag", "CrossFlowDragCoeff")])
def test_a_one_percent_change_of_a_force_coefficient_fails_the_comparison(name, coefficient, tmp_path):
    """The same run with one drag coefficient 1 % higher (through the FMU parameter, the code
    untouched) is caught, by many columns, far beyond the tolerance."""
    case = CONFIG.cases[name]
    nominal = _default_of(REPO / "fmus" / "Auv.fmu", coefficient)
    problems = compare(CONFIG, case, run_case(case, tmp_path, sets={f"vehicle.{coefficient}": repr(nominal * 1.01)}))
    assert len(problems) >= 3, f"a 1 % change of {coefficient} went unnoticed: {problems}"
    # far outside the tolerance, not at its edge: the comparison is not merely noisy
    worst = max(abs(p.fresh - p.reference) / p.allowed for p in problems)
    assert worst > 100, [str(p) for p in problems]
    print(f"{coefficient} +1 % on {name}: {len(problems)} columns out, worst {worst:.0f} times the tolerance")
