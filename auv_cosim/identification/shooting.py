"""The H100's fit by multiple shooting: the whole log predicted by the vehicle library in windows,
each window started from a state that is fitted along with the parameters, the windows tied
together by continuity (each window's end state must be the next one's start).

Why: the open-loop H100 has no linear sway, roll-rate or yaw damping and Munk moments, so one
prediction over a whole log strays from the smallest error of its initial state, and from the
nominal parameters it may stray far enough that the fit loses its way. Windows started from the
measured state (what this package did before) cost the information of every window's start: a
noisy start is an error in the regressors, and it biased the fit (LinearDamping[1,1] 98 % off on
a user's log). Here every start is an unknown estimated from all the samples around it, and
continuity makes the windows one trajectory at the solution: the fit is the output-error fit
of the whole log (white measurement noise, exact model: its standard errors are lmfit's usual
ones), with the windows' robustness on the way there (Bock & Plitt 1984; Bock et al. 2007).

The unknowns: the fitted parameters, and per window 10 state coordinates (depth, roll, pitch,
heading, the body velocity, the body rates; north and east do not enter the dynamics: they run
on from window to window). The propeller speeds are no unknowns: the thrusters' lag over the
logged commands from rest, in closed form. The residuals: each fitted channel's prediction
minus measurement over its noise level, and each window's continuity defect over a hundredth of
that channel's noise (close to a hard constraint). The Jacobian by forward differences: one
simulation per parameter, and one per state coordinate for all windows at once (a window's
prediction depends only on its own start), so 1 + P + 10 simulations a Jacobian whatever the
number of windows; Gauss-Newton with step halving (gauss_newton).
"""

from __future__ import annotations

import math

import numpy as np

#: the state coordinates of a window's start, and the measured channel of each
STATE = ("depth", "roll", "pitch", "heading", "surge", "sway", "heave", "p", "q", "r")
ANGLES = (1, 2, 3)
#: a continuity defect is weighted as a measurement of this fraction of its channel's noise
DEFECT_FRACTION = 0.01
#: forward-difference steps: parameters relative, state coordinates absolute (m, rad, m/s, rad/s);
#: the integrator's tolerance (rtol 1e-9) keeps its own noise far below what these move
PARAMETER_STEP = 1e-4
STATE_STEP = 1e-4
RTOL, ATOL = 1e-7, 1e-9


def wrap(a):
    """Angles to (-pi, pi]."""
    return (a + math.pi) % (2 * math.pi) - math.pi


def window_starts(t: np.ndarray, window_s: float) -> np.ndarray:
    """The first sample of each window: every window_s from the log's start, the last window
    taking the remainder when it is shorter than half a window."""
    starts = [0]
    for k in range(1, len(t)):
        if t[k] - t[starts[-1]] >= window_s - 1e-9:
            starts.append(k)
    if len(starts) > 1 and t[-1] - t[starts[-1]] < 0.5 * window_s:
        starts.pop()
    return np.array(starts)


def smoothed(t: np.ndarray, y: np.ndarray, k: int, span: int = 10, angle: bool = False) -> float:
    """The channel at sample k from a quadratic fitted over span samples each side (the start
    guess of a window's state)."""
    lo, hi = max(0, k - span), min(len(t), k + span + 1)
    part = np.unwrap(y[lo:hi]) if angle else y[lo:hi]
    if hi - lo < 5:
        return float(y[k])
    value = float(np.polyfit(t[lo:hi] - t[k], part, 2)[-1])
    return float(wrap(value)) if angle else value


class Shooting:
    """The multiple-shooting problem of one log (see the module's docstring)."""

    def __init__(self, adapter, log, nominal: dict[str, float], fitted: list[str], weights: dict[str, float],
                 window_s: float, defect_fraction: float = DEFECT_FRACTION):
        self.adapter, self.log, self.nominal, self.fitted = adapter, log, dict(nominal), list(fitted)
        self.weights = dict(weights)
        self.t, self.u = log.time, log.inputs
        self.starts = window_starts(self.t, window_s)
        self.windows = len(self.starts)
        self.ends = np.append(self.starts[1:], len(self.t) - 1)   # the sample each window integrates to
        self.channels = [c for c in log.measured]                 # predicted (north, east compared)
        self.fit_channels = list(self.weights)                    # in the residuals
        noise = [self.weights.get(c, 0.0) for c in STATE]
        # a state with no measured channel (a log without rates): its defect still ties the windows
        self.defect_scale = np.array([defect_fraction * (n if n > 0 else 1e-3) for n in noise])
        m = log.measured
        self.x0_guess = np.array([[smoothed(self.t, m[c], k, angle=self.adapter.channel(c).angle) if c in m else
                                   (0.0 if c != "depth" else 0.0) for c in STATE] for k in self.starts])
        self.size = len(fitted) + 10 * self.windows

    # ---- the unknowns
    def theta0(self) -> np.ndarray:
        return np.concatenate([[self.nominal[n] for n in self.fitted], self.x0_guess.ravel()])

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        lo = np.full(self.size, -np.inf)
        hi = np.full(self.size, np.inf)
        for i, n in enumerate(self.fitted):
            if self.nominal[n] > 0:
                lo[i] = 0.0
            elif self.nominal[n] < 0:
                hi[i] = 0.0
        return lo, hi

    def split(self, theta) -> tuple[dict[str, float], np.ndarray]:
        values = dict(self.nominal)
        values.update({n: float(theta[i]) for i, n in enumerate(self.fitted)})
        return values, np.reshape(theta[len(self.fitted):], (self.windows, 10))

    # ---- the prediction
    def simulate(self, values: dict[str, float], x0: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """(each measured channel's prediction over the log, the windows' end-state coordinates
        (windows - 1, 10) at the next window's first sample): the vehicle's library flown window
        by window from the starts ``x0``, by its adapter (``simulate_windows``)."""
        return self.adapter.simulate_windows(self, values, x0)

    # ---- residuals and Jacobian
    def _measurement(self, pred) -> np.ndarray:
        parts = []
        for c in self.fit_channels:
            r = pred[c] - self.log.measured[c]
            if self.adapter.channel(c).angle:
                r = wrap(r)
            parts.append(r / self.weights[c])
        return np.concatenate(parts)

    def _defects(self, ends, x0) -> np.ndarray:
        d = ends - x0[1:]
        d[:, ANGLES] = wrap(d[:, ANGLES])
        return (d / self.defect_scale).ravel()

    def residual(self, theta) -> np.ndarray:
        values, x0 = self.split(theta)
        try:
            pred, ends = self.simulate(values, x0)
        except (ValueError, RuntimeError):
            return np.full(self.residual_size, 1e6)
        self._cache = (np.array(theta), pred, ends)
        r = np.concatenate([self._measurement(pred), self._defects(ends, x0)])
        return np.where(np.isfinite(r), r, 1e6)

    @property
    def residual_size(self) -> int:
        return len(self.t) * len(self.fit_channels) + 10 * (self.windows - 1)

    def jacobian(self, theta) -> np.ndarray:
        last = getattr(self, "_jacobian", None)
        if last is not None and np.array_equal(last[0], theta):
            return last[1].copy()
        J = self._jacobian_at(theta)
        self._jacobian = (np.array(theta), J)
        return J.copy()

    def _jacobian_at(self, theta) -> np.ndarray:
        cached = getattr(self, "_cache", None)
        if cached is None or not np.array_equal(cached[0], theta):
            self.residual(theta)
        _, pred0, ends0 = self._cache
        values, x0 = self.split(theta)
        m0 = self._measurement(pred0)
        d0 = ends0 - x0[1:]
        n, nc, P, W = len(self.t), len(self.fit_channels), len(self.fitted), self.windows
        J = np.zeros((self.residual_size, self.size))
        for i, name in enumerate(self.fitted):
            h = PARAMETER_STEP * (abs(values[name]) or 1.0)
            v = dict(values)
            v[name] += h
            try:
                pred, ends = self.simulate(v, x0)
            except (ValueError, RuntimeError):
                continue
            J[:n * nc, i] = (self._measurement(pred) - m0) / h
            d = ends - x0[1:]
            J[n * nc:, i] = (wrap(d - d0) / self.defect_scale).ravel() / h
        window_of = np.searchsorted(self.starts, np.arange(n), side="right") - 1
        for j in range(10):
            xs = np.array(x0)
            xs[:, j] += STATE_STEP
            try:
                pred, ends = self.simulate(values, xs)
            except (ValueError, RuntimeError):
                continue
            dm = ((self._measurement(pred) - m0) / STATE_STEP).reshape(nc, n)
            for c in range(nc):      # sample k of channel c: moved by its own window's start only
                J[c * n + np.arange(n), P + 10 * window_of + j] = dm[c]
            de = wrap((ends - x0[1:]) - d0) / STATE_STEP / self.defect_scale   # (W - 1, 10): window w's end
            for w in range(W - 1):
                J[n * nc + 10 * w:n * nc + 10 * w + 10, P + 10 * w + j] = de[w]
                J[n * nc + 10 * w + j, P + 10 * (w + 1) + j] = -1.0 / self.defect_scale[j]
        return J


def covariance(jac: np.ndarray, residual: np.ndarray, parameters: int) -> tuple[np.ndarray, np.ndarray]:
    """(the fitted parameters' covariance, their correlation) from the Jacobian at the solution:
    the parameter block of (J^T J)^+ times the residuals' variance 2 cost / (m - n) (independent
    residuals: white measurement noise and an exact model), the pseudo-inverse by SVD (a
    parameter the log does not move gets 0, which the diagnostics name)."""
    m, n = jac.shape
    s2 = float(residual @ residual) / max(m - n, 1)
    _, sv, vt = np.linalg.svd(jac, full_matrices=False)
    keep = sv > sv[0] * 1e-12
    inv = (vt[keep].T / sv[keep] ** 2) @ vt[keep]
    cov = inv[:parameters, :parameters] * s2
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = cov / np.outer(se, se)
    return cov, np.nan_to_num(corr)


def gauss_newton(problem: Shooting, theta0: np.ndarray, max_jacobians: int = 25, tolerance: float = 1e-6):
    """Gauss-Newton with step halving on the shooting problem: each iteration the least-squares
    step of the linearized residuals (SVD, the columns scaled to unit norm), halved until the
    cost falls, else damped as Levenberg-Marquardt's until it does. Stops when the cost falls by less than ``tolerance`` relative and the step moves
    no fitted parameter by more than a hundredth of its standard error's size. Returns a
    scipy-like result (x, fun, jac, nfev, njev, status, message)."""
    from types import SimpleNamespace

    theta = np.array(theta0, dtype=float)
    r = problem.residual(theta)
    cost = 0.5 * float(r @ r)
    nfev, status, message = 1, 0, "the most Jacobians were computed before the fit converged"
    P = len(problem.fitted)
    for it in range(max_jacobians):
        J = problem.jacobian(theta)
        scale = np.linalg.norm(J, axis=0)
        scale[scale == 0] = 1.0
        u, sv, vt = np.linalg.svd(J / scale, full_matrices=False)
        keep = sv > sv[0] * 1e-12
        u, sv, vt = u[:, keep], sv[keep], vt[keep]
        ur = u.T @ r
        accepted = False
        # the Gauss-Newton step, halved; failing that, Levenberg-Marquardt's damped steps
        # (mu from 1e-4 to 1e2 of the largest singular value squared): the first that lowers the cost
        tries = [(0.0, 0.5 ** h) for h in range(4)] + [(m * sv[0] ** 2, 1.0) for m in (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 1e2)]
        for mu, lam in tries:
            step = -(vt.T @ (sv / (sv ** 2 + mu) * ur)) / scale
            trial = theta + lam * step
            rt = problem.residual(trial)
            nfev += 1
            ct = 0.5 * float(rt @ rt)
            if ct < cost:
                accepted = True
                break
        if not accepted:
            status, message = 0, "no step lowers the cost (the fit is stuck)"
            break
        # the step against the parameters' standard errors (from this Jacobian)
        var = np.sum((vt[:, :P] / sv[:, None]) ** 2, axis=0) / scale[:P] ** 2 * (2 * ct / max(len(rt) - len(theta), 1))
        small = np.all(np.abs(lam * step[:P]) < 0.01 * np.sqrt(np.maximum(var, 1e-300)))
        drop = (cost - ct) / cost
        theta, r, cost = trial, rt, ct
        if drop < tolerance or small:
            status, message = 1, f"converged after {it + 1} Jacobians (cost change {drop:.2g}, steps below 0.01 standard errors)"
            break
    J = problem.jacobian(theta)
    return SimpleNamespace(x=theta, fun=r, jac=J, nfev=nfev, njev=it + 1, status=status, message=message,
                           cost=cost)
