"""An independent transcription of SPEC 7.2 and 8 in Fossen's matrix form, for the tests.

Written from the SPEC's formulas with 6 x 6 matrices (M_RB, C_RB and C_A by Fossen's Theorem 3.2
/ eq. 6.43 block form, D from seed 002's index layout), SciPy's Rotation for R, and the waves'
closed form summed component by component. It shares no code with auv_cosim.vehicles: only the raw
fields of the parameter object (Mass, Inertia, ...), so that an index or sign slip in either
shows up as a mismatch.
"""
import math

import numpy as np
from scipy.spatial.transform import Rotation


def S(a):
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def kirchhoff_coriolis(m6, nu):
    """C(nu) of a symmetric 6 x 6 inertia matrix (Fossen 2011 Theorem 3.2 / eq. 6.43)."""
    a = m6 @ nu
    return np.block([[np.zeros((3, 3)), -S(a[:3])], [-S(a[:3]), -S(a[3:])]])


class ReferenceH100:
    def __init__(self, p, current=(0, 0, 0), gradient=(0, 0, 0), wave_rows=(), wave_direction=0.0, gravity=9.82):
        self.p = p
        self.g = gravity
        self.n = len(p.ThrusterPos) // 3
        self.positions = np.reshape(p.ThrusterPos, (-1, 3))
        self.directions = np.reshape(p.ThrusterDir, (-1, 3))
        m = p.Mass
        rg = np.array(p.CenterOfGravity, float)
        ig = np.reshape(p.Inertia, (3, 3))
        io = ig - m * S(rg) @ S(rg)
        self.m_rb = np.block([[m * np.eye(3), -m * S(rg)], [m * S(rg), io]])
        self.m_a = np.reshape(p.AddedMass, (6, 6))
        self.m_inv = np.linalg.inv(self.m_rb + self.m_a)
        self.lin = np.reshape(p.LinearDamping, (6, 6))
        if p.QuadraticDampingTensor is not None:
            self.qa = np.array(p.QuadraticDampingTensor, float).ravel()
        else:
            qa = np.zeros(216)
            for i in range(6):
                for j in range(6):
                    qa[i * 36 + j * 6 + j] = p.QuadraticDamping[i * 6 + j]
            self.qa = qa
        self.qs = (np.zeros(216) if p.SignedQuadraticDampingTensor is None
                   else np.array(p.SignedQuadraticDampingTensor, float).ravel())
        self.current = np.array(current, float)
        self.gradient = np.array(gradient, float)
        self.waves = [tuple(r) for r in wave_rows]     # (a, w, k, phi)
        self.beta = wave_direction

    def wave(self, t, pos):
        z = max(pos[2], 0.0)
        along = pos[0] * math.cos(self.beta) + pos[1] * math.sin(self.beta)
        e = np.array([math.cos(self.beta), math.sin(self.beta), 0.0])
        vel, acc = np.zeros(3), np.zeros(3)
        for a, w, k, phi in self.waves:
            th = w * t - k * along + phi
            amp = w * a * math.exp(-k * z)
            vel += amp * (math.cos(th) * e + math.sin(th) * np.array([0, 0, 1.0]))
            acc += w * amp * (-math.sin(th) * e + math.cos(th) * np.array([0, 0, 1.0]))
        return vel, acc

    def damping(self, nu):
        d = np.zeros((6, 6))
        for i in range(6):
            for j in range(6):
                d[i, j] = self.lin[i, j] + sum(self.qa[i * 36 + j * 6 + k] * abs(nu[k])
                                               + self.qs[i * 36 + j * 6 + k] * nu[k] for k in range(6))
        return d

    def thrust(self, s):
        p = self.p
        k = p.MaxThrustForward if s >= 0 else p.MaxThrustReverse
        return p.ThrusterEfficiency * k * np.sign(s) * s * s

    def derivative(self, t, x, u):
        p, n = self.p, self.n
        pos, q, v, om, s = x[0:3], x[3:7], x[7:10], x[10:13], x[13:13 + n]
        rot = Rotation.from_quat([q[1], q[2], q[3], q[0]]).as_matrix()   # SciPy: scalar last, normalises
        wv, wa = self.wave(t, pos)
        vc = self.current + self.gradient * pos[2] + wv
        vcb = rot.T @ vc
        nu = np.concatenate([v, om])
        nu_r = np.concatenate([v - vcb, om])
        pos_dot = rot @ v
        a_c = self.gradient * pos_dot[2] + wa

        tau = np.zeros(6)
        for i in range(n):
            d = self.directions[i] / np.linalg.norm(self.directions[i])
            f = self.thrust(s[i]) * d
            tau += np.concatenate([f, np.cross(self.positions[i], f)])
        tau += np.concatenate([rot.T @ u[n:n + 3], rot.T @ u[n + 3:n + 6]])
        rb = np.array(p.CenterOfBuoyancy, float)
        zb = pos[2] + (rot @ rb)[2]
        xs = min(max((zb + p.Height / 2) / p.Height, 0.0), 1.0)
        sigma = 3 * xs ** 2 - 2 * xs ** 3
        fg = rot.T @ np.array([0, 0, p.Mass * self.g])
        fb = -rot.T @ np.array([0, 0, p.Rho * self.g * p.Volume * sigma])
        g_eta = -np.concatenate([fg + fb, np.cross(p.CenterOfGravity, fg) + np.cross(rb, fb)])
        fk_force = p.Rho * p.Volume * (rot.T @ wa)
        tau_fk = np.concatenate([fk_force, np.cross(rb, fk_force)])
        rhs = (tau - kirchhoff_coriolis(self.m_rb, nu) @ nu - kirchhoff_coriolis(self.m_a, nu_r) @ nu_r
               - self.damping(nu_r) @ nu_r - g_eta
               - self.m_a @ np.concatenate([np.cross(om, vcb), np.zeros(3)])
               + self.m_a @ np.concatenate([rot.T @ a_c, np.zeros(3)]) + tau_fk)
        nu_dot = self.m_inv @ rhs
        w = np.array([[0, -om[0], -om[1], -om[2]], [om[0], 0, om[2], -om[1]],
                      [om[1], -om[2], 0, om[0]], [om[2], om[1], -om[0], 0]])
        q_dot = 0.5 * w @ q + (1 - q @ q) * q / (2 * p.QuaternionConvergenceTime)
        s_dot = (np.clip(u[:n], -1, 1) - s) / p.ThrusterTimeConstant
        return np.concatenate([pos_dot, q_dot, nu_dot, s_dot])
