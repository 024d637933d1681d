"""The Jacobian by central differences that the vehicles' analytic Jacobians are checked against."""
from __future__ import annotations

import numpy as np


def central(f, x, h=1e-6):
    """d f / d x at x (columns: the inputs), each element stepped by h max(1, |x_i|) either way;
    f may return a tuple (a wrench)."""
    x = np.asarray(x, float)
    columns = []
    for i in range(x.size):
        step = h * max(1.0, abs(x[i]))
        plus, minus = x.copy(), x.copy()
        plus[i] += step
        minus[i] -= step
        columns.append((np.asarray(f(plus)) - np.asarray(f(minus))) / (2 * step))
    return np.array(columns).T
