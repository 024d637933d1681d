"""The one module that reaches into matplotlib's internals: two shortcuts of the AUV's run
plots, which draw the same pixels as matplotlib's own layout and drawing in less time.

* `ticks_once(fig)`: each axis places and labels its ticks once per view and axes box, where
  matplotlib does it again every time it asks for them (``Axis._update_ticks``).
* `tight_layout(fig)`: ``fig.tight_layout()`` with each ``legend(loc="best")`` searched for once
  instead of three times (``Legend._find_best_position``, ``Legend._legend_box``,
  ``Legend._loc``).

Both are used only on the matplotlib versions in CHECKED; on any other, or with ENABLED set to
False, the figure is laid out and drawn as matplotlib does (`ticks_once` does nothing,
`tight_layout` is ``fig.tight_layout()``): the same pixels (tests/master/test_plot_layout.py
compares both paths with matplotlib's own; benchmarks/bench_internals.py measures the gain).
"""
from __future__ import annotations

import matplotlib

#: matplotlib versions (major, minor) whose internals these shortcuts were written against
CHECKED = {(3, 8), (3, 9), (3, 10), (3, 11)}

#: True when the shortcuts are used (decided at import; tests and the benchmark set it)
ENABLED = tuple(int(p) for p in matplotlib.__version__.split(".")[:2]) in CHECKED


def ticks_once(fig) -> None:
    """Each axis of ``fig`` places and labels its ticks once for a given view and axes box.
    matplotlib does it again every time it asks for the ticks (``Axis._update_ticks``): about ten
    times an axis for one layout and one drawing (the spines' extents, the tick labels' boxes,
    each shared axis for its siblings'), a quarter of a figure's cost. The ticks depend on the
    axis's view interval and its axes' box on the canvas (the locator's number of ticks on its
    length); nothing else changes once the figure is filled, so asking again with both the same
    gets the same ticks, placed and labelled as they are already."""
    if not ENABLED:
        return
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            axis._update_ticks = _once_per_view(axis, axis._update_ticks)


def _once_per_view(axis, update):
    last = [None, None]

    def once():
        key = (tuple(axis.get_view_interval()), tuple(axis.axes.bbox.bounds))
        if last[0] != key:
            last[0], last[1] = key, update()
        return list(last[1])

    return once


def tight_layout(fig) -> None:
    """``fig.tight_layout()``, each ``legend(loc="best")`` searched for once instead of three
    times (the same places, the same pixels). The search (``Legend._find_best_position``) counts
    the vertices of every line under each of the nine candidate places: with 10,000 points a
    line it was about a tenth of the plotting. tight_layout() searched before the axes moved,
    and drawing searched twice at their final place (the legend's extent, then its drawing).
    A legend that fits inside its axes lies within the axes wherever it goes, where
    tight_layout() finds nothing to make room for: left out of the layout, it changes nothing;
    drawing then searches once, and the second search of the same place gets the first one's
    answer. A legend that does not fit is searched as before."""
    if not ENABLED:
        fig.tight_layout()
        return
    renderer = fig.canvas.get_renderer()
    left_out = []
    try:
        for ax in fig.axes:
            legend = ax.get_legend()
            if legend is None or legend._loc != 0:  # 0: "best"
                continue
            _search_once(legend)
            if legend.get_in_layout() and _fits_inside(legend, renderer):
                legend.set_in_layout(False)
                left_out.append(legend)
    except AttributeError:  # a matplotlib without these internals: laid out as matplotlib does
        for legend in left_out:
            legend.set_in_layout(True)
        left_out = []
    try:
        fig.tight_layout()
    finally:
        for legend in left_out:
            legend.set_in_layout(True)


def _search_once(legend) -> None:
    """``legend``'s search for the best place answered from memory for a place already searched:
    the same legend size, the same axes box (display coordinates) and the same view limits
    (the lines' data are drawn, the figure's resolution fixed)."""
    search = legend._find_best_position
    found = {}

    def find(width, height, renderer):
        key = (width, height, tuple(legend.get_bbox_to_anchor().bounds), tuple(legend.axes.viewLim.bounds))
        if key not in found:
            found[key] = search(width, height, renderer)
        return found[key]

    legend._find_best_position = find


def _fits_inside(legend, renderer) -> bool:
    """Whether ``legend``'s box fits inside its axes less the legend's padding: every place the
    search may choose then lies inside the axes box."""
    box = legend._legend_box
    if hasattr(box, "get_bbox"):  # matplotlib >= 3.7
        size = box.get_bbox(renderer)
        width, height = size.width, size.height
    else:
        width, height, _, _ = box.get_extent(renderer)
    pad = legend.borderaxespad * renderer.points_to_pixels(legend._fontsize)
    parent = legend.get_bbox_to_anchor()
    return width <= parent.width - 2 * pad and height <= parent.height - 2 * pad
