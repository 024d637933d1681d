"""Linearisation of any `auv_cosim.vehicles.protocol.Vehicle` about an operating point."""
from __future__ import annotations

from typing import Tuple

import numpy as np


def linearize(vehicle, x, u) -> Tuple[np.ndarray, np.ndarray]:
    """A = dx'/dx and B = dx'/du at (x, u), from the vehicle's analytic Jacobians."""
    return vehicle.state_jacobian(x, u), vehicle.input_jacobian(x, u)


def finite_difference_jacobians(vehicle, x, u, relative_step: float = 1e-6
                                ) -> Tuple[np.ndarray, np.ndarray]:
    """A and B by central differences of `vehicle.derivative`, each variable stepped by
    `relative_step * max(1, |value|)`: the reference a vehicle's analytic Jacobians are
    tested against. B has a column per input of the vehicle's table: what u holds beyond them
    (the others' wakes) is not differentiated."""
    x = np.asarray(x, dtype=float)
    u = np.asarray(u, dtype=float)

    def column(f, point, k):
        step = relative_step * max(1.0, abs(point[k]))
        plus, minus = point.copy(), point.copy()
        plus[k] += step
        minus[k] -= step
        return (f(plus) - f(minus)) / (2.0 * step)

    a = np.column_stack([column(lambda p: vehicle.derivative(p, u), x, k) for k in range(x.size)])
    b = np.column_stack([column(lambda p: vehicle.derivative(x, p), u, k)
                         for k in range(min(u.size, vehicle.INPUTS.size))])
    return a, b
