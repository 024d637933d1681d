"""fmpy-driven co-simulation master for the AUV FMUs.

    from master import run
    result = run("scenarios/survey.yaml", out_dir="results/survey")
    result.status, result.summary["distance_run_m"], result.column("vehicle.Depth")

See docs/master.md for the scenario format, the calling order and the results.

The names below are imported when first used (PEP 562), not by ``import master``: a run does
not pay for the campaign machinery (pydantic models, Dask) nor a sweep for what only ``run``
needs, and ``python -m master`` starts with only what its command uses.
"""

from importlib import import_module

_WHERE = {
    "run": ".runner", "RunResult": ".runner", "EXIT_OK": ".runner", "EXIT_FAILED": ".runner",
    "EXIT_SCENARIO": ".runner", "EXIT_INTERRUPTED": ".runner",
    "ScenarioError": ".scenario", "load_scenario": ".scenario", "list_scenarios": ".scenario",
    "sweep": ".campaign", "CampaignTable": ".campaign",
}

__all__ = ["run", "RunResult", "sweep", "CampaignTable", "ScenarioError", "load_scenario", "list_scenarios",
           "EXIT_OK", "EXIT_FAILED", "EXIT_SCENARIO", "EXIT_INTERRUPTED"]


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name], __name__), name)
        globals()[name] = value  # once imported, an ordinary attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
