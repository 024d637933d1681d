"""fmpy-driven co-simulation master for the AUV FMUs.

    from master import run
    result = run("scenarios/survey.yaml", out_dir="results/survey")
    result.status, result.summary["distance_run_m"], result.column("vehicle.Depth")

See docs/master.md for the scenario format, the calling order and the results.
"""

from .runner import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_SCENARIO, RunResult, run
from .scenario import ScenarioError, list_scenarios, load_scenario
from .campaign import CampaignTable, sweep

__all__ = ["run", "RunResult", "sweep", "CampaignTable", "ScenarioError", "load_scenario", "list_scenarios",
           "EXIT_OK", "EXIT_FAILED", "EXIT_SCENARIO", "EXIT_INTERRUPTED"]
