"""How many threads the numerical libraries may start in a process that runs co-simulations.

A co-simulation step multiplies matrices of a few rows (the H100's LQR gain, its allocation's
pseudo-inverse): far below what OpenBLAS (bundled with numpy and SciPy) gains anything from
threads for, yet its worker threads wake up and spin on the cores that the recorder's writer
and the plot process need. With one thread, bench_h100_stack measured the LQR stack at 96 us a
step against 125 in the next run with OpenBLAS's default (pid 92 / 93, smc 76 / 91), with the
same results bit for bit (a small product is summed by one thread either way).
"""
from __future__ import annotations

import os


def single_threaded_blas() -> None:
    """Ask OpenBLAS for one thread, unless the user chose a number: it reads the variable when
    it loads, so this is called before numpy is imported (``auv-cosim``, the benchmarks
    that measure what it runs); the campaign's worker processes inherit it."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
