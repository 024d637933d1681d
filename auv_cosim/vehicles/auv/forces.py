"""The forces on the vehicle, one pure function each (seed 000), with the Jacobian of each
velocity-dependent one right below it.

Every force function returns a body-frame wrench as a tuple of six floats (see
`auv_cosim.vehicles.vectors`: the derivative sums a dozen of them seven times a step, and tuples
cost no allocation): force in [0:3] (N) and moment about the body origin in [3:6] (N m);
`np.array(w)` makes an array of one. Vectors may be given as arrays or tuples. Velocities are
body-frame: `rel_vel` is the velocity relative to the water (u, v, w), `omega` the angular
rate (p, q, r). A Jacobian with respect to the velocity is a 6 x 6 array in the order
(u, v, w, p, q, r).
"""
import math

import numpy as np

from ...compiled.jit import jit
from .foil import drag_coefficient, lift_coefficient, lift_slope
from ..rotation import cross, skew
from ..vectors import add3, cross3, mul3, neg3, rotate_back3, scale3, wrench, wrench_at_origin

#: Regularisation under the cross-flow speed: w_k = sqrt(v_ky^2 + v_kz^2 + eps) (seed 000).
#: Without it the bare magnitude has a kink at zero cross-flow, where its derivative jumps,
#: and the adaptive integrator would be pinned at its smallest step there. At 1e-12 the floor
#: under w_k is 1e-6 m/s, a force of order 1e-10 N on the default hull: far below any
#: tolerance of the model, far above the scale at which the derivative misbehaves.
CROSS_FLOW_SPEED_EPSILON = 1e-12
#: Floor under the squared fin inflow speed in the flow-angle derivatives (seed 000). The fin
#: force itself vanishes smoothly at zero inflow (the dynamic pressure goes to zero
#: quadratically), but its derivative holds 1/(u_f^2 + s_f^2) from the flow angle; the floor
#: keeps that finite at a standstill, where the force it multiplies is zero anyway.
INFLOW_SPEED_EPSILON = 1e-12

#: The fin planes, named by the body axis of the in-plane transverse inflow they turn.
YAW_PLANE = 1    # chord in body x-y, RudderYaw, side force along y
DIVE_PLANE = 2   # chord in body x-z, RudderDive, force along z


@jit
def wrench_at(point, force):
    """The wrench of `force` applied at `point`: (F, point x F)."""
    return wrench(force, cross3(point, force))


@jit
def weight_and_buoyancy_wrench(rotation, axis_depth, mass, volume, radius, rho, gravity, cog,
                               submerged):
    """Weight m g (NED down) at COG and buoyancy rho g Vol f (NED up) at the origin.

    F = R^T (0, 0, m g - rho g Vol f),  M = COG x R^T (0, 0, m g).
    `submerged` is f, the SubmergedFraction of the axis depth (passed in so that this function
    stays a function of its arguments alone).
    """
    down = (rotation[2, 0], rotation[2, 1], rotation[2, 2])  # R^T (0, 0, 1): NED down in the body frame
    weight = scale3(mass * gravity, down)
    buoyancy = scale3(-rho * gravity * volume * submerged, down)
    return wrench(add3(weight, buoyancy), cross3(cog, weight))


@jit
def thrust_wrench(thrust, thruster_pos):
    """Thrust T along body x at ThrusterPos: F = (T, 0, 0), M = ThrusterPos x F."""
    return wrench_at(thruster_pos, (thrust, 0.0, 0.0))


@jit
def external_force_wrench(rotation, force_ned):
    """A NED force applied at the body origin: F = R^T F_ned, no moment."""
    return wrench_at_origin(rotate_back3(rotation, force_ned))


def frontal_area(diameter):
    """A_f = pi D^2 / 4, the area the axial drag coefficient refers to."""
    return math.pi * diameter ** 2 / 4.0


@jit
def drag_per_speed_squared(rho, area, drag_coeff):
    """1/2 rho A C_d: a quadratic drag is this times the speed squared. The one place of the
    formula: the hull drag below, the cruise power and the dive-authority speed use it."""
    return 0.5 * rho * area * drag_coeff


@jit
def axial_drag_wrench(rel_vel, rho, frontal_area, axial_drag_coeff):
    """Fx = -1/2 rho A_f C_d |u_r| u_r; the other five components are exactly zero.

    No transverse term on purpose: the transverse resistance belongs to the cross-flow strip
    theory (`cross_flow_strip_wrench`), and adding it here as well would count it twice. That
    is why this is a pure function: a purely transverse relative velocity must give a zero
    wrench, and a test asserts it (seed 000).
    """
    u = rel_vel[0]
    return (-drag_per_speed_squared(rho, frontal_area, axial_drag_coeff) * abs(u) * u,
            0.0, 0.0, 0.0, 0.0, 0.0)


@jit
def axial_drag_jacobian(rel_vel, rho, frontal_area, axial_drag_coeff):
    """dFx/du = -rho A_f C_d |u_r|."""
    j = np.zeros((6, 6))
    j[0, 0] = -2.0 * drag_per_speed_squared(rho, frontal_area, axial_drag_coeff) * abs(rel_vel[0])
    return j


@jit
def cross_flow_strip_wrench(rel_vel, omega, rho, cross_flow_drag_coeff, section_x,
                            section_diameter, section_length):
    """Viscous cross-flow drag of the hull sections (strip theory).

    For each section k at r_k = (x_k, 0, 0): v_k = v_r + omega x r_k,
    w_k = sqrt(v_ky^2 + v_kz^2 + eps), c_k = 1/2 rho C_cf D_k L_k,
    F_k = (0, -c_k w_k v_ky, -c_k w_k v_kz), M_k = r_k x F_k = (0, -x_k F_kz, x_k F_ky).
    Surge force and roll moment are exactly zero: the surge resistance is the axial drag's, and
    a surge component here would count it twice (a pure function, so a test can assert it).
    """
    sum_fy = sum_fz = sum_my = sum_mz = 0.0
    for k in range(len(section_x)):
        x = section_x[k]
        vy = rel_vel[1] + omega[2] * x
        vz = rel_vel[2] - omega[1] * x
        speed = math.sqrt(vy * vy + vz * vz + CROSS_FLOW_SPEED_EPSILON)
        c = 0.5 * rho * cross_flow_drag_coeff * section_diameter[k] * section_length[k]
        fy = -c * speed * vy
        fz = -c * speed * vz
        sum_fy += fy
        sum_fz += fz
        sum_my += -x * fz
        sum_mz += x * fy
    return (0.0, sum_fy, sum_fz, 0.0, sum_my, sum_mz)


@jit
def cross_flow_strip_jacobian(rel_vel, omega, rho, cross_flow_drag_coeff, section_x,
                              section_diameter, section_length):
    """d(cross_flow_strip_wrench)/d(u, v, w, p, q, r).

    dF_ky/dv_ky = -c (w + v_ky^2 / w), dF_ky/dv_kz = -c v_ky v_kz / w (and symmetrically),
    with dv_ky/d(v, r) = (1, x_k) and dv_kz/d(w, q) = (1, -x_k).
    """
    j = np.zeros((6, 6))
    for k in range(section_x.shape[0]):
        x = section_x[k]
        vy = rel_vel[1] + omega[2] * x
        vz = rel_vel[2] - omega[1] * x
        speed = math.sqrt(vy * vy + vz * vz + CROSS_FLOW_SPEED_EPSILON)
        c = 0.5 * rho * cross_flow_drag_coeff * section_diameter[k] * section_length[k]
        dfy_dvy = -c * (speed + vy * vy / speed)
        dfy_dvz = -c * vy * vz / speed
        dfz_dvz = -c * (speed + vz * vz / speed)
        dfz_dvy = dfy_dvz
        # chain to the body velocities: vy depends on v (index 1) and r (5); vz on w (2), q (4)
        dfy = np.zeros(6)
        dfz = np.zeros(6)
        dfy[1] = dfy_dvy
        dfy[5] = dfy_dvy * x
        dfy[2] = dfy_dvz
        dfy[4] = -dfy_dvz * x
        dfz[1] = dfz_dvy
        dfz[5] = dfz_dvy * x
        dfz[2] = dfz_dvz
        dfz[4] = -dfz_dvz * x
        j[1, :] += dfy
        j[2, :] += dfz
        j[4, :] += -x * dfz
        j[5, :] += x * dfy
    return j


@jit
def slender_body_lift_wrench(rel_vel, omega, rho, x_aft, area_aft, x_fore, area_fore):
    """Slender-body hull lift of the separated end (seed 001, owner ruling R112).

    F = -rho A_e |u_r| (0, v_r + r x_e, w_r - q x_e) applied at (x_e, 0, 0), where x_e is the
    aft end of the aftmost section going ahead (u_r >= 0), the forward end of the foremost
    going astern, and A_e = pi D_e^2 / 4 that section's area.
    """
    if rel_vel[0] >= 0.0:
        x_e, area = x_aft, area_aft
    else:
        x_e, area = x_fore, area_fore
    gain = -rho * area * abs(rel_vel[0])
    fy = gain * (rel_vel[1] + omega[2] * x_e)
    fz = gain * (rel_vel[2] - omega[1] * x_e)
    return (0.0, fy, fz, 0.0, -x_e * fz, x_e * fy)


@jit
def slender_body_lift_jacobian(rel_vel, omega, rho, x_aft, area_aft, x_fore, area_fore):
    """d(slender_body_lift_wrench)/d(u, v, w, p, q, r), away from the u_r = 0 switch."""
    if rel_vel[0] >= 0.0:
        x_e, area = x_aft, area_aft
    else:
        x_e, area = x_fore, area_fore
    u = rel_vel[0]
    gain = -rho * area * abs(u)
    dgain_du = -rho * area * (1.0 if u > 0.0 else (-1.0 if u < 0.0 else 0.0))
    dfy = np.zeros(6)
    dfz = np.zeros(6)
    dfy[0] = dgain_du * (rel_vel[1] + omega[2] * x_e)
    dfy[1] = gain
    dfy[5] = gain * x_e
    dfz[0] = dgain_du * (rel_vel[2] - omega[1] * x_e)
    dfz[2] = gain
    dfz[4] = -gain * x_e
    j = np.zeros((6, 6))
    j[1, :] = dfy
    j[2, :] = dfz
    j[4, :] = -x_e * dfz
    j[5, :] = x_e * dfy
    return j


@jit
def roll_damping_moment(roll_rate, linear, quadratic):
    """K = -(K_l + K_q |p|) p, the only roll damping of the vehicle."""
    return -(linear + quadratic * abs(roll_rate)) * roll_rate


@jit
def roll_damping_slope(roll_rate, linear, quadratic):
    """dK/dp = -(K_l + 2 K_q |p|)."""
    return -(linear + 2.0 * quadratic * abs(roll_rate))


@jit
def coriolis_wrench(rel_vel, omega, mass, inertia, added_linear, added_angular):
    """Rigid-body and added-mass Coriolis-centripetal terms, Munk moment included.

    C_RB: F = -m omega x v_r,                M = -omega x (I omega)
    C_A:  F = (A_lin v_r) x omega,           M = (A_lin v_r) x v_r + (A_ang omega) x omega
    (A_lin v_r) x v_r is the Munk moment: -(A22 - A11) u v about z, (A33 - A11) u w about y.
    """
    a_v = mul3(added_linear, rel_vel)
    force = add3(scale3(-mass, cross3(omega, rel_vel)), cross3(a_v, omega))
    moment = add3(add3(neg3(cross3(omega, mul3(inertia, omega))), cross3(a_v, rel_vel)),
                  cross3(mul3(added_angular, omega), omega))
    return wrench(force, moment)


@jit
def coriolis_jacobian(rel_vel, omega, mass, inertia, added_linear, added_angular):
    """d(coriolis_wrench)/d(v_r, omega), from d(a x b) = S(a) db - S(b) da:

    dF/dv = -m S(omega) - S(omega) A_lin          dF/domega = m S(v) + S(A_lin v)
    dM/dv = S(A_lin v) - S(v) A_lin               dM/domega = S(I omega) - S(omega) I
                                                               + S(A_ang omega) - S(omega) A_ang
    """
    s_omega = skew(omega)
    a_lin = np.diag(added_linear)
    a_ang = np.diag(added_angular)
    inertia_m = np.diag(inertia)
    j = np.zeros((6, 6))
    j[0:3, 0:3] = -mass * s_omega - s_omega @ a_lin
    j[0:3, 3:6] = mass * skew(rel_vel) + skew(added_linear * rel_vel)
    j[3:6, 0:3] = skew(added_linear * rel_vel) - skew(rel_vel) @ a_lin
    j[3:6, 3:6] = (skew(inertia * omega) - s_omega @ inertia_m
                   + skew(added_angular * omega) - s_omega @ a_ang)
    return j


@jit
def _fin_inflow(rel_vel, omega, rudder_pos):
    """v_f = v_r + omega x r_fin."""
    return add3(rel_vel, cross3(omega, rudder_pos))


@jit
def rudder_wrench(plane, rel_vel, omega, deflection, rho, area, aspect_ratio, rudder_pos,
                  cl_max, aoa_max, cd0, oswald, max_angle):
    """The wrench of one fin plane at RudderPos.

    v_f = v_r + omega x r_fin; u_f its x component, s_f its in-plane transverse component
    (y for the yaw plane, z for the dive plane);
    a_flow = atan2(s_f, u_f), alpha = clamp(delta, +-MaxRudderAngle) + a_flow,
    q = 1/2 rho A (u_f^2 + s_f^2),
    Fx = q (-Cd cos a_flow + Cl sin a_flow),  Fs = q (-Cl cos a_flow - Cd sin a_flow),
    M = r_fin x F. Positive RudderYaw: force to port, positive yaw moment (turn to starboard);
    positive RudderDive: force up, nose-down pitch moment (dive).
    """
    inflow = _fin_inflow(rel_vel, omega, rudder_pos)
    u_f = inflow[0]
    s_f = inflow[plane]
    delta = min(max(deflection, -max_angle), max_angle)
    flow_angle = math.atan2(s_f, u_f)
    alpha = delta + flow_angle
    cl = lift_coefficient(alpha, cl_max, aoa_max)
    cd = drag_coefficient(cl, cd0, aspect_ratio, oswald)
    q_dyn = 0.5 * rho * area * (u_f * u_f + s_f * s_f)
    cos_a = math.cos(flow_angle)
    sin_a = math.sin(flow_angle)
    axial = q_dyn * (-cd * cos_a + cl * sin_a)
    transverse = q_dyn * (-cl * cos_a - cd * sin_a)
    if plane == YAW_PLANE:
        force = (axial, transverse, 0.0)
    else:
        force = (axial, 0.0, transverse)
    return wrench_at(rudder_pos, force)


@jit
def rudder_wrench_jacobian(plane, rel_vel, omega, deflection, rho, area, aspect_ratio,
                           rudder_pos, cl_max, aoa_max, cd0, oswald, max_angle):
    """The exact derivative of `rudder_wrench`: (dW/d(v_r, omega) 6x6, dW/d delta 6).

    dq/du_f = rho A u_f, dq/ds_f = rho A s_f, da/du_f = -s_f / (u_f^2 + s_f^2 + eps),
    da/ds_f = u_f / (u_f^2 + s_f^2 + eps), dalpha/ddelta = 1 inside the stop and 0 outside;
    the flow angle enters both through alpha and through the resolution into the body frame.
    """
    inflow = _fin_inflow(rel_vel, omega, rudder_pos)
    u_f = inflow[0]
    s_f = inflow[plane]
    inside_stop = -max_angle < deflection < max_angle
    delta = min(max(deflection, -max_angle), max_angle)
    flow_angle = math.atan2(s_f, u_f)
    alpha = delta + flow_angle
    cl = lift_coefficient(alpha, cl_max, aoa_max)
    dcl = lift_slope(alpha, cl_max, aoa_max)
    cd = drag_coefficient(cl, cd0, aspect_ratio, oswald)
    dcd = 2.0 * cl * dcl / (math.pi * aspect_ratio * oswald)
    speed2 = u_f * u_f + s_f * s_f
    q_dyn = 0.5 * rho * area * speed2
    cos_a = math.cos(flow_angle)
    sin_a = math.sin(flow_angle)
    fx_over_q = -cd * cos_a + cl * sin_a
    fs_over_q = -cl * cos_a - cd * sin_a
    # d/dalpha (coefficients) and d/da_flow (resolution), a_flow moves alpha one for one
    dfx_dalpha = q_dyn * (-dcd * cos_a + dcl * sin_a)
    dfs_dalpha = q_dyn * (-dcl * cos_a - dcd * sin_a)
    dfx_dflow = dfx_dalpha + q_dyn * (cd * sin_a + cl * cos_a)
    dfs_dflow = dfs_dalpha + q_dyn * (cl * sin_a - cd * cos_a)
    denominator = speed2 + INFLOW_SPEED_EPSILON
    dflow_du = -s_f / denominator
    dflow_ds = u_f / denominator
    dq_du = rho * area * u_f
    dq_ds = rho * area * s_f
    # d(force)/d(inflow): columns u_f (0) and s_f (plane)
    dforce_dinflow = np.zeros((3, 3))
    dforce_dinflow[0, 0] = dq_du * fx_over_q + dfx_dflow * dflow_du
    dforce_dinflow[0, plane] = dq_ds * fx_over_q + dfx_dflow * dflow_ds
    dforce_dinflow[plane, 0] = dq_du * fs_over_q + dfs_dflow * dflow_du
    dforce_dinflow[plane, plane] = dq_ds * fs_over_q + dfs_dflow * dflow_ds
    # inflow = v_r + omega x r = v_r - r x omega
    dinflow = np.zeros((3, 6))
    dinflow[:, 0:3] = np.eye(3)
    dinflow[:, 3:6] = -skew(rudder_pos)
    dforce = dforce_dinflow @ dinflow
    jac = np.zeros((6, 6))
    jac[0:3, :] = dforce
    jac[3:6, :] = skew(rudder_pos) @ dforce
    d_delta = np.zeros(6)
    if inside_stop:
        dforce_ddelta = np.zeros(3)
        dforce_ddelta[0] = dfx_dalpha
        dforce_ddelta[plane] = dfs_dalpha
        d_delta[0:3] = dforce_ddelta
        d_delta[3:6] = cross(rudder_pos, dforce_ddelta)
    return jac, d_delta
