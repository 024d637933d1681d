"""The AUV plots' layout shortcuts (auv_cosim/analyses/matplotlib_internals.py ``ticks_once``, ``tight_layout``):
the ticks placed once per view and axes box, each ``legend(loc="best")`` searched for once and
left out of tight_layout() when it fits inside its axes. The pixels are those of matplotlib's own
``tight_layout()`` and drawing, for figures like the AUV's (shared time axes, long lines, an
inverted axis, a fixed tick step) and for a legend too big for its axes (laid out as before)."""
from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")


def _figure(plt, big_legend: bool = False):
    """Three axes sharing their time axis, as the AUV's attitude figure; lines of 10,000 points."""
    t = np.linspace(0.0, 2000.0, 10000)
    rng = np.random.default_rng(3)
    fig, axs = plt.subplots(3, 1, figsize=(10, 8), sharex=True, dpi=110)
    axs[0].plot(t / 60.0, np.sin(t / 50.0) + 0.05 * rng.standard_normal(t.size), lw=1.1, label="roll")
    axs[0].plot(t / 60.0, 0.5 * np.cos(t / 80.0), "--", lw=0.9, label="reference")
    axs[1].plot(t / 60.0, 20.0 + 5.0 * np.sin(t / 300.0), lw=1.2, label="depth")
    axs[1].axhline(0.0, color="steelblue", lw=0.8)
    axs[1].invert_yaxis()
    axs[2].plot(t / 60.0, np.mod(t, 360.0) - 180.0, lw=1.1, label="heading")
    axs[2].yaxis.set_major_locator(matplotlib.ticker.MultipleLocator(90.0))
    for ax in axs:
        ax.grid(True, alpha=0.3)
        labels = [f"a long legend entry {i} " * 4 for i in range(12)] if big_legend and ax is axs[1] else None
        if labels:
            for label in labels:
                ax.plot(t[:2] / 60.0, [20.0, 20.0], label=label)
        ax.legend(loc="best", fontsize=8)
    axs[0].set_title("a title")
    axs[-1].set_xlabel("time [min]")
    return fig


def _pixels(fig) -> np.ndarray:
    fig.canvas.draw()
    return np.asarray(fig.canvas.get_renderer().buffer_rgba()).copy()


def _searches(monkeypatch) -> list:
    from matplotlib.legend import Legend

    calls = []
    search = Legend._find_best_position

    def counted(self, *args, **kwargs):
        calls.append(self)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Legend, "_find_best_position", counted)
    return calls


@pytest.mark.parametrize("big_legend", [False, True])
def test_the_shortcuts_draw_the_pixels_of_matplotlibs_own_layout(monkeypatch, big_legend):
    from auv_cosim.analyses.auv_plots import _mpl
    from auv_cosim.analyses.matplotlib_internals import ticks_once as _ticks_once, tight_layout as _tight_layout

    plt = _mpl()
    theirs = _figure(plt, big_legend)
    theirs.tight_layout()
    theirs.set_layout_engine(None)
    expected = _pixels(theirs)
    plt.close(theirs)

    calls = _searches(monkeypatch)
    ours = _figure(plt, big_legend)
    _ticks_once(ours)
    _tight_layout(ours)
    ours.set_layout_engine(None)
    assert ours.axes[1].get_legend().get_in_layout()  # put back after the layout
    got = _pixels(ours)
    legends = [ax.get_legend() for ax in ours.axes]
    plt.close(ours)
    assert got.shape == expected.shape and np.array_equal(got, expected)
    # once a legend that fits (drawing's second search answered from memory); a legend too big
    # for its axes is searched for by the layout too, before its axes move
    assert [calls.count(legend) for legend in legends] == ([1, 2, 1] if big_legend else [1, 1, 1])


def test_ticks_are_placed_again_when_the_view_changes():
    from auv_cosim.analyses.auv_plots import _mpl
    from auv_cosim.analyses.matplotlib_internals import ticks_once as _ticks_once

    plt = _mpl()
    fig, ax = plt.subplots(figsize=(4, 3), dpi=110)
    ax.plot([0.0, 10.0], [0.0, 1.0])
    _ticks_once(fig)
    fig.canvas.draw()
    before = [tick.get_loc() for tick in ax.xaxis._update_ticks()]
    ax.set_xlim(0.0, 1000.0)
    after = [tick.get_loc() for tick in ax.xaxis._update_ticks()]
    plt.close(fig)
    assert max(before) <= 10.0 and max(after) > 100.0


def test_without_the_legend_internals_the_layout_is_matplotlibs(monkeypatch):
    """A matplotlib whose legends lack the internals the shortcut reads: laid out as before."""
    from auv_cosim.analyses import auv_plots as ap
    from auv_cosim.analyses import matplotlib_internals as mi

    def missing(legend, renderer):
        raise AttributeError("no _legend_box here")

    plt = ap._mpl()
    theirs = _figure(plt)
    theirs.tight_layout()
    expected = _pixels(theirs)
    plt.close(theirs)
    monkeypatch.setattr(mi, "_fits_inside", missing)
    ours = _figure(plt)
    mi.tight_layout(ours)
    got = _pixels(ours)
    in_layout = [ax.get_legend().get_in_layout() for ax in ours.axes]
    plt.close(ours)
    assert in_layout == [True, True, True] and np.array_equal(got, expected)


def test_with_the_internals_off_the_figure_is_matplotlibs_own(monkeypatch):
    """The version gate's other side: no shortcut at all, the pixels of matplotlib's layout, and
    no axis or legend of the figure touched."""
    from auv_cosim.analyses import auv_plots as ap
    from auv_cosim.analyses import matplotlib_internals as mi

    plt = ap._mpl()
    theirs = _figure(plt)
    theirs.tight_layout()
    expected = _pixels(theirs)
    plt.close(theirs)
    monkeypatch.setattr(mi, "ENABLED", False)
    calls = _searches(monkeypatch)
    ours = _figure(plt)
    mi.ticks_once(ours)
    mi.tight_layout(ours)
    patched = [vars(axis).get("_update_ticks") for ax in ours.axes for axis in (ax.xaxis, ax.yaxis)]
    got = _pixels(ours)
    legends = [ax.get_legend() for ax in ours.axes]
    plt.close(ours)
    assert patched == [None] * 6 and np.array_equal(got, expected)
    assert all(calls.count(legend) >= 2 for legend in legends)   # matplotlib searches as it does


def test_the_version_gate_reads_matplotlibs_version():
    from auv_cosim.analyses import matplotlib_internals as mi

    version = tuple(int(p) for p in matplotlib.__version__.split(".")[:2])
    assert mi.ENABLED == (version in mi.CHECKED)
