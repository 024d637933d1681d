"""The tuple vectors of the compiled physics do the arithmetic of their NumPy forms bit for bit
(the AUV's results.csv is pinned byte for byte on it)."""
import numpy as np

from auv_cosim.vehicles.rotation import cross, rotate, rotate_back, rotation_matrix
from auv_cosim.vehicles.vectors import (
    add3,
    cross3,
    mul3,
    neg3,
    rotate3,
    rotate_back3,
    scale3,
    sub3,
    triple,
    wrench,
    wrench_add,
    wrench_at_origin,
)


def _same_bits(a, b):
    return np.asarray(a, float).tobytes() == np.asarray(b, float).tobytes()


def test_helpers_match_their_numpy_expressions_bit_for_bit(rng):
    for _ in range(200):
        a, b = rng.normal(size=3) * 10.0 ** rng.integers(-3, 4, size=3), rng.normal(size=3)
        b[rng.integers(0, 3)] = 0.0 if rng.random() < 0.5 else -0.0   # signed zeros stay signed
        s = rng.normal()
        r = rotation_matrix(rng.normal(size=4))
        assert _same_bits(add3(a, b), a + b) and _same_bits(sub3(a, b), a - b)
        assert _same_bits(neg3(b), -b) and _same_bits(scale3(s, a), s * a)
        assert _same_bits(mul3(a, b), a * b)
        assert _same_bits(cross3(a, b), cross(a, b))
        assert _same_bits(rotate3(r, a), rotate(r, a))
        assert _same_bits(rotate_back3(r, a), rotate_back(r, a))
        assert _same_bits(triple(np.concatenate([b, a]), 3), a)
        w1, w2 = np.concatenate([a, b]), np.concatenate([b, a])
        assert _same_bits(wrench(a, b), w1) and _same_bits(wrench_add(w1, w2), w1 + w2)
        assert _same_bits(wrench_at_origin(a), np.concatenate([a, np.zeros(3)]))
