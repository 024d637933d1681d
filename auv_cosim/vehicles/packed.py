"""One array for everything a compiled right-hand side takes besides (t, y): the step's held
values (the inputs, or the H100's held vector), the model's constants and the derivative to
write, so that SciPy's integrator calls it with three arguments, f(t, y, work).

Why: SciPy's DOPRI5 calls the right-hand side from C once per stage, 7 to 11 times a
communication step, and each array handed to compiled code costs its unboxing (type check,
memory-manager record, reference counts) whatever the work inside: the AUV's derivative
computes in about 0.4 us and took 0.4 us more to receive five arguments. The values are the
same numbers in the same order, so the derivative is the same bit for bit.

    work = [m, k, held (m values), constants (k values), derivative (the rest)]
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from ..compiled.jit import jit

#: the two sizes that lead the array
HEADER = 2


def pack_arguments(held_size: int, constants: np.ndarray, derivative_size: int
                   ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A new work array with `constants` copied in, and views of its held values and its
    derivative (writing the views writes the array)."""
    constants = np.asarray(constants, dtype=float)
    work = np.zeros(HEADER + held_size + constants.size + derivative_size)
    work[0], work[1] = held_size, constants.size
    held_end = HEADER + held_size
    constants_end = held_end + constants.size
    work[held_end:constants_end] = constants
    return work, work[HEADER:held_end], work[constants_end:]


@jit
def unpack_arguments(work):
    """(held values, constants, derivative): views of the three parts of a work array."""
    held_end = HEADER + int(work[0])
    constants_end = held_end + int(work[1])
    return work[HEADER:held_end], work[held_end:constants_end], work[constants_end:]
