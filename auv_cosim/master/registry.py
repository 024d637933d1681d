"""What the master finds rather than imports: the units installed beside it (auv_cosim/units.py:
each vehicle or component registers one ``Unit`` through the entry point group
``auv_cosim.units``) and the packages that declare a Python entry point of their own
(``[project.entry-points."GROUP"]`` in their pyproject.toml). The master loads them by name,
never a package by its own choice.

- figures: a unit's ``Unit.figures``, a ``RunFigures``: what it adds to every run's
  summary.json, the CLI's report and the plots (the AUV's: ``auv_cosim.vehicles.auv.host.figures:FIGURES``);
- analyses: a unit's ``Unit.analyses`` and the entry points of ``auv_cosim.analyses`` (the
  analyses that are no unit's, such as the fleet's): an ``Analysis`` per name a scenario can
  list under ``analysis:``;
- commands: a unit's ``Unit.commands`` and the entry points of ``auv_cosim.commands`` (those of
  no unit, such as the campaigns' ``sweep``): each a function ``add_parser(subparsers)`` that
  adds its subparser and sets ``func``.

docs/architecture.md shows how a new vehicle registers its own.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Callable

from auv_cosim import units

COMMANDS = "auv_cosim.commands"
ANALYSES = "auv_cosim.analyses"


def _references(group: str, of_units: str) -> list[tuple[str, str]]:
    """(name, "module:attr") of every entry point of ``group`` and every entry of the units'
    ``of_units`` mapping, sorted by name (a unit's first where both name one)."""
    found = {}
    for unit in units.units().values():
        for name, reference in getattr(unit, of_units).items():
            found.setdefault(name, reference)
    for ep in entry_points(group=group):
        found.setdefault(ep.name, ep.value)
    return sorted(found.items())


def _load(references: list[tuple[str, str]], what: str, names: set[str] | None = None) -> list[tuple[str, object]]:
    """(name, loaded object) of every reference (or of those in ``names``), by name. One that
    cannot be loaded (its package broken or half installed) is reported on stderr and left out:
    the rest of the master still works."""
    out = []
    for name, reference in references:
        if names is not None and name not in names:
            continue  # not loaded at all: its package is not imported
        try:
            out.append((name, units.load(reference)))
        except Exception as e:
            print(f"master: ignoring the {what} '{name}' ({reference}): {type(e).__name__}: {e}", file=sys.stderr)
    return out


def commands(command: str | None = None) -> list:
    """The ``add_parser(subparsers)`` functions of the extra subcommands: only ``command``'s
    when it is one of them (its package alone is imported), else all (help, or an unknown
    command whose error lists them)."""
    references = _references(COMMANDS, "commands")
    names = {name for name, _ in references}
    return [fn for _, fn in _load(references, "command", {command} if command in names else None)]


@dataclass(frozen=True)
class RunFigures:
    """What a unit adds to every run (``Unit.figures`` names one ``RunFigures`` object):

    - ``compute(run)``: top-level keys for summary.json (``run``: ``auv_cosim.master.RunData``);
    - ``empty``: the same keys, with the value of a run without figures (it never got past its
      initial state), so that summary.json always has them;
    - ``describe(summary)``: the lines ``auv-cosim run`` prints about them;
    - ``plots(run, out_dir)``: draws PNG files into ``out_dir`` and returns their paths;
      ``plot_files``: every name it may write (removed from the folder before a run);
      ``prepare_plots(run)``: imports and warms up what ``plots`` will use, called ahead, while
      the run steps, in the process that will draw them (auv_cosim/master/plot_process.py), or None;
      ``run`` is the run without its rows (a ``auv_cosim.master.RunData`` with the plan and every column
      the run records, no row; None if unknown): what can be made of the plots before the
      values exist may be made then (``plots`` of that run still gets every row);
    - ``waypoints(scenario)``: the (north, east, depth) points the 3-D view draws, from a
      resolved scenario mapping (scenario.resolved.yaml); a ValueError naming the parameter
      when they are malformed;
    - ``stream(plan, colmap)``: the same figures as ``compute`` gives, made as the run's rows
      stream past (``auv_cosim.master.summary.Stream``: ``rows(block)``, ``result()``), so
      that a run of any length keeps none of its rows for them; None when this contributor has
      nothing for the plan. Without ``stream``, every row of the run is kept for ``compute``."""

    compute: Callable[[Any], dict]
    empty: dict = field(default_factory=dict)
    describe: Callable[[dict], list[str]] = lambda summary: []
    plots: Callable[[Any, Any], list] | None = None
    plot_files: tuple[str, ...] = ()
    prepare_plots: Callable[[Any], None] | None = None
    waypoints: Callable[[dict], list] | None = None
    stream: Callable[[Any, dict], Any] | None = None


@dataclass(frozen=True)
class Analysis:
    """An analysis a scenario can ask for by name under ``analysis:`` (a unit's
    ``Unit.analyses`` or an entry point of ``auv_cosim.analyses``, under the analysis's name):

    - ``options``: the pydantic model of its options (the scenario's ``analysis.NAME``
      mapping, validated with the file and field named);
    - ``run(run, options)``: its figures, a dict under ``analysis.NAME`` in summary.json
      (``{"error": ...}`` when it cannot be computed);
    - ``describe(figures)``: the line ``auv-cosim run`` prints, or None;
    - ``check(options, instances, signal_targets)``: before the run, what the options name that
      the scenario does not have, as (option field, message) pairs; or None;
    - ``stream(plan, colmap, options)``: the figures of ``run``, made as the rows stream past
      (``auv_cosim.master.summary.Stream``); or None, and every row of the run is kept for
      ``run``."""

    options: type
    run: Callable[[Any, Any], dict]
    describe: Callable[[dict], str] | None = None
    check: Callable[[Any, list[str], list[str]], list[tuple[str, str]]] | None = None
    stream: Callable[[Any, dict, Any], Any] | None = None


_cache: dict[str, dict] = {}


def figures() -> dict[str, RunFigures]:
    """The registered units' run figures, by unit name."""
    if "figures" not in _cache:
        _cache["figures"] = dict(_load(sorted((name, unit.figures) for name, unit in units.units().items()
                                              if unit.figures), "figures of the unit"))
    return _cache["figures"]


def analyses() -> dict[str, Analysis]:
    """The registered analyses, by name."""
    if ANALYSES not in _cache:
        _cache[ANALYSES] = dict(_load(_references(ANALYSES, "analyses"), "analysis"))
    return _cache[ANALYSES]
