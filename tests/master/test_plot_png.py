"""The AUV plots' PNG writer (auv_cosim/vehicles/auv/host/plots.py ``_png``): the pixels, the resolution and the
Software text of the file matplotlib itself writes for the same figure."""
from __future__ import annotations

import io

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")


def _figure(plt):
    fig, axs = plt.subplots(2, 1, figsize=(5, 4), dpi=110)
    t = np.linspace(0.0, 10.0, 500)
    axs[0].plot(t, np.sin(t), lw=1.2, label="sin")
    axs[0].plot(t, np.cos(3 * t), "--", lw=0.9, label="cos")
    axs[0].legend(loc="best", fontsize=8)
    axs[0].set_title("a title")
    # every byte value, next to every other, row after row: the 'up' filter wraps around
    axs[1].imshow(np.random.default_rng(7).integers(0, 256, (40, 60, 4), dtype=np.uint8), aspect="auto")
    fig.tight_layout()
    return fig


def test_the_png_writer_writes_what_matplotlib_writes():
    from PIL import Image

    from auv_cosim.vehicles.auv.host.plots import _mpl, _png

    plt = _mpl()
    fig = _figure(plt)
    ours = _png(fig)
    theirs = io.BytesIO()
    fig.savefig(theirs, format="png", dpi=110)
    plt.close(fig)
    a, b = Image.open(io.BytesIO(ours)), Image.open(io.BytesIO(theirs.getvalue()))
    assert a.mode == b.mode == "RGBA" and a.size == b.size == (550, 440)
    assert np.array_equal(np.asarray(a), np.asarray(b))
    assert a.info["dpi"] == b.info["dpi"] and a.info["Software"] == b.info["Software"]
    Image.open(io.BytesIO(ours)).verify()  # the chunks' CRCs
