"""Wakes of self-propelled bodies (docs/physics/environment.md#wakes): the row a casting vehicle
publishes, the water velocity the wake and jet of such a row give at a point, and how a vehicle
holds the others' rows over a communication step.

Shared by every vehicle: it knows points, directions, forces and rows, nothing of a hull (the
AUV computes its own resistance from its forces and hands it to `source_row`).

A source row has 15 floats (the casting vehicle's `WakeSource[1..15]`, a receiving vehicle's
`WakeSources[k,1..15]`), here 0-based:

    0:3  p_s    NED position of the stern, the origin of the hull wake
    3:6  p_j    NED position of the propeller, the origin of the jet
    6:9  e      unit NED direction the wake trails in (against the motion through the water)
    9    U      speed of the source through the water
    10   F_D    its resistance (N)
    11   T      its thrust (N)
    12   D_s    its hull diameter
    13   Dp_s   its propeller diameter
    14   rho_s  the water density it was computed with

A row of zeros is no source (a vehicle that casts nothing publishes one), and a row with U = 0
contributes nothing. Each part (the hull wake, strength -F_D, and the jet, strength +T) is a
Gaussian about the line through its origin along e, spreading linearly downstream:

    d = P - o,  x = d . e,  r^2 = max(0, |d|^2 - x^2),  sigma(x) = sigma_0 + k x,
    u = S / (2 pi rho_s U sigma^2) exp(-r^2 / (2 sigma^2)) ramp(x / D_s) fade(x)   along e,

zero where x <= 0, x >= WakeLength or r > 5 sigma. This is the far-wake law of a small
momentum defect (a linearised Oseen wake: the deficit flux S / (rho_s U) carried downstream at
the body's speed spreads over a growing Gaussian), so rho_s U times its integral over a plane
normal to e is S: the hull wake carries -F_D and the jet +T, and the two cancel in steady
cruise (seed 001's momentumless far field). The 5-sigma cut keeps (1 - e^-12.5) of it.

A receiving vehicle holds the others' rows after its own inputs, in a block of `WAKE_BLOCK`
floats (`hold_wake` fills it at the start of each step):

    0:45   the rows (3 x 15, row by row), as the host set them
    45     1 when any row is a source with U > 0, else 0 (then nothing else is read)
    46:49  the field at the step's start position (ExternalWakeUpdate "Step"), NED

Limits (docs/physics/environment.md#wake-limits): the wake is straight along today's e (right behind
a vehicle on a straight leg, wrong in a turn); going astern the stern is still its origin; the law
is linear in the strength, a small wake.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..compiled.jit import jit
from .parameters import ParameterSet, parameter, require
from .smoothstep import smoothstep, smoothstep_slope

# ---- a source row
SOURCE_SIZE = 15
MAX_SOURCES = 3
SOURCES_SIZE = MAX_SOURCES * SOURCE_SIZE
STERN, JET, DIRECTION = 0, 3, 6
SPEED, DRAG, THRUST, DIAMETER, PROPELLER_DIAMETER, RHO = 9, 10, 11, 12, 13, 14
#: what each element of a row is (the FMU's descriptions and the refusals name them)
SOURCE_LABELS = ("stern north", "stern east", "stern down", "propeller north", "propeller east",
                 "propeller down", "wake direction north", "wake direction east",
                 "wake direction down", "speed through the water U", "resistance F_D",
                 "thrust T", "hull diameter D_s", "propeller diameter Dp_s", "water density rho_s")
SOURCE_UNITS = ("m",) * 6 + ("1",) * 3 + ("m/s", "N", "N", "m", "m", "kg/m3")
#: the cut of the Gaussian, in standard deviations, and the share of the flux it keeps
CUT_SIGMAS = 5.0
CUT_SHARE = 1.0 - math.exp(-0.5 * CUT_SIGMAS ** 2)
#: the direction's length may differ from one by this much (rounding in the caster's own code)
UNIT_TOLERANCE = 1e-6
#: where the fade to the end of the wake begins, as a fraction of WakeLength
FADE_START = 0.9

#: How vehicles are wired by their wakes, as each vehicle's FMU declares it to a host (a row
#: exchange: auv_cosim.fmu.exchanges writes it into modelDescription.xml): a vehicle's
#: WakeSource[1..15] feeds one row of another's WakeSources[k,1..15], element by element, handed
#: over at each communication point before any vehicle steps (a vehicle steps from the others'
#: rows of the same instant, whatever the order); a scenario's `wakes:` line sets the source's
#: CastWake true; a run that wires no wake leaves the ports alone (a vehicle alone records what
#: it did before wakes existed); one sea has one density, so vehicles wired together should
#: agree on Rho. A vehicle that casts nothing (the H100) takes part with its input alone.
WAKE_EXCHANGE = {"name": "wakes", "output": "WakeSource", "input": "WakeSources", "enable": "CastWake",
                 "ports": ("WakeSource", "WakeSources", "WakeVelocity"), "agree": ("Rho",)}

# ---- the block a receiving vehicle holds after its inputs
HELD_SOURCES, HELD_PRESENT, HELD_VELOCITY = 0, SOURCES_SIZE, SOURCES_SIZE + 1
WAKE_BLOCK = SOURCES_SIZE + 4

#: ExternalWakeUpdate: the field held over a step, or evaluated at every derivative evaluation
WAKE_UPDATES = {"Step": 0.0, "Evaluation": 1.0}

# ---- the problems of a row (`source_problem`'s codes)
NOT_FINITE, NOT_UNIT, NEGATIVE, NOT_POSITIVE, TOO_FAST = 0, 1, 2, 3, 4
#: the fastest wake a row may give (m/s): the speed of sound in sea water. The law is one of
#: incompressible flow; a row whose field could exceed this (a huge F_D or T over a tiny U,
#: rho_s or diameter) describes no wake, and a vehicle meeting it could not be integrated.
MAX_WAKE_SPEED = 1500.0
_PROBLEMS = {NOT_FINITE: "is not finite", NEGATIVE: "must not be negative",
             NOT_POSITIVE: "must be positive for a source that moves (U > 0): the field divides by it"}


@dataclass(frozen=True)
class WakeParameters(ParameterSet):
    """How a vehicle meets the others' wakes (docs/physics/environment.md#wake-field,
    docs/physics/environment.md#meeting-wakes): parameters of the receiving
    vehicle, the same names in both vehicle FMUs."""

    WakeSpreadRate: float = parameter(
        0.02, "1", "Growth of the hull wake's standard deviation per metre downstream (sigma = D_s/4 + k x)",
        variability="tunable")
    JetSpreadRate: float = parameter(
        0.04, "1", "Growth of the propeller jet's standard deviation per metre downstream (sigma = Dp_s/4 + k x)",
        variability="tunable")
    WakeLength: float = parameter(
        50.0, "m", "Length of the others' wakes and jets (faded out over its last tenth)",
        variability="tunable")
    ExternalWakeUpdate: str = parameter(
        "Step", None, "When the others' wakes are evaluated: \"Step\" once per communication step at "
        "the step's start position, held; \"Evaluation\" at the live position at every derivative "
        "evaluation", kind="string")

    def _validate(self):
        for name in ("WakeSpreadRate", "JetSpreadRate"):
            require(name, getattr(self, name), getattr(self, name) >= 0, "must not be negative")
        require("WakeLength", self.WakeLength, self.WakeLength > 0, "must be positive")
        require("ExternalWakeUpdate", self.ExternalWakeUpdate, self.ExternalWakeUpdate in WAKE_UPDATES,
                "must be \"Step\" or \"Evaluation\"")

    @property
    def evaluation(self) -> float:
        """1.0 for ExternalWakeUpdate "Evaluation", 0.0 for "Step" (a constant of the vehicle)."""
        return WAKE_UPDATES[self.ExternalWakeUpdate]


# ------------------------------------------------------------------------------ the laws
@jit
def start_ramp(x, diameter):
    """ramp(x / D_s), the smoothstep 3 t^2 - 2 t^3 over the first diameter downstream: the wake
    grows from nothing at its origin (the body is there) without a jump in the field or its
    gradient that an adaptive integrator would have to resolve."""
    return smoothstep(x / diameter)


@jit
def start_ramp_slope(x, diameter):
    """d ramp(x / D_s) / dx."""
    return smoothstep_slope(x / diameter) / diameter


@jit
def end_fade(x, wake_length):
    """fade(x) = 1 - ramp((x - 0.9 L) / (0.1 L)) beyond 0.9 L, else 1: the wake ends smoothly at
    L = WakeLength instead of being cut there."""
    if x <= FADE_START * wake_length:
        return 1.0
    return 1.0 - smoothstep((x - FADE_START * wake_length) / ((1.0 - FADE_START) * wake_length))


@jit
def end_fade_slope(x, wake_length):
    """d fade / dx."""
    if x <= FADE_START * wake_length:
        return 0.0
    span = (1.0 - FADE_START) * wake_length
    return -smoothstep_slope((x - FADE_START * wake_length) / span) / span


@jit
def _part_geometry(point, origin, direction):
    """(d, x, r^2): the offset of `point` from the part's origin, its distance downstream along
    `direction` and its squared distance from the axis (never below zero: rounding)."""
    d = (point[0] - origin[0], point[1] - origin[1], point[2] - origin[2])
    x = d[0] * direction[0] + d[1] * direction[1] + d[2] * direction[2]
    r2 = max(0.0, d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - x * x)
    return d, x, r2


@jit
def wake_part_speed(point, origin, direction, strength, sigma0, spread, speed, rho, ramp_length,
                    wake_length):
    """The speed along `direction` that one part (hull wake or jet) gives at `point`
    (docs/physics/environment.md#wake-field):

    u = S / (2 pi rho U sigma^2) exp(-r^2 / (2 sigma^2)) ramp(x / D_s) fade(x),
    sigma = sigma_0 + k x; zero where x <= 0, x >= WakeLength or r > 5 sigma.

    The momentum flux S (N) spread over a Gaussian of variance sigma^2 moving at U: the flux
    through a plane normal to the axis is S times the ramp, the fade and the cut's share. A
    part whose sigma is not positive (a point origin that does not spread) is no part.
    """
    _, x, r2 = _part_geometry(point, origin, direction)
    if x <= 0.0 or x >= wake_length:
        return 0.0
    sigma = sigma0 + spread * x
    if sigma <= 0.0:
        return 0.0
    variance = sigma * sigma
    if r2 > CUT_SIGMAS * CUT_SIGMAS * variance:
        return 0.0
    peak = strength / (2.0 * math.pi * rho * speed * variance)
    return peak * math.exp(-r2 / (2.0 * variance)) * start_ramp(x, ramp_length) * end_fade(x, wake_length)


@jit
def wake_part_speed_gradient(point, origin, direction, strength, sigma0, spread, speed, rho,
                             ramp_length, wake_length):
    """d u / d P of `wake_part_speed`, a 3-tuple (zero where the part is zero; the 5-sigma cut is
    a jump of e^-12.5 of the peak, whose derivative is left out):

    with g = exp(-r^2 / (2 sigma^2)), dx/dP = e, d(r^2)/dP = 2 (d - x e), dsigma/dP = k e,
    du/dP = u (-2 k / sigma e - (d - x e) / sigma^2 + r^2 k / sigma^3 e)
            + S / (2 pi rho U sigma^2) g (ramp'(x / D_s) / D_s fade + ramp fade') e.
    """
    d, x, r2 = _part_geometry(point, origin, direction)
    if x <= 0.0 or x >= wake_length:
        return (0.0, 0.0, 0.0)
    sigma = sigma0 + spread * x
    if sigma <= 0.0:
        return (0.0, 0.0, 0.0)
    variance = sigma * sigma
    if r2 > CUT_SIGMAS * CUT_SIGMAS * variance:
        return (0.0, 0.0, 0.0)
    profile = strength / (2.0 * math.pi * rho * speed * variance) * math.exp(-r2 / (2.0 * variance))
    ramp = start_ramp(x, ramp_length)
    fade = end_fade(x, wake_length)
    u = profile * ramp * fade
    along = (u * (-2.0 * spread / sigma + r2 * spread / (variance * sigma))
             + profile * (start_ramp_slope(x, ramp_length) * fade + ramp * end_fade_slope(x, wake_length)))
    across = -u / variance if r2 > 0.0 else 0.0
    return (along * direction[0] + across * (d[0] - x * direction[0]),
            along * direction[1] + across * (d[1] - x * direction[1]),
            along * direction[2] + across * (d[2] - x * direction[2]))


@jit
def _row_parts(rows, base, wake_spread, jet_spread):
    """The two parts of the row at `rows[base:base + 15]`: (stern, jet, e, U, rho, D_s) and the
    (strength, sigma_0, spread) of the hull wake and of the jet."""
    stern = (rows[base + STERN], rows[base + STERN + 1], rows[base + STERN + 2])
    jet = (rows[base + JET], rows[base + JET + 1], rows[base + JET + 2])
    e = (rows[base + DIRECTION], rows[base + DIRECTION + 1], rows[base + DIRECTION + 2])
    hull = (-rows[base + DRAG], rows[base + DIAMETER] / 4.0, wake_spread)
    jet_part = (rows[base + THRUST], rows[base + PROPELLER_DIAMETER] / 4.0, jet_spread)
    return stern, jet, e, rows[base + SPEED], rows[base + RHO], rows[base + DIAMETER], hull, jet_part


@jit
def source_velocity(point, rows, base, wake_spread, jet_spread, wake_length):
    """The water velocity (NED, a 3-tuple) that the source row at `rows[base:base + 15]` gives
    at `point`: its hull wake (origin p_s, strength -F_D, sigma_0 = D_s/4, WakeSpreadRate) plus
    its jet (origin p_j, strength +T, sigma_0 = Dp_s/4, JetSpreadRate), both along e and both
    ramped over x / D_s. A row with U = 0 (no source, or one too slow for the law) gives zero."""
    if rows[base + SPEED] <= 0.0:
        return (0.0, 0.0, 0.0)
    stern, jet, e, speed, rho, diameter, hull, jet_part = _row_parts(rows, base, wake_spread, jet_spread)
    u = (wake_part_speed(point, stern, e, hull[0], hull[1], hull[2], speed, rho, diameter, wake_length)
         + wake_part_speed(point, jet, e, jet_part[0], jet_part[1], jet_part[2], speed, rho, diameter,
                           wake_length))
    return (u * e[0], u * e[1], u * e[2])


@jit
def wake_velocity(point, rows, start, wake_spread, jet_spread, wake_length):
    """The sum of the fields of the three rows at `rows[start:start + 45]` at `point`, NED: the
    water velocity the others' wakes add to the current (a small-wake law: fields add)."""
    total = (0.0, 0.0, 0.0)
    for k in range(MAX_SOURCES):
        v = source_velocity(point, rows, start + k * SOURCE_SIZE, wake_spread, jet_spread, wake_length)
        total = (total[0] + v[0], total[1] + v[1], total[2] + v[2])
    return total


@jit
def wake_velocity_gradient(point, rows, start, wake_spread, jet_spread, wake_length):
    """d (wake_velocity) / d P, 3 x 3 (row i: the NED component, column k: the coordinate of the
    point): each part gives e (du/dP)^T, its field being u e with e fixed."""
    gradient = np.zeros((3, 3))
    for k in range(MAX_SOURCES):
        base = start + k * SOURCE_SIZE
        if rows[base + SPEED] <= 0.0:
            continue
        stern, jet, e, speed, rho, diameter, hull, jet_part = _row_parts(rows, base, wake_spread, jet_spread)
        g_hull = wake_part_speed_gradient(point, stern, e, hull[0], hull[1], hull[2], speed, rho,
                                          diameter, wake_length)
        g_jet = wake_part_speed_gradient(point, jet, e, jet_part[0], jet_part[1], jet_part[2], speed,
                                         rho, diameter, wake_length)
        for i in range(3):
            for j in range(3):
                gradient[i, j] += e[i] * (g_hull[j] + g_jet[j])
    return gradient


# ------------------------------------------------------------------------------ the published row
@jit
def resistance(force, rel_vel):
    """F_D = max(0, -F . v_r / |v_r|): the part of the hull and fin forces F that opposes the
    motion through the water (any frame, both vectors in it; zero at rest). Never negative: a
    force that pushes the body along its motion is no resistance a wake could carry."""
    speed = math.sqrt(rel_vel[0] * rel_vel[0] + rel_vel[1] * rel_vel[1] + rel_vel[2] * rel_vel[2])
    if speed <= 0.0:
        return 0.0
    return max(0.0, -(force[0] * rel_vel[0] + force[1] * rel_vel[1] + force[2] * rel_vel[2]) / speed)


@jit
def source_row_into(pos, rotation, rel_vel, drag, thrust, stern_body, jet_body, diameter,
                    propeller_diameter, rho, min_speed, out, start):
    """The row a casting vehicle publishes (docs/physics/environment.md#wake-source), written into
    out[start:start + 15]:

    p_s = Pos + R stern, p_j = Pos + R jet, e = -R v_r / |v_r|, U = |v_r|, F_D, T, D_s, Dp_s,
    rho_s; all zero when U < `min_speed` (WakeMinSpeed: below it the small-wake law does not
    hold; the switch is abrupt, in time only). `rel_vel` is the body velocity through the
    water (body frame) with the current and the others' wakes but not the waves: a wake trails
    along the motion through the water, so U is its magnitude, not the surge."""
    speed = math.sqrt(rel_vel[0] * rel_vel[0] + rel_vel[1] * rel_vel[1] + rel_vel[2] * rel_vel[2])
    if not speed >= min_speed or speed <= 0.0:
        for i in range(SOURCE_SIZE):
            out[start + i] = 0.0
        return
    for i in range(3):
        out[start + STERN + i] = pos[i] + (rotation[i, 0] * stern_body[0] + rotation[i, 1] * stern_body[1]
                                           + rotation[i, 2] * stern_body[2])
        out[start + JET + i] = pos[i] + (rotation[i, 0] * jet_body[0] + rotation[i, 1] * jet_body[1]
                                         + rotation[i, 2] * jet_body[2])
        out[start + DIRECTION + i] = -(rotation[i, 0] * rel_vel[0] + rotation[i, 1] * rel_vel[1]
                                       + rotation[i, 2] * rel_vel[2]) / speed
    out[start + SPEED] = speed
    out[start + DRAG] = drag
    out[start + THRUST] = thrust
    out[start + DIAMETER] = diameter
    out[start + PROPELLER_DIAMETER] = propeller_diameter
    out[start + RHO] = rho


# ------------------------------------------------------------------------------ holding the rows
@jit
def source_problem(rows, start):
    """0 when every row at `rows[start:start + 45]` is well formed, else a code naming the first
    fault (`describe_source_problem` reads it): 1 + 45 * problem + 15 * row + element.

    A row of zeros is no source. Any other row must be finite, its direction a unit vector
    (within 1e-6), its U, F_D, T, D_s, Dp_s and rho_s not negative, and, when U > 0, D_s and
    rho_s positive (the field divides by both)."""
    for k in range(MAX_SOURCES):
        base = start + k * SOURCE_SIZE
        empty = True
        for i in range(SOURCE_SIZE):
            value = rows[base + i]
            if not math.isfinite(value):
                return 1 + SOURCES_SIZE * NOT_FINITE + SOURCE_SIZE * k + i
            if value != 0.0:
                empty = False
        if empty:
            continue
        norm = math.sqrt(rows[base + DIRECTION] ** 2 + rows[base + DIRECTION + 1] ** 2
                         + rows[base + DIRECTION + 2] ** 2)
        if abs(norm - 1.0) > UNIT_TOLERANCE:
            return 1 + SOURCES_SIZE * NOT_UNIT + SOURCE_SIZE * k + DIRECTION
        for i in range(SPEED, SOURCE_SIZE):
            if rows[base + i] < 0.0:
                return 1 + SOURCES_SIZE * NEGATIVE + SOURCE_SIZE * k + i
        if rows[base + SPEED] > 0.0:
            for i in (DIAMETER, RHO):
                if rows[base + i] <= 0.0:
                    return 1 + SOURCES_SIZE * NOT_POSITIVE + SOURCE_SIZE * k + i
    return 0


def describe_source_problem(code: int, rows, start: int = 0, name: str = "WakeSources") -> str:
    """The text of a `source_problem` code, naming the row and the element as the FMU does
    (`WakeSources[row,element]`, 1-based)."""
    problem, place = divmod(int(code) - 1, SOURCES_SIZE)
    row, element = divmod(place, SOURCE_SIZE)
    base = start + row * SOURCE_SIZE
    if problem == NOT_UNIT:
        e = [float(rows[base + DIRECTION + i]) for i in range(3)]
        return (f"{name}[{row + 1},{DIRECTION + 1}..{DIRECTION + 3}] = ({e[0]!r}, {e[1]!r}, {e[2]!r}) "
                f"(row {row + 1}, the wake direction) is not a unit vector: its length is "
                f"{math.sqrt(sum(v * v for v in e))!r}")
    if problem == TOO_FAST:
        given = ", ".join(f"{name}[{row + 1},{i + 1}] = {float(rows[base + i])!r} ({SOURCE_LABELS[i]})"
                          for i in (SPEED, DRAG, THRUST, DIAMETER, PROPELLER_DIAMETER, RHO))
        return (f"row {row + 1} of {name} ({given}) would give a wake faster than sound in water "
                f"({MAX_WAKE_SPEED:g} m/s; its speed is up to F_D or T / (2 pi rho_s U sigma^2)): "
                f"no wake is, so no such row is taken")
    value = float(rows[base + element])
    return (f"{name}[{row + 1},{element + 1}] = {value!r} (row {row + 1}, {SOURCE_LABELS[element]}) "
            f"{_PROBLEMS[problem]}")



@jit
def part_speed_bound(strength, sigma0, spread, speed, rho, ramp_length):
    """An upper bound of the speed `wake_part_speed` gives anywhere (m/s; inf when it does not
    fit a double): |S| / (2 pi rho U) times the largest ramp(x / D_s) / sigma(x)^2, which is at
    most 1 / sigma_0^2 (ramp <= 1, sigma >= sigma_0) and at most 3 / (k D_s)^2 (ramp(t) <= 3 t^2,
    sigma >= k x). Zero for a part that is none (no strength, or sigma_0 = k = 0)."""
    if strength == 0.0 or (sigma0 <= 0.0 and spread <= 0.0):
        return 0.0
    shape = math.inf
    if sigma0 > 0.0:
        shape = 1.0 / (sigma0 * sigma0)
    if spread > 0.0 and ramp_length > 0.0:
        shape = min(shape, 3.0 / ((spread * ramp_length) * (spread * ramp_length)))
    return abs(strength) / (2.0 * math.pi * rho * speed) * shape


@jit
def too_fast(held, start, wake_spread, jet_spread):
    """0 when every moving row at `held[start:start + 45]` (well formed: `source_problem`) gives a
    wake slower than MAX_WAKE_SPEED with the receiver's spread rates, else the code of the first
    that may not (a `source_problem` code of TOO_FAST at the row's U)."""
    for k in range(MAX_SOURCES):
        base = start + k * SOURCE_SIZE
        if not held[base + SPEED] > 0.0:
            continue
        _s, _j, _e, speed, rho, diameter, hull, jet_part = _row_parts(held, base, wake_spread, jet_spread)
        bound = max(part_speed_bound(hull[0], hull[1], hull[2], speed, rho, diameter),
                    part_speed_bound(jet_part[0], jet_part[1], jet_part[2], speed, rho, diameter))
        if not bound <= MAX_WAKE_SPEED:
            return 1 + SOURCES_SIZE * TOO_FAST + SOURCE_SIZE * k + SPEED
    return 0


@jit
def hold_wake(point, held, start, evaluation, wake_spread, jet_spread, wake_length):
    """At the start of a step, fill the block at `held[start:start + 49]` from its rows (set by
    the host): whether any row is a source that moves, and in "Step" mode (`evaluation` false)
    the field at `point`, the vehicle's position then, held over the step. Returns 0, or the
    `source_problem` code of a malformed row (the block then unchanged)."""
    problem = source_problem(held, start + HELD_SOURCES)
    if problem == 0:
        problem = too_fast(held, start + HELD_SOURCES, wake_spread, jet_spread)
    if problem != 0:
        return problem
    present = 0.0
    for k in range(MAX_SOURCES):
        if held[start + HELD_SOURCES + k * SOURCE_SIZE + SPEED] > 0.0:
            present = 1.0
    velocity = (0.0, 0.0, 0.0)
    if present > 0.0 and not evaluation:
        velocity = wake_velocity(point, held, start + HELD_SOURCES, wake_spread, jet_spread, wake_length)
    held[start + HELD_PRESENT] = present
    for i in range(3):
        held[start + HELD_VELOCITY + i] = velocity[i]
    return 0


@jit
def meets_wake(held, start):
    """Whether the held vector has a wake block at `start` with a source in it: without one (the
    library's inputs alone, or every row zero) nothing of the wake is computed, not even a
    zero added (still water stays bit for bit what it was)."""
    return held.shape[0] >= start + WAKE_BLOCK and held[start + HELD_PRESENT] > 0.0


@jit
def held_wake_velocity(point, held, start, evaluation, wake_spread, jet_spread, wake_length):
    """The others' wakes at `point` as the step sees them: in "Evaluation" mode the field there
    from the held rows, in "Step" mode the value held since the step's start. Call it only
    where `meets_wake`."""
    if evaluation:
        return wake_velocity(point, held, start + HELD_SOURCES, wake_spread, jet_spread, wake_length)
    return (held[start + HELD_VELOCITY], held[start + HELD_VELOCITY + 1], held[start + HELD_VELOCITY + 2])


def with_sources(inputs, sources=None) -> np.ndarray:
    """A vehicle's inputs followed by up to three source rows (a (k, 15) array or 15 k numbers;
    None: none), the rest zero: the inputs `VehicleSimulator.advance` takes to fly among others
    (the vehicle's `GIVEN_INPUTS` numbers; it holds the block's last four itself)."""
    inputs = np.asarray(inputs, dtype=float).reshape(-1)
    rows = np.zeros(SOURCES_SIZE)
    if sources is not None:
        given = np.asarray(sources, dtype=float).reshape(-1)
        if given.size % SOURCE_SIZE or given.size > SOURCES_SIZE:
            raise ValueError(f"wake sources must be up to {MAX_SOURCES} rows of {SOURCE_SIZE} numbers, "
                             f"got {given.size} numbers")
        rows[:given.size] = given
    return np.concatenate([inputs, rows])


def plane_momentum(row, distance, wake: WakeParameters = WakeParameters(), rings: int = 3000,
                   angles: int = 8) -> float:
    """rho_s U times the integral of u . e over the plane normal to e `distance` downstream of the
    row's stern (N): the momentum its field carries through that plane, which the law
    (docs/physics/environment.md#wake-field) makes
    (T - F_D) ramp fade (1 - e^-12.5) when the stern and the propeller lie on one line along e
    (each part on its own: -F_D and +T). A check of the law, not physics: a polar midpoint rule
    out to 6 sigma of the wider part, `rings` x `angles` points of `wake_velocity`; its error is
    about (dr / sigma)^2 / 24 of each part's flux."""
    row = np.asarray(row, dtype=float)
    e = row[DIRECTION:DIRECTION + 3]
    a = np.cross(e, [0.0, 0.0, 1.0] if abs(e[2]) < 0.9 else [1.0, 0.0, 0.0])
    a /= np.linalg.norm(a)
    b = np.cross(e, a)
    centre = row[STERN:STERN + 3] + distance * e
    reach = CUT_SIGMAS * 1.2 * max(row[DIAMETER] / 4.0 + wake.WakeSpreadRate * distance,
                                   row[PROPELLER_DIAMETER] / 4.0 + wake.JetSpreadRate * distance)
    block = np.zeros(SOURCES_SIZE)
    block[:SOURCE_SIZE] = row
    dr, dphi = reach / rings, 2.0 * math.pi / angles
    total = 0.0
    for i in range(rings):
        r = (i + 0.5) * dr
        for k in range(angles):
            phi = (k + 0.5) * dphi
            v = wake_velocity(tuple(centre + r * (math.cos(phi) * a + math.sin(phi) * b)), block, 0,
                              wake.WakeSpreadRate, wake.JetSpreadRate, wake.WakeLength)
            total += (v[0] * e[0] + v[1] * e[1] + v[2] * e[2]) * r * dr * dphi
    return row[RHO] * row[SPEED] * total
