"""PNG plots of a run of the H100 stack (registered through ``auv_cosim.vehicles.h100.host.figures.FIGURES``):
``thrusters.png`` (each thruster's command and thrust) and ``errors.png`` (the position error
against the stack's reference per NED axis and in 3-D, and the heading error). The track, depth
and attitude plots are the generic ones every vehicle gets."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from auv_cosim.master import RunData, param, write_whole

from .figures import driven_vehicle, h100_controls, thruster_count


def pyplot():
    """matplotlib's pyplot on the Agg canvas (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def make_plots(run: RunData, out_dir) -> list[Path]:
    plt = pyplot()

    files = []
    out_dir = Path(out_dir)
    controls = h100_controls(run.plan)
    t = run.t
    for control in controls[:1]:      # one stack per run in every H100 scenario; the file names are fixed
        vehicle = driven_vehicle(run.plan, control)
        controller = param(run.plan, control, "Controller", "pid")
        n = thruster_count(run.plan, control)
        figure, axes = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
        for i in range(1, n + 1):
            axes[0].plot(t, run.get(f"{control}.ThrusterCommand[{i}]"), lw=0.8, label=str(i))
            thrust = run.get(f"{vehicle}.Thrust[{i}]") if vehicle else None
            if thrust is not None:
                axes[1].plot(t, thrust, lw=0.8, label=str(i))
        axes[0].set_ylabel("command [-]")
        axes[1].set_ylabel("thrust [N]")
        axes[1].set_xlabel("time [s]")
        axes[0].legend(loc="upper right", fontsize=7, ncol=min(n, 8), title="thruster")
        axes[0].set_title(f"{run.plan.name}: thrusters ({control}, {controller})")
        for ax in axes:
            ax.grid(True, alpha=0.3)
        figure.tight_layout()
        files.append(write_whole(out_dir / "thrusters.png", lambda f: figure.savefig(f, format="png", dpi=110)))
        plt.close(figure)

        pos = [run.get(f"{vehicle}.Pos[{i}]") for i in (1, 2, 3)] if vehicle else [None]
        ref = [run.get(f"{control}.RefPosition[{i}]") for i in (1, 2, 3)]
        if any(c is None for c in pos + ref):
            continue
        error = np.column_stack(pos) - np.column_stack(ref)
        figure, axes = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
        for i, axis in enumerate(("north", "east", "down")):
            axes[0].plot(t, error[:, i], lw=0.8, label=axis)
        axes[0].plot(t, np.linalg.norm(error, axis=1), "k", lw=1.0, label="3-D")
        axes[0].set_ylabel("position - reference [m]")
        axes[0].legend(loc="upper right", fontsize=8)
        heading, ref_heading = run.get(f"{vehicle}.Euler[3]"), run.get(f"{control}.RefHeading")
        if heading is not None and ref_heading is not None:
            axes[1].plot(t, np.degrees(np.angle(np.exp(1j * (heading - ref_heading)))), lw=0.8)
        axes[1].set_ylabel("heading - reference [deg]")
        axes[1].set_xlabel("time [s]")
        axes[0].set_title(f"{run.plan.name}: errors against the reference ({control}, {controller})")
        for ax in axes:
            ax.grid(True, alpha=0.3)
        figure.tight_layout()
        files.append(write_whole(out_dir / "errors.png", lambda f: figure.savefig(f, format="png", dpi=110)))
        plt.close(figure)
    return files
