"""The wrenches on the H100, one pure function each (docs/physics/h100.md#equations-of-motion,
Fossen 2011 in matrix form).

Every `*_wrench` function returns what the wrench adds to the right-hand side of
`(M_RB + M_A) nu' = tau + ...`: a body-frame force in [0:3] (N) and a moment about the body
origin O in [3:6] (N m), as a tuple of six floats (`np.array(w)` makes an array of one); its
vector arguments may be arrays or tuples. `nu = (v, omega)` is the velocity of O over ground in the body frame,
`nu_r = (v - v_c^b, omega)` the velocity through the water. A `*_jacobian` right below a
velocity-dependent wrench is its derivative against the 6 velocities it takes, 6 x 6.

Matrices are Fossen's: `S(a)` the skew matrix with `S(a) b = a x b`; `M_A` the 6 x 6 added mass
in the positive (physical) convention of seed 002's `buildFullCoriolisMatrix`.

Why tuples, written out element by element: the derivative sums eight wrenches 7 to 26 times a
communication step, and in compiled code every small NumPy array (a wrench, a cross product, a
3-vector sum, a slice handed to a function) is a heap allocation or a reference count, and every
`@` of a 6 x 6 matrix a BLAS call, each costing more than the arithmetic it carries. Tuples of
floats stay in registers: the 3-vector and wrench helpers are `auv_cosim.vehicles.vectors`'s, and
`_times6` is a 6-row matrix-vector product summed left to right.
"""
import math

import numpy as np

from ...compiled.jit import jit
from ..contact import seabed_contact
from ..rotation import cross, skew
from ..smoothstep import smoothstep, smoothstep_slope
from ..vectors import add3, cross3, rotate3, rotate_back3, scale3, sub3, wrench, wrench_add


@jit
def _row_times(matrix, i, vector):
    """Row i of `matrix` times `vector`, summed left to right over the vector's length."""
    total = 0.0
    for j in range(len(vector)):
        total += matrix[i, j] * vector[j]
    return total


@jit
def _times6(matrix, vector):
    """matrix @ vector for a 6 x k matrix and a k-vector, as a tuple."""
    return (_row_times(matrix, 0, vector), _row_times(matrix, 1, vector), _row_times(matrix, 2, vector),
            _row_times(matrix, 3, vector), _row_times(matrix, 4, vector), _row_times(matrix, 5, vector))


def rigid_body_mass_matrix(mass, center_of_gravity, inertia_at_cg):
    """M_RB = [[m I, -m S(r_g)], [m S(r_g), I_o]] (Fossen 2011 eq. 3.44), I_o = I_g - m S(r_g)^2.

    The origin O need not be the centre of gravity: the off-diagonal blocks couple the linear
    and angular accelerations of a body that rotates about a point other than its CG, and I_o
    is the inertia tensor moved from the CG to O (parallel-axis theorem in matrix form).
    """
    s = skew(np.asarray(center_of_gravity, dtype=float))
    m = np.zeros((6, 6))
    m[0:3, 0:3] = mass * np.eye(3)
    m[0:3, 3:6] = -mass * s
    m[3:6, 0:3] = mass * s
    m[3:6, 3:6] = inertia_about_origin(mass, center_of_gravity, inertia_at_cg)
    return m


def inertia_about_origin(mass, center_of_gravity, inertia_at_cg):
    """I_o = I_g - m S(r_g) S(r_g): the parallel-axis theorem (Fossen 2011 eq. 3.37)."""
    s = skew(np.asarray(center_of_gravity, dtype=float))
    return np.asarray(inertia_at_cg, dtype=float) - mass * (s @ s)


@jit
def rigid_body_coriolis_wrench(nu, mass, center_of_gravity, inertia_origin):
    """-c_RB(nu): minus the rigid body's Coriolis-centripetal wrench about O (Fossen eq. 3.57),

    c_RB = (m omega x (v + omega x r_g), m r_g x (omega x v) + omega x (I_o omega)).
    Written as a vector: every parametrisation of the matrix C_RB(nu) gives the same C_RB nu,
    and this one needs no choice between them. It uses the velocity over ground: the rigid
    body's inertia does not care about the water.
    """
    v = nu[0:3]
    omega = nu[3:6]
    arm = cross3(omega, center_of_gravity)
    centripetal = cross3(omega, add3(v, arm))
    coupling = cross3(center_of_gravity, cross3(omega, v))
    gyroscopic = cross3(omega, rotate3(inertia_origin, omega))
    return wrench(scale3(-mass, centripetal), sub3(scale3(-mass, coupling), gyroscopic))


@jit
def rigid_body_coriolis_jacobian(nu, mass, center_of_gravity, inertia_origin):
    """d(-c_RB)/d(v, omega), from d(a x b) = S(a) db - S(b) da:

    force:  -m S(omega) dv + m (S(v + omega x r_g) + S(omega) S(r_g)) domega,
    moment: -m S(r_g) S(omega) dv + (m S(r_g) S(v) + S(I_o omega) - S(omega) I_o) domega.
    """
    v = nu[0:3]
    omega = nu[3:6]
    s_omega = skew(omega)
    s_rg = skew(center_of_gravity)
    j = np.zeros((6, 6))
    j[0:3, 0:3] = -mass * s_omega
    j[0:3, 3:6] = mass * (skew(v + cross(omega, center_of_gravity)) + s_omega @ s_rg)
    j[3:6, 0:3] = -mass * (s_rg @ s_omega)
    j[3:6, 3:6] = mass * (s_rg @ skew(v)) + skew(inertia_origin @ omega) - s_omega @ inertia_origin
    return j


@jit
def added_mass_coriolis_matrix(added_mass, nu_r):
    """C_A(nu_r) exactly as seed 002's buildFullCoriolisMatrix (Fossen 2011 eq. 6.43):

    with M_A = [[MA11, MA12], [MA21, MA22]] and nu_r = (v1, v2),
    C_A = [[0, -S(MA11 v1 + MA12 v2)], [-S(MA11 v1 + MA12 v2), -S(MA21 v1 + MA22 v2)]].
    Skew-symmetric (C_A + C_A^T = 0): the added mass's Coriolis terms do no work. It carries the
    Munk moment, which turns a body moving obliquely through the water broadside on.
    """
    a = added_mass @ nu_r
    c = np.zeros((6, 6))
    s1 = skew(a[0:3])
    c[0:3, 3:6] = -s1
    c[3:6, 0:3] = -s1
    c[3:6, 3:6] = -skew(a[3:6])
    return c


@jit
def added_mass_coriolis_wrench(added_mass, nu_r):
    """-C_A(nu_r) nu_r = (a1 x omega, a1 x v_r + a2 x omega), a = M_A nu_r (seed 002's matrix
    applied, written out: the same numbers without building the matrix)."""
    a = _times6(added_mass, nu_r)
    v = (nu_r[0], nu_r[1], nu_r[2])
    omega = (nu_r[3], nu_r[4], nu_r[5])
    a1 = (a[0], a[1], a[2])
    force = cross3(a1, omega)
    turning = cross3(a1, v)
    spinning = cross3((a[3], a[4], a[5]), omega)
    return wrench(force, add3(turning, spinning))


@jit
def added_mass_coriolis_jacobian(added_mass, nu_r):
    """d(-C_A(nu_r) nu_r)/d nu_r: with a = M_A nu_r and d(a x b) = S(a) db - S(b) da,

    force:  -S(omega) MA[0:3, :] + [0, S(a1)],
    moment: -S(v_r) MA[0:3, :] - S(omega) MA[3:6, :] + [S(a1), S(a2)].
    """
    a = added_mass @ nu_r
    s_v = skew(nu_r[0:3])
    s_omega = skew(nu_r[3:6])
    j = np.zeros((6, 6))
    upper = np.ascontiguousarray(added_mass[0:3, :])
    lower = np.ascontiguousarray(added_mass[3:6, :])
    j[0:3, :] = -s_omega @ upper
    j[0:3, 3:6] += skew(a[0:3])
    j[3:6, :] = -s_v @ upper - s_omega @ lower
    j[3:6, 0:3] += skew(a[0:3])
    j[3:6, 3:6] += skew(a[3:6])
    return j


@jit
def damping_matrix(linear, quadratic_abs, quadratic, nu_r):
    """D(nu_r) of seed 002's buildDampingMatrix in the positive convention:

    D_ij = L_ij + sum_k Qa_ijk |nu_r,k| + sum_k Q_ijk nu_r,k,
    with the full tensors (Qa_ijk = quadratic_abs[i, j, k]). The seed's matrix carries the
    minus sign inside (its coefficients are Fossen's negative derivatives); here the damping
    coefficients are positive and the wrench is -D nu_r, so a positive coefficient damps.
    """
    d = np.empty((6, 6))
    for i in range(6):
        for j in range(6):
            d[i, j] = _damping_coefficient(linear, quadratic_abs, quadratic, nu_r, i, j)
    return d


@jit
def _damping_coefficient(linear, quadratic_abs, quadratic, nu_r, i, j):
    """D_ij of `damping_matrix`: L_ij plus the sum over k, summed first."""
    total = 0.0
    for k in range(6):
        total += quadratic_abs[i, j, k] * abs(nu_r[k]) + quadratic[i, j, k] * nu_r[k]
    return linear[i, j] + total


def quadratic_damping_terms(quadratic_abs, quadratic):
    """The tensors Qa and Q as a list of their nonzero entries: rows (i, j, k, Qa_ijk, Q_ijk),
    i then j then k ascending, as floats (an m x 5 array, m = 0 for no quadratic damping).

    An ROV's tensors are sparse (the H100's: 6 of 432 entries, Qa_ijj on the diagonal), and a
    zero entry adds nothing to D nu_r: `damping_wrench` sums the listed ones only.
    """
    quadratic_abs = np.asarray(quadratic_abs, dtype=float).reshape(6, 6, 6)
    quadratic = np.asarray(quadratic, dtype=float).reshape(6, 6, 6)
    i, j, k = np.nonzero((quadratic_abs != 0.0) | (quadratic != 0.0))
    return np.column_stack([i, j, k, quadratic_abs[i, j, k], quadratic[i, j, k]]).astype(float)


@jit
def damping_wrench(linear, quadratic_terms, nu_r):
    """-D(nu_r) nu_r: linear (laminar, skin friction and wave radiation at low speed) plus
    quadratic (separated-flow drag, which dominates at the speeds an ROV flies), D of
    `damping_matrix` with the quadratic tensors given by `quadratic_damping_terms`:

    (D nu_r)_i = sum_j L_ij nu_r,j + sum over the terms (i, j, k) of
                 (Qa_ijk |nu_r,k| + Q_ijk nu_r,k) nu_r,j.
    """
    return (-_damping_row(linear, quadratic_terms, nu_r, 0), -_damping_row(linear, quadratic_terms, nu_r, 1),
            -_damping_row(linear, quadratic_terms, nu_r, 2), -_damping_row(linear, quadratic_terms, nu_r, 3),
            -_damping_row(linear, quadratic_terms, nu_r, 4), -_damping_row(linear, quadratic_terms, nu_r, 5))


@jit
def _damping_row(linear, quadratic_terms, nu_r, i):
    """(D nu_r)_i of `damping_wrench`: the linear sum, then the terms of row i in their order."""
    total = 0.0
    for j in range(6):
        total += linear[i, j] * nu_r[j]
    for row in range(quadratic_terms.shape[0]):
        if int(quadratic_terms[row, 0]) == i:
            j, k = int(quadratic_terms[row, 1]), int(quadratic_terms[row, 2])
            total += (quadratic_terms[row, 3] * abs(nu_r[k]) + quadratic_terms[row, 4] * nu_r[k]) * nu_r[j]
    return total


@jit
def damping_jacobian(linear, quadratic_abs, quadratic, nu_r):
    """d(-D(nu_r) nu_r)/d nu_r: -(D_im + sum_j (Qa_ijm sgn(nu_m) + Q_ijm) nu_j)."""
    j_out = -damping_matrix(linear, quadratic_abs, quadratic, nu_r)
    for i in range(6):
        for m in range(6):
            sign = 1.0 if nu_r[m] > 0.0 else (-1.0 if nu_r[m] < 0.0 else 0.0)
            total = 0.0
            for j in range(6):
                total += (quadratic_abs[i, j, m] * sign + quadratic[i, j, m]) * nu_r[j]
            j_out[i, m] -= total
    return j_out


@jit
def submerged_fraction(buoyancy_depth, height):
    """sigma = 3 x^2 - 2 x^3, x = (z_b + Height/2) / Height clamped to [0, 1].

    The hull taken as a box of height `Height` centred on the centre of buoyancy, its volume
    spread smoothly: C1 (the smoothstep), so the buoyancy has no kink for the integrator as the
    vehicle breaks the surface; 1/2 when the centre of buoyancy is on the mean surface.
    """
    return smoothstep((buoyancy_depth + 0.5 * height) / height)


@jit
def frame_lowest_depth(buoyancy_depth, height):
    """The depth of the frame's lowest point: the bottom of the box of height `Height` centred on
    the centre of buoyancy that `submerged_fraction` takes the hull to be, along the vertical."""
    return buoyancy_depth + 0.5 * height


@jit
def frame_contact(north, east, buoyancy_depth, height, vel_ned, c, at, plane_depth, plane_slope):
    """The seabed's contact on the frame (auv_cosim.vehicles.contact.seabed_contact: force NED,
    damping gain, normal) at its lowest point (`frame_lowest_depth`) under O, moving at vel_ned,
    against the grid packed at c[at:] or the plane plane_depth + plane_slope . (north, east).

    The force acts at O, with no moment. Why not at the lowest point: the frame rests on its flat
    base (the BlueROV2 Heavy's skids), whose contact pressure has its resultant under the centre
    of gravity while the vehicle sits level; one point Height/2 below O would be a pendulum
    standing on its tip (an upward force below the CG turns a tilted frame further over), which a
    frame on its skids is not. The corners of the base would need its length and width, which the
    vehicle file does not carry. The weight's and buoyancy's moments keep the attitude."""
    return seabed_contact(north, east, frame_lowest_depth(buoyancy_depth, height), vel_ned, c, at, plane_depth,
                          plane_slope)


@jit
def submerged_fraction_slope(buoyancy_depth, height):
    """d sigma / d z_b = 6 x (1 - x) / Height inside the box, 0 outside."""
    return smoothstep_slope((buoyancy_depth + 0.5 * height) / height) / height


@jit
def restoring_wrench(rotation, mass, volume, rho, gravity, center_of_gravity,
                     center_of_buoyancy, submerged):
    """-g(eta) (Fossen 2011 eq. 4.6 with a quaternion): the weight at r_g and the buoyancy at r_b,

    f_g = R^T (0, 0, m g),  f_b = -R^T (0, 0, rho g Vol sigma),
    -g = (f_g + f_b, r_g x f_g + r_b x f_b).
    `submerged` is sigma (`submerged_fraction` of the centre of buoyancy's depth), passed in so
    that this function stays a function of its arguments alone.
    """
    down = rotation[2, :]  # R^T (0, 0, 1): NED down in the body frame
    weight = mass * gravity
    buoyancy = -rho * gravity * volume * submerged
    f_g = scale3(weight, down)
    f_b = scale3(buoyancy, down)
    return wrench(add3(f_g, f_b), add3(cross3(center_of_gravity, f_g), cross3(center_of_buoyancy, f_b)))


@jit
def thruster_force(speed_fraction, max_forward, max_reverse, efficiency):
    """F = eta_t k sgn(s) s^2 (seed 004's `eta_t sgn(w) k w^2` with w = s w_max), k the
    largest thrust of the direction the propeller turns (forward and reverse differ: the T200
    pushes 51.5 N forward, 40.2 N reverse)."""
    if speed_fraction >= 0.0:
        return efficiency * max_forward * speed_fraction * speed_fraction
    return -efficiency * max_reverse * speed_fraction * speed_fraction


@jit
def thruster_force_slope(speed_fraction, max_forward, max_reverse, efficiency):
    """dF/ds = 2 eta_t k |s| (continuous through s = 0, where it is zero)."""
    k = max_forward if speed_fraction >= 0.0 else max_reverse
    return 2.0 * efficiency * k * abs(speed_fraction)


@jit
def thruster_speed_rate(command, speed_fraction, time_constant):
    """s' = (clamp(c, -1, 1) - s) / T: the propeller speed lags its set-point (the ESC and the
    rotor's inertia) with one time constant; the command is a fraction of full speed."""
    return (min(max(command, -1.0), 1.0) - speed_fraction) / time_constant


@jit
def thruster_speed_after(speed_fraction, command, time_constant, elapsed):
    """s(t) = c + (s0 - c) e^(-t/T): the exact solution of `thruster_speed_rate`'s lag
    s' = (c - s)/T from s0 with the clamped command c held for the time t (a linear first-order
    system with a constant input). Written with expm1 so that a short t loses no digits."""
    command = min(max(command, -1.0), 1.0)
    return speed_fraction + (speed_fraction - command) * math.expm1(-elapsed / time_constant)


@jit
def _speed_squared_integral(command, offset, scaled_time, decay_minus_one):
    """The integral of s^2 over the scaled time sigma = t/T from 0 to tau, for s = c + a e^-sigma
    (a = s0 - c): c^2 tau + 2 a c (1 - e^-tau) + a^2/2 (1 - e^-2tau), written with
    e^-tau - 1 (`decay_minus_one`) and e^-2tau - 1 = (e^-tau - 1)(e^-tau + 1) so that nothing
    cancels when tau is small."""
    return (command * command * scaled_time - 2.0 * offset * command * decay_minus_one
            - 0.5 * offset * offset * decay_minus_one * (decay_minus_one + 2.0))


@jit
def thruster_impulse_scaled(speed_fraction, command, time_constant, scaled_time, decay_minus_one,
                            max_forward, max_reverse, efficiency):
    """`thruster_impulse` with tau = t/T and e^-tau - 1 given: a derivative that needs every
    thruster's impulse at one instant computes the exponential once for all of them."""
    command = min(max(command, -1.0), 1.0)
    offset = speed_fraction - command
    scale = efficiency * time_constant
    if (speed_fraction > 0.0 and command < 0.0) or (speed_fraction < 0.0 and command > 0.0):
        # s crosses zero at e^-tau* = -c/a, where the law switches its sign and its k
        crossing = math.log(offset / -command)
        before = max_forward if speed_fraction > 0.0 else -max_reverse
        if scaled_time <= crossing:
            return scale * before * _speed_squared_integral(command, offset, scaled_time, decay_minus_one)
        after = max_forward if command > 0.0 else -max_reverse
        up_to_crossing = _speed_squared_integral(command, offset, crossing, -speed_fraction / offset)
        return scale * (before * up_to_crossing + after * (_speed_squared_integral(
            command, offset, scaled_time, decay_minus_one) - up_to_crossing))
    forward = speed_fraction > 0.0 or (speed_fraction == 0.0 and command >= 0.0)
    k = max_forward if forward else -max_reverse
    return scale * k * _speed_squared_integral(command, offset, scaled_time, decay_minus_one)


@jit
def thruster_impulse(speed_fraction, command, time_constant, elapsed, max_forward, max_reverse,
                     efficiency):
    """The impulse of one thruster, integral of F dt over [0, t], with its lag solved exactly
    (`thruster_speed_after`, the command held) and F = eta_t k sgn(s) s^2 (`thruster_force`).

    With tau = t/T and s = c + a e^-sigma (a = s0 - c), the integral of s^2 dt is T times
    c^2 tau + 2 a c (1 - e^-tau) + a^2/2 (1 - e^-2tau). s is monotonic, so it changes sign at
    most once, when s0 and c have opposite signs, at e^-tau* = -c/a: the law's sign and k
    (forward or reverse) change there, and the integral is summed in those two pieces.

    Why: over a communication step the command is held and the lag is linear, so the
    thrusters' push is a known function of time. The simulator integrates the rigid body with
    this impulse taken out of the velocity (`dynamics.step_derivative_into`): what is left for
    the integrator is smooth, while F itself has a propeller transient as long as the step and,
    where s crosses zero, a jump in its second derivative that makes DOP853 split the step.
    """
    scaled_time = elapsed / time_constant
    return thruster_impulse_scaled(speed_fraction, command, time_constant, scaled_time,
                                   math.expm1(-scaled_time), max_forward, max_reverse, efficiency)


def configuration_matrix(positions, directions):
    """B = [d_i; r_i x d_i], 6 x n: column i is thruster i's wrench per newton of thrust.

    The directions are normalised here (a zero vector is refused by the vehicle file).
    """
    positions = np.asarray(positions, dtype=float).reshape(-1, 3)
    directions = np.asarray(directions, dtype=float).reshape(-1, 3)
    units = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    return np.vstack([units.T, np.cross(positions, units).T])


@jit
def thrusters_wrench(forces, positions, unit_directions):
    """sum_i (F_i d_i, r_i x F_i d_i) = B F: each thruster pushes along its axis at its mount."""
    w = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for i in range(len(forces)):
        f = (forces[i] * unit_directions[i, 0], forces[i] * unit_directions[i, 1],
             forces[i] * unit_directions[i, 2])
        w = wrench_add(w, wrench(f, cross3((positions[i, 0], positions[i, 1], positions[i, 2]), f)))
    return w


@jit
def external_wrench(rotation, force_ned, moment_ned):
    """(R^T F, R^T M): a force at O and a moment, both given along the NED axes (the sums of
    `rotation.rotate_back`)."""
    return wrench(rotate_back3(rotation, force_ned), rotate_back3(rotation, moment_ned))


@jit
def moving_water_added_mass_wrench(added_mass, omega, current_body, fluid_acceleration_body):
    """M_A ((v_c^b)', 0) = M_A (R^T a_c - omega x v_c^b, 0).

    The added mass responds to the acceleration through the water, nu_r' = nu' - ((v_c^b)', 0):
    moved to the right-hand side, the water's own acceleration along the body's path pushes
    the body with M_A times it (Fossen 2011 eq. 10.1 with a non-uniform current). For a current
    constant in NED only the -omega x v_c^b part, the turning of the current in the body
    frame, remains. The product with M_A runs over the three linear columns only: the angular
    part of the rate is zero.
    """
    turning = cross3(omega, current_body)
    rate = sub3(fluid_acceleration_body, turning)
    return _times6(added_mass, rate)


@jit
def froude_krylov_wrench(fluid_acceleration_body, rho, volume, center_of_buoyancy):
    """tau_FK = (rho Vol a, rho Vol r_b x a), a = R^T a_w the waves' fluid acceleration
    (docs/physics/environment.md#wave-forces).

    The pressure gradient that accelerates the water also acts on the volume the body displaces
    (the undisturbed-pressure force), applied at the centre of buoyancy. Not scaled by the
    submerged fraction: the waves' kinematics are linear theory below the mean surface.
    """
    scale = rho * volume
    f = scale3(scale, fluid_acceleration_body)
    return wrench(f, cross3(center_of_buoyancy, f))


def weight_and_buoyancy(mass, volume, rho, gravity):
    """(W, B) = (m g, rho g Vol), N: the vehicle is heavy when W > B."""
    return mass * gravity, rho * gravity * volume


def steady_speed(force, linear, quadratic):
    """The speed u >= 0 with linear u + quadratic u^2 = force (a force >= 0 against one axis's
    linear and quadratic damping): u = (-L + sqrt(L^2 + 4 Q F)) / (2 Q), the smallest such
    speed. NaN when there is none: damping that never grows to the force (negative terms, a
    peak below it, or no damping at all) lets the speed grow without end."""
    if force == 0.0:
        return 0.0
    if quadratic == 0.0:
        return force / linear if linear > 0.0 else math.nan
    discriminant = linear * linear + 4.0 * quadratic * force
    if discriminant < 0.0:
        return math.nan
    speed = (-linear + math.sqrt(discriminant)) / (2.0 * quadratic)
    return speed if speed >= 0.0 else math.nan
