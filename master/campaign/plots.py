"""PNG plots of a campaign: each summary figure against each varied variable.

One file per varied variable, ``plots/vs_<variable>.png``, with one panel per summary figure
that changes across the runs (the headline figures first, at most ``max_panels``). When other
variables are varied too, each combination of their values is one line (up to 8 lines; beyond
that the points are only scattered); the seeds of one combination are drawn as points and their
mean as the line. Failed runs have no figures and are counted in the panel title. Text, lists
and booleans on the x axis are spread as categories.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from .spec import format_value


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v) if math.isfinite(v) else None
    return None


def plot_figures(table, seed_variable: str | None = None, max_panels: int = 12) -> list[str]:
    """The figure columns worth plotting: numeric in some completed run and not constant."""
    done = [r for r in table.rows if r.get("status") == "completed"]
    out = []
    for f in table.figures:
        vals = [_num(r.get(f)) for r in done]
        vals = [v for v in vals if v is not None]
        if len(vals) >= 1 and (len(done) == 1 or max(vals) - min(vals) > 1e-12 * max(1.0, abs(max(vals)))):
            out.append(f)
    return out[:max_panels]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")


#: the margins of a figure of panels with numbers on both axes, in inches: the panels' tick labels
#: (8 pt, at most about 8 characters with matplotlib's offset notation), titles (9 pt), the x
#: label (8 pt) and the figure's title (10 pt). Fixed, not measured: ``tight_layout`` measures
#: every tick label of every panel before the drawing measures them again, and a panel title at
#: its automatic height measures the panel's top once more. The user waits for this drawing
#: after the campaign's last run: the 12 panels of the 12-run depth_step sweep took 1.1-1.45 s
#: of CPU with both, 0.55-0.8 s without (on the 2-core machine).
LEFT_IN, RIGHT_IN, TOP_IN, BOTTOM_IN, SUPTITLE_IN = 0.75, 0.2, 0.8, 0.5, 0.15
BETWEEN_COLUMNS_IN, BETWEEN_ROWS_IN = 0.75, 0.6


def _fixed_margins(fig, nrow: int, ncol: int) -> None:
    width, height = fig.get_size_inches()
    panel_w = (width - LEFT_IN - RIGHT_IN - BETWEEN_COLUMNS_IN * (ncol - 1)) / ncol
    panel_h = (height - TOP_IN - BOTTOM_IN - BETWEEN_ROWS_IN * (nrow - 1)) / nrow
    fig.subplots_adjust(left=LEFT_IN / width, right=1 - RIGHT_IN / width, bottom=BOTTOM_IN / height,
                        top=1 - TOP_IN / height, wspace=BETWEEN_COLUMNS_IN / panel_w, hspace=BETWEEN_ROWS_IN / panel_h)


def make_plots(table, out_dir: Path, seed_variable: str | None = None, max_panels: int = 12) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("vs_*.png"):
        old.unlink()
    varied = list(table.varied)
    figures = plot_figures(table, seed_variable, max_panels)
    if not varied or not figures:
        return []
    seeded = seed_variable in varied
    axes_vars = [v for v in varied if v != seed_variable] or varied
    written = []
    for xvar in axes_vars:
        others = [v for v in varied if v != xvar and v != seed_variable]
        xs_all = []
        for r in table.rows:
            if r.get(xvar) not in xs_all:
                xs_all.append(r.get(xvar))
        numeric_x = all(_num(x) is not None and not isinstance(x, bool) for x in xs_all)
        pos = {format_value(x): (float(x) if numeric_x else i) for i, x in enumerate(xs_all)}

        groups: dict[tuple, list[dict]] = {}
        for r in table.rows:
            groups.setdefault(tuple(format_value(r.get(o)) for o in others), []).append(r)
        lines = len(groups) <= 8

        n = len(figures)
        ncol = min(3, n)
        nrow = math.ceil(n / ncol)
        fig, axs = plt.subplots(nrow, ncol, figsize=(4.6 * ncol, 3.3 * nrow), squeeze=False)
        for k, fname in enumerate(figures):
            ax = axs[k // ncol][k % ncol]
            failed = 0
            for gi, (gkey, rows) in enumerate(groups.items()):
                pts: dict[float, list[float]] = {}
                for r in rows:
                    if r.get("status") != "completed":
                        failed += 1
                        continue
                    y = _num(r.get(fname))
                    if y is None:
                        continue
                    pts.setdefault(pos[format_value(r.get(xvar))], []).append(y)
                if not pts:
                    continue
                label = ", ".join(f"{o}={v}" for o, v in zip(others, gkey)) if others else None
                color = f"C{gi % 10}"
                xs = sorted(pts)
                if seeded or any(len(v) > 1 for v in pts.values()):
                    ax.scatter([x for x in xs for _ in pts[x]], [y for x in xs for y in pts[x]], s=10,
                               color=color, alpha=0.5)
                if lines:
                    ax.plot(xs, [sum(pts[x]) / len(pts[x]) for x in xs], "o-", color=color, ms=3, lw=1.2,
                            label=label)
                else:
                    ax.scatter(xs, [sum(pts[x]) / len(pts[x]) for x in xs], s=12, color=color)
            title = fname if len(fname) <= 40 else "..." + fname[-37:]
            if failed:
                title += f"  ({failed} failed)"
            ax.set_title(title, fontsize=9, y=1.0 if numeric_x else None)  # y given: not measured
            ax.grid(True, alpha=0.3)
            ax.tick_params(labelsize=8)
            if not numeric_x:
                ax.set_xticks(list(pos.values()))
                ax.set_xticklabels(list(pos.keys()), rotation=30, ha="right", fontsize=7)
            if k // ncol == nrow - 1 or k + ncol >= n:
                ax.set_xlabel(xvar, fontsize=8)
            if k == 0 and lines and others:
                ax.legend(fontsize=6, loc="best")
        for k in range(n, nrow * ncol):
            axs[k // ncol][k % ncol].set_visible(False)
        sub = f"{len(table.rows)} runs"
        if seeded:
            sub += f"; points: seeds ({seed_variable}), line: their mean"
        if numeric_x:
            fig.suptitle(f"summary figures against {xvar} ({sub})", fontsize=10,
                         y=1 - SUPTITLE_IN / fig.get_size_inches()[1])
            _fixed_margins(fig, nrow, ncol)
        else:  # category names of any length on the x axis: measured
            fig.suptitle(f"summary figures against {xvar} ({sub})", fontsize=10)
            fig.tight_layout(rect=(0, 0, 1, 0.96))
        path = out_dir / f"vs_{_safe(xvar)}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written
