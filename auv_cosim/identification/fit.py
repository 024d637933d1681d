"""The output-error fit (lmfit) and the prediction figures."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from .log import TrialLog


def noise_level(y: np.ndarray) -> float:
    """White-noise standard deviation of a smooth signal plus noise, from its second
    differences: for white noise of variance s^2, var(y[k+1] - 2 y[k] + y[k-1]) = 6 s^2, while a
    motion sampled at 0.1 s contributes only its acceleration times 0.01 s^2. Median-based (a
    step in the motion does not inflate it)."""
    d2 = np.diff(y[np.isfinite(y)], 2)
    if len(d2) < 3:
        return 0.0
    mad = float(np.median(np.abs(d2 - np.median(d2))))
    return 1.4826 * mad / math.sqrt(6.0)


#: the least a log must hold for a fit: samples per fitted parameter, and seconds. A parameter
#: shows in how the motion answers the commands, which takes the vehicles' time constants
#: (seconds: the H100's surge (m + X_u') / D ~ 5 s) to build, and each parameter needs many
#: samples of it against the noise; a 0.2 s log fitted anything (a quadratic damping of 1.6e8)
MIN_SAMPLES_PER_PARAMETER = 20
MIN_DURATION_S = 10.0


def check_length(log: TrialLog, parameters: int) -> None:
    """Refuse (ValueError naming the log) a log too short for ``parameters`` fitted parameters."""
    n, span = len(log.time), float(log.time[-1] - log.time[0])
    need = MIN_SAMPLES_PER_PARAMETER * parameters
    if n < need or span < MIN_DURATION_S:
        raise ValueError(f"{log.path}: {n} samples ({span:g} s) are too short a log for {parameters} fitted "
                         f"parameter(s): a fit needs at least {need} samples and {MIN_DURATION_S:g} s "
                         f"({MIN_SAMPLES_PER_PARAMETER} samples a parameter)")


def _safe(name: str) -> str:
    """lmfit parameter names are Python identifiers: LinearDamping[1,1] -> LinearDamping_1_1."""
    return re.sub(r"\W", "_", name).strip("_")


@dataclass
class FitResult:
    vehicle: str
    fitted: list[str]
    estimates: dict[str, tuple[float, float | None]]      # FMU name -> (value, standard error)
    nominal: dict[str, float]
    correlations: dict[str, dict[str, float]]
    nuisance: dict[str, float]
    weights: dict[str, float]                              # channel -> noise level used
    residuals: dict[str, np.ndarray]                       # channel -> measured - predicted (fitted)
    predicted: dict[str, np.ndarray]
    predicted_nominal: dict[str, np.ndarray]
    evaluations: int
    success: bool
    message: str
    values: dict[str, float] = field(default_factory=dict)  # every parameter of the fitted vehicle
    report: str = ""
    #: lmfit's standard errors (independent residuals, scaled by the reduced chi-square), kept
    #: beside ``estimates``' when those are the window-robust ones
    stderr_iid: dict[str, float | None] = field(default_factory=dict)
    stderr_method: str = "iid"
    #: named warnings (diagnose): dicts of code, message
    warnings: list = field(default_factory=list)
    #: the fitted parameters' bounds (FMU name -> (low, high))
    bounds: dict = field(default_factory=dict)
    #: before the fit, at the nominal values: the condition number of the fitted parameters'
    #: correlation matrix and their correlations (None where not computed)
    condition_at_start: float | None = None


def _residual_vector(adapter, log, pred, weights) -> np.ndarray:
    parts = []
    for c, sigma in weights.items():
        r = pred[c] - log.measured[c]
        if adapter.channel(c).angle:
            r = (r + math.pi) % (2 * math.pi) - math.pi
        parts.append(r / sigma)
    return np.concatenate(parts)


def check_fit_names(adapter, fit: list[str], nominal: dict) -> None:
    """Refuse (ValueError naming --fit) a name that is not one of the vehicle's parameters,
    with the name meant when one is close ("did you mean"), and an empty list."""
    from auv_cosim.master import suggest

    if not fit:
        raise ValueError("--fit: name at least one parameter")
    for name in fit:
        if name not in nominal:
            hint = suggest(name, nominal) or f" (some: {', '.join(list(nominal)[:12])}...)"
            raise ValueError(f"--fit: {name}: not a parameter of the {adapter.name}{hint}")


def identify(log: TrialLog, adapter, fit: list[str], vehicle_file=None, channels: list[str] | None = None,
             fit_initial_state: bool = True, max_evaluations: int = 400) -> FitResult:
    """Fit the parameters named in ``fit`` (FMU names) to ``log``, from the nominal values."""
    import lmfit

    nominal = adapter.nominal(vehicle_file)
    warnings = []
    twice = sorted({n for n in fit if fit.count(n) > 1})
    if twice:
        warnings.append(warning("duplicate-fit", f"--fit names {', '.join(twice)} more than once: fitted once"))
        fit = list(dict.fromkeys(fit))
    check_fit_names(adapter, fit, nominal)
    check_length(log, len(set(fit)))
    default = [c.name for c in adapter.channels if c.fit]
    chans = [c for c in (channels or default) if c in log.measured]
    missing = [c for c in (channels or []) if c not in log.measured]
    if missing:
        raise ValueError(f"--channels: {', '.join(missing)} not in the log (it has {', '.join(log.measured)})")
    weights = {}
    for c in chans:
        y = log.measured[c]
        if adapter.channel(c).angle:
            y = np.unwrap(y)
        scale = float(np.nanmax(np.abs(y)) - np.nanmin(np.abs(y))) or 1.0
        weights[c] = max(noise_level(y), 1e-4 * scale, 1e-9)

    if getattr(adapter, "shooting_window_s", None):
        fr = _identify_by_shooting(log, adapter, fit, nominal, weights, warnings)
        fr.report = format_report(fr, log)
        return fr
    params = lmfit.Parameters()
    names = {}
    for n in fit:
        v0 = nominal[n]
        names[_safe(n)] = n
        params.add(_safe(n), value=v0, min=0.0 if v0 > 0 else -np.inf, max=np.inf if v0 >= 0 else 0.0)
    nuisance0 = adapter.nuisance(log) if fit_initial_state else {}
    for k, (v0, size) in nuisance0.items():
        params.add(k, value=v0, min=v0 - 50 * size, max=v0 + 50 * size)

    def split(p) -> tuple[dict[str, float], dict[str, float]]:
        values = dict(nominal)
        values.update({names[s]: float(p[s].value) for s in names})
        return values, {k: float(p[k].value) for k in nuisance0}

    def residual(p):
        values, nuis = split(p)
        try:
            pred = adapter.simulate(values, log, nuis)
        except (ValueError, RuntimeError):
            return np.full(sum(len(log.time) for _ in weights), 1e6)  # a diverging trial vehicle
        r = _residual_vector(adapter, log, pred, weights)
        return np.where(np.isfinite(r), r, 1e6)

    # finite-difference steps of 1e-3 relative: far above the integrator's tolerance noise
    result = lmfit.minimize(residual, params, method="least_squares", max_nfev=max_evaluations, diff_step=1e-3,
                            x_scale="jac")
    values, nuis = split(result.params)
    predicted = adapter.simulate(values, log, nuis)
    predicted_nominal = adapter.simulate(nominal, log, {})  # from the first sample as measured
    estimates, correl, stderr_iid = {}, {}, {}
    for s, n in names.items():
        p = result.params[s]
        estimates[n] = (float(p.value), None if p.stderr is None else float(p.stderr))
        stderr_iid[n] = estimates[n][1]
        correl[n] = {names.get(k, k): float(v) for k, v in (p.correl or {}).items() if k in names}
    stderr_method = "iid"
    labels = adapter.window_labels(log)
    if labels is not None and result.success:
        robust = window_robust_covariance(adapter, log, values, nuis, list(names.values()), weights, labels)
        if robust is not None:
            cov, windows = robust
            se = np.sqrt(np.diag(cov))
            fitted_names = list(names.values())
            for i, n in enumerate(fitted_names):
                estimates[n] = (estimates[n][0], float(se[i]))
                correl[n] = {m: float(cov[i, j] / (se[i] * se[j])) for j, m in enumerate(fitted_names) if j != i}
            stderr_method = f"window-robust ({windows} windows)"
    residuals = {}
    for c in weights:
        r = log.measured[c] - predicted[c]
        if adapter.channel(c).angle:
            r = (r + math.pi) % (2 * math.pi) - math.pi
        residuals[c] = r
    fr = FitResult(adapter.name, list(fit), estimates, {n: nominal[n] for n in fit}, correl, nuis, weights,
                   residuals, predicted, predicted_nominal, int(result.nfev), bool(result.success),
                   str(result.message), values, stderr_iid=stderr_iid, stderr_method=stderr_method,
                   bounds={names[k]: (params[k].min, params[k].max) for k in names})
    fr.warnings = warnings + diagnose(fr)
    fr.report = format_report(fr, log)
    return fr


def window_robust_covariance(adapter, log: TrialLog, values: dict[str, float], nuisance: dict[str, float],
                             fitted: list[str], weights: dict[str, float], labels: np.ndarray,
                             relative_step: float = 1e-3) -> tuple[np.ndarray, int] | None:
    """The covariance of the fitted parameters when each prediction window's residuals are
    correlated among themselves: ``B S B`` with ``B = (J^T J)^-1`` and
    ``S = sum over windows w of J_w^T C_w J_w``, J the weighted residuals' Jacobian (central
    differences), ``C_w`` the covariance of a window's weighted residuals (every channel, every
    position from the window's start), pooled over all windows: the mean of ``r_i r_j`` over
    the windows that have both positions. (The block-robust "sandwich" with its covariance
    pooled: each window's own ``r_w r_w^T`` is the cluster-robust form of Liang & Zeger 1986,
    but with 15-30 windows, a few of which carry most of a parameter's information, it is too
    erratic to use.)

    Why not lmfit's ``(J^T J)^-1`` times the reduced chi-square: that assumes independent
    residuals. But a window's prediction starts from the measured (smoothed, still noisy)
    state, so one initial-state error moves every residual of its window together: they are
    strongly correlated, the effective number of samples is far below the count, and the
    independent-residual errors come out 2-6 times too small (on eight noise seeds of the
    ident_h100 trial the truth was 6.5 of them away, RMS, for the heave added mass). These
    errors cover that; they do not cover a bias (docs/identification.md). The windows are taken
    as independent of each other (each starts from its own measurements). None with fewer
    windows than twice the fitted parameters."""
    windows = int(labels.max()) + 1
    if windows < 2 * len(fitted):
        return None
    r0 = _residual_vector(adapter, log, adapter.simulate(values, log, nuisance), weights)
    jac = np.empty((len(r0), len(fitted)))
    for j, name in enumerate(fitted):
        h = relative_step * (abs(values[name]) or 1.0)
        plus, minus = dict(values), dict(values)
        plus[name] += h
        minus[name] -= h
        jac[:, j] = (_residual_vector(adapter, log, adapter.simulate(plus, log, nuisance), weights)
                     - _residual_vector(adapter, log, adapter.simulate(minus, log, nuisance), weights)) / (2 * h)
    if not (np.all(np.isfinite(jac)) and np.all(np.isfinite(r0))):
        return None
    n, channels, p = len(labels), len(weights), len(fitted)
    r = r0.reshape(channels, n).T                 # (sample, channel): the vector is channel after channel
    jj = jac.reshape(channels, n, p).transpose(1, 0, 2)   # (sample, channel, parameter)
    starts = np.flatnonzero(np.diff(np.concatenate([[-1], labels])))
    ends = np.append(starts[1:], n)
    longest = int((ends - starts).max())
    total = np.zeros((longest * channels, longest * channels))
    count = np.zeros((longest, longest))
    for a, b in zip(starts, ends):
        v = r[a:b].ravel()
        total[:v.size, :v.size] += np.outer(v, v)
        count[:b - a, :b - a] += 1
    pooled = total / np.maximum(np.repeat(np.repeat(count, channels, axis=0), channels, axis=1), 1)
    bread = np.linalg.pinv(jac.T @ jac)
    meat = np.zeros((p, p))
    for a, b in zip(starts, ends):
        jw = jj[a:b].reshape((b - a) * channels, p)
        meat += jw.T @ pooled[:jw.shape[0], :jw.shape[0]] @ jw
    return bread @ meat @ bread, windows


def predict(adapter, values: dict[str, float], log: TrialLog) -> dict[str, np.ndarray]:
    """The library's prediction over a log, from its first (measured) sample."""
    return adapter.simulate(values, log, {})


def rms_position_error(adapter, log: TrialLog, predicted: dict[str, np.ndarray]) -> float:
    """RMS over the log of the 3-D distance between predicted and measured position."""
    sq = sum((predicted[c] - log.measured[c]) ** 2 for c in adapter.position_channels if c in log.measured)
    return float(np.sqrt(np.mean(sq)))


def format_report(fr: FitResult, log: TrialLog) -> str:
    lines = [f"{fr.vehicle}: {len(fr.fitted)} parameter(s) fitted to {log.path} "
             f"({len(log.time)} samples, {log.time[-1] - log.time[0]:g} s; channels "
             + ", ".join(f"{c} (noise {w:.3g})" for c, w in fr.weights.items()) + ")",
             f"  {fr.evaluations} simulations; {'converged' if fr.success else 'NOT converged'}: {fr.message}",
             f"  standard errors: {fr.stderr_method}"
             + (" (residuals correlated within each prediction window, their covariance pooled over the "
               "windows; 'iid': lmfit's, for independent residuals)" if fr.stderr_method.startswith("window")
                else " ((J^T J)^-1 times the reduced chi-square: independent residuals)"),
             f"  {'parameter':<28} {'nominal':>12} {'estimate':>12} {'std error':>11} {'change':>8}"]
    for n in fr.fitted:
        v, se = fr.estimates[n]
        nom = fr.nominal[n]
        change = f"{(v / nom - 1) * 100:+.1f} %" if nom else ""
        lines.append(f"  {n:<28} {nom:>12.6g} {v:>12.6g} {('%.3g' % se) if se is not None else 'n/a':>11} {change:>8}"
                     + (f"   (iid {fr.stderr_iid[n]:.3g})" if fr.stderr_method.startswith("window") and fr.stderr_iid.get(n) else ""))
    pairs = [(a, b, c) for a, row in fr.correlations.items() for b, c in row.items() if a < b and abs(c) >= 0.5]
    if pairs:
        lines.append("  correlations of 0.5 or more: " + ", ".join(f"{a} / {b} {c:+.2f}" for a, b, c in pairs))
    lines.append("  residual RMS (measured - fitted): "
                 + ", ".join(f"{c} {np.sqrt(np.mean(r ** 2)):.3g}" for c, r in fr.residuals.items()))
    if fr.condition_at_start is not None:
        lines.append(f"  before the fit: condition number of the parameters' correlation matrix {fr.condition_at_start:.3g}")
    lines += [f"  assumed: {what}" for what in log.assumed]
    lines += [f"  warning [{w['code']}]: {w['message']}" for w in fr.warnings] or ["  no warnings"]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- diagnostics

#: a channel whose residual RMS exceeds its noise level this many times is not explained by the
#: model (an exact model leaves the noise: ratio 1)
RESIDUAL_RATIO = 2.0
#: ... and beyond this many times, the fit is unusable (a wrong minimum, a wrong vehicle file)
RESIDUAL_UNUSABLE = 3.0
#: fitted parameters this correlated are not told apart by the log
CORRELATION_LIMIT = 0.99
#: the warnings that make a fit unusable: exit 1 and no fitted vehicle file
UNUSABLE = ("not-converged", "at-bound", "zero-stderr", "stderr-above-value", "not-identifiable",
            "heldout-worse")


def warning(code: str, message: str) -> dict:
    return {"code": code, "message": message}


def diagnose(fr: FitResult) -> list[dict]:
    """The named warnings of a fit: not converged; a channel's residuals above RESIDUAL_RATIO
    times its noise; a parameter at (within 1e-6 of its size from) a bound; a standard error of
    0 (the log does not move the parameter) or larger than the value (the log cannot tell it
    from 0); a pair correlated beyond CORRELATION_LIMIT. A fit with its residuals at the noise
    and every parameter away from its bounds, well determined and apart, has none."""
    out = []
    if not fr.success:
        out.append(warning("not-converged", f"the fit did not converge: {fr.message}"))
    for c, r in fr.residuals.items():
        rms = float(np.sqrt(np.mean(r ** 2)))
        noise = fr.weights.get(c, 0.0)
        if noise > 0 and rms > RESIDUAL_RATIO * noise:
            w = warning("residual-above-noise", f"{c}: residual RMS {rms:.3g} is {rms / noise:.1f} times its "
                                                f"noise {noise:.3g}: the model does not explain the log")
            if rms > RESIDUAL_UNUSABLE * noise:
                w["unusable"] = True
            out.append(w)
    for n in fr.fitted:
        v, se = fr.estimates[n]
        lo, hi = fr.bounds.get(n, (-math.inf, math.inf))
        size = 1e-6 * (abs(fr.nominal[n]) or 1.0)
        if (math.isfinite(lo) and v - lo <= size) or (math.isfinite(hi) and hi - v <= size):
            out.append(warning("at-bound", f"{n} = {v:.6g} is at its bound "
                                           f"({lo if v - lo <= size else hi:g}): the log pushes it out of range"))
        if se is None or se == 0 or not math.isfinite(se):
            out.append(warning("zero-stderr", f"{n}: standard error {se}: the log does not move this parameter"))
        elif se > abs(v):
            out.append(warning("stderr-above-value", f"{n} = {v:.4g} +- {se:.3g}: the log cannot tell it from 0"))
    seen = set()
    for a, row in fr.correlations.items():
        for b, c in row.items():
            if (b, a) not in seen and abs(c) > CORRELATION_LIMIT:
                out.append(warning("correlated", f"{a} and {b} correlated {c:+.3f}: the log hardly tells them apart"))
            seen.add((a, b))
    return out


def unusable(warnings: list[dict]) -> list[str]:
    """The codes among ``warnings`` that make a fit unusable."""
    return sorted({w["code"] for w in warnings if w["code"] in UNUSABLE or w.get("unusable")})


# ----------------------------------------------------------------------------- multiple shooting

#: the most Jacobians of the H100's fit (each costs 1 + P + 10 simulations)
SHOOTING_JACOBIANS = 20


def _identify_by_shooting(log: TrialLog, adapter, fit: list[str], nominal: dict[str, float],
                          weights: dict[str, float], warnings: list[dict]) -> FitResult:
    """The fit of a vehicle whose whole-log prediction is unstable (the H100): multiple shooting
    (auv_cosim.identification.shooting). Before it, at the nominal values, the identifiability
    check: a parameter the log does not move is refused (ValueError naming it), pairs
    correlated beyond CORRELATION_LIMIT and the correlation matrix's condition are reported."""
    from . import shooting

    problem = shooting.Shooting(adapter, log, nominal, fit, weights, adapter.shooting_window_s)
    theta0 = problem.theta0()
    r0 = problem.residual(theta0)
    j0 = problem.jacobian(theta0)
    norms = np.linalg.norm(j0[:, :len(fit)], axis=0)
    dead = [n for n, v in zip(fit, norms) if not v > 1e-9 * (norms.max() or 1.0)]
    if dead:
        raise ValueError(f"{log.path}: the log does not move {', '.join(dead)} (its sensitivity is 0: are "
                         f"the commands that drive it all zero?): it cannot be fitted from this log")
    _, corr0 = shooting.covariance(j0, r0, len(fit))
    condition = float(np.linalg.cond(corr0)) if len(fit) > 1 else 1.0
    for i in range(len(fit)):
        for j in range(i + 1, len(fit)):
            if abs(corr0[i, j]) > 0.99:
                warnings.append(warning("poorly-separated", f"before the fit: {fit[i]} and {fit[j]} correlated "
                                                            f"{corr0[i, j]:+.3f} on this log"))
    lo, hi = problem.bounds()
    # Gauss-Newton with step halving (shooting.gauss_newton): on these logs it converges in 5-10
    # Jacobians where SciPy's trust-region methods crept along the surge damping pair for 60
    # evaluations; the bounds (0) are checked after (diagnose: at-bound)
    result = shooting.gauss_newton(problem, theta0, max_jacobians=SHOOTING_JACOBIANS)
    cov, corr = shooting.covariance(result.jac, result.fun, len(fit))
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    values, x0 = problem.split(result.x)
    predicted, _ = problem.simulate(values, x0)
    predicted_nominal = adapter.simulate(nominal, log, {})   # windows from the measured states
    estimates = {n: (float(result.x[i]), float(se[i])) for i, n in enumerate(fit)}
    correl = {n: {m: float(corr[i, j]) for j, m in enumerate(fit) if j != i} for i, n in enumerate(fit)}
    residuals = {}
    for c in weights:
        r = log.measured[c] - predicted[c]
        residuals[c] = (r + math.pi) % (2 * math.pi) - math.pi if adapter.channel(c).angle else r
    defect = float(np.abs(result.fun[len(log.time) * len(weights):]).max()) if problem.windows > 1 else 0.0
    fr = FitResult(adapter.name, list(fit), estimates, {n: nominal[n] for n in fit}, correl,
                   {"windows": problem.windows, "largest_defect_over_noise": defect * shooting.DEFECT_FRACTION},
                   weights, residuals, predicted, predicted_nominal, int(result.nfev), bool(result.status > 0),
                   str(result.message), values, stderr_iid={n: e[1] for n, e in estimates.items()},
                   stderr_method=f"multiple shooting ({problem.windows} windows of {adapter.shooting_window_s:g} s, "
                                 f"their starts fitted)",
                   bounds={n: (float(lo[i]), float(hi[i])) for i, n in enumerate(fit)},
                   condition_at_start=condition)
    fr.warnings = warnings + diagnose(fr)
    return fr
