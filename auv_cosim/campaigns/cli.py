"""``auv-cosim sweep ...`` (and ``python -m auv_cosim sweep ...``): the command line of
campaigns. The master's CLI finds this command through the ``auv_cosim.commands`` entry point
(pyproject.toml); it does not import the campaign package itself."""

from __future__ import annotations

import argparse
import sys
import time


from auv_cosim.master import ScenarioError, display_path

from .spec import Campaign, CampaignError, parse_set_options, parse_vary_option
from .sweep import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    CampaignPlan,
    _finished,
    build_campaign,
    execute,
)

SWEEP_HELP = "run a scenario many times over varied parameters and seeds, in parallel on Dask"
SWEEP_DESCRIPTION = (
    "Run a scenario (or a campaign YAML file) once per combination of the --vary values and seeds, "
    "in parallel on Dask's distributed scheduler: a local cluster of --workers processes, or the "
    "cluster behind --scheduler. Each run gets runs/<id>/ (scenario.yaml, results.csv, summary.json) "
    "under --out; campaign.csv has one row per run and plots/ the summary figures against the varied "
    "values. Running the same command again resumes: finished runs with the same inputs are kept. "
    "Exit status: 0 all runs completed, 1 some failed, 2 campaign refused, 130 interrupted."
)


def add_parser(sub) -> argparse.ArgumentParser:
    """The `sweep` subcommand, added to the master's subparsers `sub`."""
    s = sub.add_parser("sweep", help=SWEEP_HELP, description=SWEEP_DESCRIPTION)
    s.add_argument("scenario", metavar="SCENARIO",
                   help="scenario YAML file or name (e.g. 'survey'), or a campaign YAML file (docs/campaigns.md)")
    s.add_argument("--vary", metavar="INSTANCE.VARIABLE=V1,V2,...", action="append", default=[],
                   help="values of one parameter; repeat for a product. Also START:STOP:NUM (inclusive) and "
                        "YAML lists for vectors or text with commas: vehicle.CurrentVelocity=[[0,0.2,0],[0,0.4,0]]")
    s.add_argument("--seeds", metavar="N", type=int,
                   help="N runs per combination with the noise seed = 1..N (the scenario's noise_seed, "
                        "sensors.Seed in the project's stacks; see --seed-variable)")
    s.add_argument("--seed-variable", metavar="INSTANCE.VARIABLE",
                   help="what --seeds varies (default: the scenario's noise_seed)")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--workers", metavar="K", type=int,
                   help="start a local Dask cluster of K worker processes (default: one per CPU)")
    g.add_argument("--scheduler", metavar="ADDRESS", help="use an existing Dask cluster, e.g. tcp://10.0.0.5:8786")
    s.add_argument("--out", metavar="DIR", help="campaign folder (default: results/campaigns/<name>/); the same "
                                                "folder again resumes the campaign")
    s.add_argument("--stop-time", metavar="S", type=float, help="stop time of every run in seconds")
    s.add_argument("--step", metavar="H", type=float, help="communication step of every run in seconds")
    s.add_argument("--output-interval", metavar="S", type=float,
                   help="record every k-th step of every run: S seconds, a multiple of the step (as run's)")
    s.add_argument("--set", metavar="INSTANCE.VARIABLE=VALUE", action="append", default=[],
                   help="a fixed override applied to every run; repeatable")
    s.add_argument("--name", help="campaign name (default: the scenario's)")
    s.add_argument("--retry-failed", action="store_true", help="run the failed runs of a resumed campaign again")
    s.add_argument("--run-plots", action="store_true", help="draw the per-run plots too (slower)")
    s.add_argument("--no-plots", action="store_true", help="no campaign plots")
    s.add_argument("--no-progress", action="store_true", help="no progress bar even on a terminal")
    s.add_argument("--dry-run", action="store_true", help="plan and list the runs, run nothing")
    s.set_defaults(func=cmd_sweep)
    return s


def _args_to_campaign(args) -> Campaign:
    vary: dict[str, list] = {}
    text_vary = set()
    for item in args.vary:
        target, values, is_text = parse_vary_option(item)
        if target in vary:
            raise CampaignError("--vary", target, "given twice")
        vary[target] = values
        if is_text:
            text_vary.add(target)
    fixed, text_set = parse_set_options(args.set)
    return build_campaign(args.scenario, vary, args.seeds, out_dir=args.out, stop_time=args.stop_time, step=args.step,
                          output_interval=args.output_interval,
                          overrides=fixed, seed_variable=args.seed_variable, workers=args.workers,
                          scheduler=args.scheduler, retry_failed=True if args.retry_failed else None,
                          run_plots=True if args.run_plots else None, name=args.name,
                          text_vary=text_vary, text_set=text_set)


def cmd_sweep(args) -> int:
    try:
        c = _args_to_campaign(args)
        plan = CampaignPlan(c)
    except ScenarioError as e:
        print(f"error: campaign refused, nothing was run:\n{e}", file=sys.stderr)
        return EXIT_ERROR
    if args.dry_run:
        print(f"campaign {plan.name}: {len(plan.runs)} runs -> {display_path(plan.out_dir)}")
        for r in plan.runs:
            done = _finished(plan, r, c.retry_failed) is not None
            print(f"  {r.run_id}{'  (finished)' if done else ''}")
        return EXIT_OK
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    t0 = time.perf_counter()
    try:
        table = execute(plan, workers=c.workers, scheduler=c.scheduler, retry_failed=c.retry_failed,
                        run_plots=c.run_plots, progress=False if args.no_progress else None,
                        plots=not args.no_plots, log=log)
    except ScenarioError as e:  # refused before any run was submitted (--out, --scheduler, the lock)
        print(f"error: campaign refused, nothing was run:\n{e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"interrupted: what finished is in {display_path(plan.out_dir / 'campaign.csv')}; "
              f"run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    counts = table.counts()
    reused = sum(1 for r in table.rows if r.get("reused"))
    parts = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(f"campaign {plan.name}: {len(table)} runs ({parts}; {reused} from an earlier sweep) "
          f"in {time.perf_counter() - t0:.1f} s")
    for r in table.rows:
        if r["status"] != "completed":
            print(f"  {r['run_id']}: {r['status']}: {r['reason']}")
    print(f"table: {display_path(plan.out_dir / 'campaign.csv')}")
    if getattr(table, "plots", None):
        print(f"plots: {display_path(plan.out_dir / 'plots')}/ ({', '.join(p.name for p in table.plots)})")
    return EXIT_OK if table.ok else EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    """``python -m auv_cosim sweep ...`` = ``auv-cosim sweep ...``."""
    p = argparse.ArgumentParser(prog="auv-cosim")
    sub = p.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = p.parse_args(argv if argv is not None and argv[:1] == ["sweep"] else ["sweep", *(argv or sys.argv[1:])])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
