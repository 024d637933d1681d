"""The wake field of docs/physics/environment.md#wake-field transcribed without the library
(plain Python and NumPy): the oracle the wake tests check auv_cosim.vehicles.wake and the FMUs'
WakeVelocity against."""
import math

import numpy as np

SOURCE_SIZE = 15


def oracle_part(point, origin, e, strength, sigma0, spread, speed, rho, diameter, length):
    """The field of one part (hull wake or jet), transcribed without the library: the speed along e."""
    d = np.asarray(point, float) - np.asarray(origin, float)
    x = float(d @ e)
    if x <= 0 or x >= length:
        return 0.0
    r = math.sqrt(max(0.0, d @ d - x * x))
    sigma = sigma0 + spread * x
    if r > 5 * sigma:
        return 0.0
    t = x / diameter
    ramp = 1.0 if t >= 1 else 3 * t ** 2 - 2 * t ** 3
    s = (x - 0.9 * length) / (0.1 * length)
    fade = 1.0 if x <= 0.9 * length else 1.0 - (1.0 if s >= 1 else 3 * s ** 2 - 2 * s ** 3)
    return strength / (2 * math.pi * rho * speed * sigma ** 2) * math.exp(-r ** 2 / (2 * sigma ** 2)) * ramp * fade


def oracle_field(point, rows, spreads=(0.02, 0.04), length=50.0):
    """The sum of the hull wakes and jets of the rows (a row with U = 0: nothing)."""
    total = np.zeros(3)
    for row in np.asarray(rows, float).reshape(-1, SOURCE_SIZE):
        if row[9] <= 0:
            continue
        e = row[6:9]
        u = (oracle_part(point, row[0:3], e, -row[10], row[12] / 4, spreads[0], row[9], row[14], row[12], length)
             + oracle_part(point, row[3:6], e, row[11], row[13] / 4, spreads[1], row[9], row[14], row[12], length))
        total += u * e
    return total
