"""Campaign speed-up: the same 8-run campaign on a local Dask cluster of 1 and of 2 worker
processes.

    .venv/bin/python benchmarks/bench_campaign.py                  # 8 runs x 600 s, workers 1 and 2
    .venv/bin/python benchmarks/bench_campaign.py --stop-time 300 --repeat 5

The campaign: the survey scenario, control.CruiseSpeed in {1.2, 1.3, 1.4, 1.5} x 2 noise seeds,
600 s of simulated time each (the survey takes ~33 min, so every run lasts the full 600 s).

What is timed: ``auv_cosim.campaigns.execute`` on an already planned campaign into a fresh folder:
submitting the 8 runs, running them, collecting the results, writing campaign.csv. What is NOT
timed (and reported separately): starting the cluster (scheduler + K worker processes) and one
short warm-up run on every worker (a 2 s survey), which pays the worker's one-time costs:
importing numpy/scipy/numba/fmpy, extracting the FMUs, loading numba's cache. A campaign of
hundreds of runs pays those once per worker, not per run.

It also checks that the 1-worker and the 2-worker campaigns wrote byte-identical results.csv
files, run by run. The machine's load average is printed before and after: other processes on
the machine take cores from the workers and lower the speed-up.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from auv_cosim.master import find_scenario

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _warm_up(scenario: str, stop_time: float = 2.0) -> str:
    """Runs on one worker: a short survey, to pay the process's one-time costs."""
    import os
    import tempfile

    from auv_cosim.master import run

    d = tempfile.mkdtemp(prefix="bench-warm-")
    res = run(scenario, out_dir=d, stop_time=stop_time, progress=False, plots=False, echo_messages=False)
    import shutil

    shutil.rmtree(d, ignore_errors=True)
    return f"{res.status} on pid {os.getpid()}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stop-time", type=float, default=600.0, help="simulated seconds per run (default 600)")
    ap.add_argument("--workers", default="1,2", help="worker counts to compare (default 1,2)")
    ap.add_argument("--repeat", type=int, default=3, help="time each campaign this many times (default 3)")
    ap.add_argument("--keep", metavar="DIR", help="keep the campaign folders under DIR")
    args = ap.parse_args()

    import logging

    import dask
    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.ERROR)  # no INFO lines when the clusters close

    from auv_cosim.campaigns import CampaignPlan, build_campaign, execute

    counts = [int(k) for k in args.workers.split(",")]
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-campaign-"))
    root.mkdir(parents=True, exist_ok=True)
    # a snapshot of the FMUs: ./build.sh may rebuild fmus/ meanwhile (a campaign refuses FMUs
    # that change under it)
    from auv_cosim import units

    snap = root / "fmus"
    snap.mkdir(exist_ok=True)
    for n in ("Auv", "AuvSensors", "AuvControl"):
        shutil.copy2(units.fmu_folder() / f"{n}.fmu", snap / f"{n}.fmu")
    scenario = str(snap / "survey.yaml")
    Path(scenario).write_text(f"include: {find_scenario('survey')}\nname: survey\ninstances:\n"
                              + "".join(f"  {i}: {{fmu: {snap / (n + '.fmu')}}}\n"
                                        for i, n in (("vehicle", "Auv"), ("sensors", "AuvSensors"), ("control", "AuvControl"))))
    vary = {"control.CruiseSpeed": [1.2, 1.3, 1.4, 1.5]}
    print(f"campaign: survey, control.CruiseSpeed x 4 values x 2 seeds = 8 runs of {args.stop_time:g} s simulated")
    print(f"machine: {os.cpu_count()} CPUs; load average before: {os.getloadavg()[0]:.2f} "
          f"(python {sys.version.split()[0]}, dask {dask.__version__})")
    print(f"numba JIT: {'off (AUV_NO_JIT)' if os.environ.get('AUV_NO_JIT', '') not in ('', '0') else 'on'}")
    print()
    # both clusters up and warm first, then the campaigns alternate (1, 2, 1, 2 ...), so a
    # change of the machine's background load hits both alike; the best of the repeats counts
    clusters: dict[int, tuple] = {}
    results: dict[int, dict] = {}
    for k in counts:
        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=k, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=40)
        client = Client(cluster)
        client.wait_for_workers(k)
        t_cluster = time.perf_counter() - t0
        t0 = time.perf_counter()
        addrs = list(client.scheduler_info()["workers"])
        warm = [client.submit(_warm_up, scenario, workers=[a], allow_other_workers=False, pure=False) for a in addrs]
        client.gather(warm)
        clusters[k] = (cluster, client)
        results[k] = {"cluster": t_cluster, "warm": time.perf_counter() - t0, "walls": []}
    try:
        for rep in range(args.repeat):
            for k in counts:
                client = clusters[k][1]
                out = root / f"workers{k}" / f"rep{rep}"
                shutil.rmtree(out, ignore_errors=True)
                c = build_campaign(scenario, vary, 2, out_dir=out, stop_time=args.stop_time)
                plan = CampaignPlan(c)  # planning (reading the FMUs' modelDescription) is not timed
                load = os.getloadavg()[0]
                t0 = time.perf_counter()
                table = execute(plan, client=client, progress=False, plots=False)
                wall = time.perf_counter() - t0
                assert table.ok, table.counts()
                run_sum = sum(r["wall_time_s"] for r in table)
                print(f"  {k} worker{'s' if k > 1 else ' '}  repeat {rep + 1}: {wall:7.2f} s wall "
                      f"(sum of the run times {run_sum:6.2f} s; load average at start {load:.2f})", flush=True)
                r = results[k]
                r["walls"].append(wall)
                if wall <= min(r["walls"]):
                    r.update(wall=wall, run_sum=run_sum, table=table, out=out)
    finally:
        for cluster, client in clusters.values():
            client.close()
            cluster.close()

    print()
    print("workers | best campaign wall time | median | per run (best) | cluster start-up | warm-up  (the last two not timed)")
    for k, r in results.items():
        med = sorted(r["walls"])[len(r["walls"]) // 2]
        print(f"{k:7d} | {r['wall']:21.2f} s | {med:6.2f} s | {r['wall'] / 8:12.2f} s | {r['cluster']:14.2f} s | {r['warm']:6.2f} s")
    if 1 in results and len(results) > 1:
        for k, r in results.items():
            if k == 1:
                continue
            med1 = sorted(results[1]["walls"])[len(results[1]["walls"]) // 2]
            medk = sorted(r["walls"])[len(r["walls"]) // 2]
            print(f"speed-up with {k} workers: {results[1]['wall'] / r['wall']:.2f} best/best, "
                  f"{med1 / medk:.2f} median/median (ideal {k})")
    # determinism across the cluster sizes
    ks = list(results)
    same = True
    for row in results[ks[0]]["table"]:
        a = (results[ks[0]]["out"] / row["run_dir"] / "results.csv").read_bytes()
        for k in ks[1:]:
            if (results[k]["out"] / row["run_dir"] / "results.csv").read_bytes() != a:
                same = False
                print(f"DIFFERENT results.csv for {row['run_id']} with {k} workers")
    print(f"results.csv identical across {', '.join(map(str, ks))} workers: {'yes' if same else 'NO'}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
