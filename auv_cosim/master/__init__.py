"""fmpy-driven co-simulation master.

    from auv_cosim.master import run
    result = run("survey", out_dir="results/survey")   # a scenario's name, or its file
    result.status, result.summary["distance_run_m"], result.column("vehicle.Depth")

See docs/master.md for the scenario format, the calling order and the results. The names below
are the master's public API: campaigns (``auv_cosim.campaigns``) and other tools use these and
nothing else of the master, except two modules for what plugs into it: ``registry``
(figures, analyses and plots registered by entry points) and ``plot_process`` (a plot
function's child process: forked to share the drawing, dying with its parent, the run's
rows mapped from shared memory).

They are imported when first used (PEP 562), not by ``import auv_cosim.master``: a run does not pay for
what it does not use (pydantic models of a sweep, matplotlib without plots), and
``auv-cosim`` starts with only what its command uses. The master never imports the
campaign package (``from auv_cosim.campaigns import sweep``).
"""

from importlib import import_module

#: public name -> the module of the master that defines it
_WHERE = {
    # run a scenario
    **dict.fromkeys(("run", "RunResult", "EXIT_OK", "EXIT_FAILED", "EXIT_SCENARIO", "EXIT_INTERRUPTED"), ".runner"),
    # what sees a run's communication points, and what paces its loop (docs/master.md, "The loop")
    **dict.fromkeys(("Observer", "Pacer"), ".loop"),
    # load and resolve one
    **dict.fromkeys(("load_scenario", "list_scenarios", "find_scenario", "ScenarioError", "resolve_fmu_path",
                     "fmu_reference",
                     "override_start_value", "load_yaml"), ".scenario"),
    **dict.fromkeys(("build_plan", "Plan"), ".plan"),
    # an FMU's variables and values for them
    **dict.fromkeys(("fmu_variables", "Var", "expand", "suggest", "coerce_value"), ".variables"),
    # what registered figures, analyses and plots (auv_cosim.master.registry) get and use
    **dict.fromkeys(("RunData", "param", "rounded", "stats", "KeptRows", "KeptColumns"), ".summary"),
    # ... and what their figures are made of as the rows stream past
    **dict.fromkeys(("ExactSum", "RunningStats", "First", "Last", "Window"), ".running"),
    "find_step": ".signals",
    # messages, files
    **dict.fromkeys(("display_path", "format_loc", "pydantic_problems"), ".scenario"),
    **dict.fromkeys(("file_sha256", "cleanup_temporary"), ".fmu_cache"),
    # a command's files: written whole, never over an input or, unasked, an existing file
    **dict.fromkeys(("write_whole", "output_target", "same_file"), ".files"),
}

__all__ = list(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name], __name__), name)
        globals()[name] = value  # once imported, an ordinary attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
