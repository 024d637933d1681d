"""The library's derivative against a second, independent transcription of SPEC 2.3.

Written from the SPEC's formulas in Fossen's matrix form (M, C_RB, C_A as 6 x 6 matrices,
SciPy's Rotation for R and the Euler angles), sharing no code with auv_cosim.vehicles beyond the
parameter defaults, so that an index or sign slip in either shows up as a mismatch.
"""
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from auv_cosim.vehicles.auv import AuvParameters, AuvModel, initial_state
from auv_cosim.vehicles import Environment

P = AuvParameters()


def S(a):
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def foil_cl(alpha):
    a = alpha - math.pi * math.floor(alpha / math.pi + 0.5)
    if abs(a) <= P.RudderAoaMax:
        return P.RudderClMax * math.sin(math.pi / 2 * a / P.RudderAoaMax)
    s = (abs(a) - P.RudderAoaMax) / (math.pi / 2 - P.RudderAoaMax)
    return math.copysign(P.RudderClMax * (1 - s * s), a)


def reference_derivative(x, u, env):
    g, rho = env.Gravity, P.Rho
    r = P.Diameter / 2
    vol = math.pi * r * r * P.Length
    m = P.AverageDensity * vol
    ixx, iyy = m * r * r / 2, m * (3 * r * r + P.Length ** 2) / 12
    inertia = np.diag([ixx, iyy, iyy])
    a_lin, a_ang = np.diag(P.AddedMass[:3]), np.diag(P.AddedMass[3:])
    mass_matrix = np.diag([m, m, m, ixx, iyy, iyy]) + np.diag(P.AddedMass)

    pos, q, vel, omega, battery = x[0:3], x[3:7], x[7:10], x[10:13], x[13]
    rot = Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_matrix()   # SciPy: scalar last
    current = np.array(env.CurrentVelocity) + np.array(env.CurrentDepthGradient) * pos[2]
    v_w = rot.T @ current
    v_r = vel - v_w
    nu_r = np.concatenate([v_r, omega])

    tau = np.zeros(6)
    # weight at COG, buoyancy at the origin
    d = pos[2]
    if d <= -r:
        f = 0.0
    elif d >= r:
        f = 1.0
    else:
        f = (r * r * math.acos(-d / r) + d * math.sqrt(r * r - d * d)) / (math.pi * r * r)
    weight = rot.T @ np.array([0, 0, m * g])
    tau[:3] += weight + rot.T @ np.array([0, 0, -rho * g * vol * f])
    tau[3:] += np.cross(P.COG, weight)
    # thrust
    power = min(max(u[0], 0.0), P.MaxPropulsionPower) if battery > 0 else 0.0
    thrust = np.array([P.ThrustPerPower * power, 0, 0])
    tau[:3] += thrust
    tau[3:] += np.cross(P.ThrusterPos, thrust)
    # axial drag
    tau[0] += -0.5 * rho * math.pi * P.Diameter ** 2 / 4 * P.AxialDragCoeff * abs(v_r[0]) * v_r[0]
    # strip theory
    for xk, dk, lk in zip(P.section_x, P.section_diameter, P.section_length):
        rk = np.array([xk, 0, 0])
        vk = v_r + np.cross(omega, rk)
        wk = math.sqrt(vk[1] ** 2 + vk[2] ** 2 + 1e-12)
        ck = 0.5 * rho * P.CrossFlowDragCoeff * dk * lk
        fk = np.array([0, -ck * wk * vk[1], -ck * wk * vk[2]])
        tau[:3] += fk
        tau[3:] += np.cross(rk, fk)
    # slender-body lift at the separated end
    if v_r[0] >= 0:
        x_e = P.section_x[2] - P.section_length[2] / 2
        a_e = math.pi * P.section_diameter[2] ** 2 / 4
    else:
        x_e = P.section_x[0] + P.section_length[0] / 2
        a_e = math.pi * P.section_diameter[0] ** 2 / 4
    fl = -rho * a_e * abs(v_r[0]) * np.array([0, v_r[1] + omega[2] * x_e, v_r[2] - omega[1] * x_e])
    tau[:3] += fl
    tau[3:] += np.cross([x_e, 0, 0], fl)
    # roll damping
    tau[3] += -(P.RollDampingLinear + P.RollDampingQuadratic * abs(omega[0])) * omega[0]
    # fins
    r_fin = np.array(P.RudderPos)
    v_f = v_r + np.cross(omega, r_fin)
    for axis, command in ((1, u[1]), (2, u[2])):
        u_f, s_f = v_f[0], v_f[axis]
        a_flow = math.atan2(s_f, u_f)
        alpha = min(max(command, -P.MaxRudderAngle), P.MaxRudderAngle) + a_flow
        cl = foil_cl(alpha)
        cd = P.RudderCd0 + cl * cl / (math.pi * P.RudderAspectRatio * P.RudderOswald)
        qd = 0.5 * rho * P.RudderArea * (u_f ** 2 + s_f ** 2)
        force = np.zeros(3)
        force[0] = qd * (-cd * math.cos(a_flow) + cl * math.sin(a_flow))
        force[axis] = qd * (-cl * math.cos(a_flow) - cd * math.sin(a_flow))
        tau[:3] += force
        tau[3:] += np.cross(r_fin, force)
    # external force
    tau[:3] += rot.T @ u[3:6]
    # Coriolis-centripetal, Fossen's matrix form
    c_rb = np.block([[m * S(omega), np.zeros((3, 3))], [np.zeros((3, 3)), -S(inertia @ omega)]])
    c_a = np.block([[np.zeros((3, 3)), -S(a_lin @ v_r)], [-S(a_lin @ v_r), -S(a_ang @ omega)]])
    nu_r_dot = np.linalg.solve(mass_matrix, tau - c_rb @ nu_r - c_a @ nu_r)

    pos_dot = rot @ vel
    w = np.array([[0, -omega[0], -omega[1], -omega[2]], [omega[0], 0, omega[2], -omega[1]],
                  [omega[1], -omega[2], 0, omega[0]], [omega[2], omega[1], -omega[0], 0]])
    q_dot = 0.5 * w @ q + (1 - q @ q) * q / (2 * P.QuaternionConvergenceTime)
    vel_dot = nu_r_dot[:3] - np.cross(omega, v_w) + rot.T @ (np.array(env.CurrentDepthGradient) * pos_dot[2])
    battery_dot = -(power + P.HotelPower) if battery > 0 else 0.0
    return np.concatenate([pos_dot, q_dot, vel_dot, nu_r_dot[3:], [battery_dot]]), rot


@pytest.mark.parametrize("env", [
    Environment(),
    Environment(CurrentVelocity=(0.3, -0.2, 0.02), CurrentDepthGradient=(0.005, 0.01, 0.0)),
], ids=["still", "sheared-current"])
def test_derivative_matches_an_independent_transcription(env, rng):
    model = AuvModel(P, env)
    for _ in range(200):
        sign = rng.choice([-1.0, 1.0])
        x = initial_state(Pos0=(rng.normal(scale=20), rng.normal(scale=20), rng.uniform(-0.15, 30)),
                          Quater0=rng.normal(size=4),
                          LocalVel0=(sign * rng.uniform(0.0, 2.0), *rng.normal(scale=0.4, size=2)),
                          Omega0=rng.normal(scale=0.4, size=3), Battery0=rng.choice([0.0, 1e5]))
        u = np.array([rng.uniform(-20, 150), rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6),
                      *rng.normal(scale=5, size=3)])
        expected, rot = reference_derivative(x, u, env)
        assert model.derivative(x, u) == pytest.approx(expected, rel=1e-9, abs=1e-9)
        # off the unit sphere the quaternion rows carry the norm-restoring term (the rotation
        # matrix of a non-unit quaternion is a convention, so only these rows are compared)
        x[3:7] *= rng.uniform(0.98, 1.02)
        expected, rot = reference_derivative(x, u, env)
        assert model.derivative(x, u)[3:7] == pytest.approx(expected[3:7], rel=1e-9, abs=1e-12)


def test_euler_outputs_match_scipy(rng):
    model = AuvModel()
    for _ in range(100):
        x = initial_state(Quater0=rng.normal(size=4))
        out = model.outputs(x, np.zeros(6))
        q = x[3:7]
        yaw, pitch, roll = Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_euler("ZYX")
        assert out["Euler"] == pytest.approx([roll, pitch, yaw], abs=1e-9)
        assert out["Heading"] == pytest.approx(yaw, abs=1e-9)
