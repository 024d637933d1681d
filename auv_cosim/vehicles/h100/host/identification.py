"""The H100's side of `auv-cosim identify` (auv_cosim/identification): its inputs (one command
per thruster of the vehicle file's layout), measured channels and fittable parameters, the
library simulated over a log, a vehicle file written with the fitted values. The vehicle library
is imported inside the methods."""
from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np

from auv_cosim.identification.log import TrialLog
from auv_cosim.identification.vehicles import Channel, VehicleAdapter


_H100_MATRICES = ("Inertia", "AddedMass", "LinearDamping", "QuadraticDamping")
_H100_SKIPPED = ("ThrusterPos", "ThrusterDir", "QuadraticDampingTensor", "SignedQuadraticDampingTensor")


class H100Adapter(VehicleAdapter):
    """The H100 ROV (auv_cosim.vehicles.h100, docs/physics/h100.md): inputs ThrusterCommand[1..n], ExternalForce,
    ExternalMoment; parameters by their FMU names (``LinearDamping[1,1]``, ``AddedMass[3,3]``,
    ``ThrusterEfficiency``...); the vehicle file (docs/physics/h100.md#fmu-interface) gives the thruster layout and
    every value not fitted. Measured: position, depth, attitude, and where logged the body
    velocities and rates (its FMU outputs them), or the instruments' columns."""

    name = "h100"
    vehicle_file_name = "h100_fitted.yaml"

    def __init__(self, vehicle_file=None):
        self._vehicle_file = vehicle_file
        self._vehicle = None

    @property
    def vehicle(self):
        if self._vehicle is None:
            from auv_cosim.vehicles.h100 import DEFAULT_VEHICLE_FILE, load_vehicle

            self._vehicle = load_vehicle(str(self._vehicle_file or DEFAULT_VEHICLE_FILE))
        return self._vehicle

    @property
    def input_names(self) -> list[str]:
        n = len(self.vehicle.params.thruster_positions())
        return ([f"ThrusterCommand[{i}]" for i in range(1, n + 1)]
                + [f"ExternalForce[{i}]" for i in (1, 2, 3)] + [f"ExternalMoment[{i}]" for i in (1, 2, 3)])

    @property
    def required_inputs(self) -> set[str]:
        return {n for n in self.input_names if n.startswith("ThrusterCommand")}

    # the H100Sensors' readings first (IMU attitude and gyro, DVL velocity, pressure depth), else
    # the vehicle's own outputs. North and east are compared (the held-out RMS position error)
    # but not fitted: the dynamics do not depend on where the vehicle is (no current or waves in
    # a trial), and a results.csv holds only the true position besides the USBL's sparse fixes
    channels = [
        Channel("north", ("vehicle.Pos[1]",), "m", fit=False),
        Channel("east", ("vehicle.Pos[2]",), "m", fit=False),
        Channel("depth", ("sensors.MeasuredDepth", "vehicle.Depth"), "m"),
        Channel("roll", ("sensors.MeasuredEuler[1]", "vehicle.Euler[1]"), "rad", angle=True),
        Channel("pitch", ("sensors.MeasuredEuler[2]", "vehicle.Euler[2]"), "rad", angle=True),
        Channel("heading", ("sensors.MeasuredEuler[3]", "vehicle.Euler[3]"), "rad", angle=True),
        Channel("surge", ("sensors.MeasuredVelocity[1]", "vehicle.LocalVel[1]"), "m/s"),
        Channel("sway", ("sensors.MeasuredVelocity[2]", "vehicle.LocalVel[2]"), "m/s"),
        Channel("heave", ("sensors.MeasuredVelocity[3]", "vehicle.LocalVel[3]"), "m/s"),
        Channel("p", ("sensors.MeasuredOmega[1]", "vehicle.Omega[1]"), "rad/s"),
        Channel("q", ("sensors.MeasuredOmega[2]", "vehicle.Omega[2]"), "rad/s"),
        Channel("r", ("sensors.MeasuredOmega[3]", "vehicle.Omega[3]"), "rad/s"),
    ]
    #: prediction windows (s): the open-loop H100 is unstable at speed (Munk moments; no linear
    #: sway, roll or yaw damping), so a whole-log simulation diverges from the smallest error in
    #: its initial state. Each window starts again from the measured state.
    window_s = 5.0
    #: the fit: multiple shooting over windows of this length, their starts fitted
    #: (auv_cosim.identification.shooting); ``window_s`` above is the held-out check's prediction
    shooting_window_s = 10.0
    smoothing = 10   # samples each side of a window's start fitted for its initial state
    jump = 0.02      # a change of a command's slope (per sample) above this is a step (window_labels)

    _OUTPUT = {"north": ("Pos", 0), "east": ("Pos", 1), "depth": ("Depth", 0), "roll": ("Euler", 0),
               "pitch": ("Euler", 1), "heading": ("Euler", 2), "surge": ("LocalVel", 0), "sway": ("LocalVel", 1),
               "heave": ("LocalVel", 2), "p": ("Omega", 0), "q": ("Omega", 1), "r": ("Omega", 2)}

    #: each window starts from these (north and east only place the track: the dynamics do not
    #: depend on them)
    initial_channels = ("depth", "roll", "pitch", "heading", "surge", "sway", "heave", "p", "q", "r")

    def input_columns(self, name: str) -> list[str]:
        return [f"vehicle.{name}", f"control.{name}", f"allocation.{name}", name]

    def check_layout(self, path, header: list[str], columns: dict[str, str]) -> None:
        """A log with more thruster-command columns (beside the one read as ThrusterCommand[1],
        same prefix) than the vehicle file has thrusters is another vehicle's log: the extra
        thrusters' pushes would be left out of every prediction (fewer columns than thrusters:
        read_log already refuses the missing one)."""
        import re as _re
        from auv_cosim.identification.log import LogError

        first = columns.get("ThrusterCommand[1]")
        if first is None:
            return
        prefix = first[:-len("ThrusterCommand[1]")]
        found = sorted(int(m.group(1)) for h in header
                       if (m := _re.fullmatch(_re.escape(prefix) + r"ThrusterCommand\[(\d+)\]", h)))
        n = len(self.vehicle.params.thruster_positions())
        if found and found[-1] > n:
            raise LogError(f"{path}: {len(found)} thruster commands ({prefix}ThrusterCommand[1] .. [{found[-1]}]) "
                           f"where the vehicle file {Path(self.vehicle.source).name} has {n} thrusters: a log of "
                           f"another vehicle (give the --vehicle-file of the vehicle that flew it)")

    def commands_for(self, wrench) -> np.ndarray:
        """Thruster commands that push the body wrench (X, Y, Z, K, M, N) (N, N m) with the
        nominal thrusters: the configuration matrix's pseudo-inverse, then each force through
        the thrust law inverted. For excitation manoeuvres (one axis at a time)."""
        p = self.vehicle.params
        pos = np.reshape(np.asarray(p.ThrusterPos, dtype=float), (-1, 3))
        d = np.reshape(np.asarray(p.ThrusterDir, dtype=float), (-1, 3))
        d = d / np.linalg.norm(d, axis=1, keepdims=True)
        forces = np.linalg.pinv(np.vstack([d.T, np.cross(pos, d).T])) @ np.asarray(wrench, dtype=float)
        k = np.where(forces >= 0, p.MaxThrustForward, p.MaxThrustReverse) * p.ThrusterEfficiency
        return np.sign(forces) * np.sqrt(np.abs(forces) / k)

    def nominal(self, vehicle_file=None) -> dict[str, float]:
        if vehicle_file is not None and vehicle_file != self._vehicle_file:
            self._vehicle_file, self._vehicle = vehicle_file, None
        p = self.vehicle.params
        values = {}
        for f in dataclasses.fields(p):
            if f.name in _H100_SKIPPED:
                continue
            v = getattr(p, f.name)
            shape = f.metadata.get("shape")
            if shape and len(shape) == 2 and v is not None:
                for i in range(shape[0]):
                    for j in range(shape[1]):
                        values[f"{f.name}[{i + 1},{j + 1}]"] = float(v[i * shape[1] + j])
            elif isinstance(v, (tuple, list)):
                for i, x in enumerate(v, start=1):
                    values[f"{f.name}[{i}]"] = float(x)
            elif isinstance(v, (int, float)):
                values[f.name] = float(v)
        return values

    def _parameters(self, values: dict[str, float]):
        """The vehicle file's parameters with ``values`` (FMU names) in, validated."""
        base = self.vehicle.params
        shapes = {f.name: f.metadata.get("shape") for f in dataclasses.fields(base)}
        changes: dict[str, list] = {}
        for key, v in values.items():
            m = re.fullmatch(r"(\w+)\[(\d+),(\d+)\]", key)
            if m:
                name, i, j = m.group(1), int(m.group(2)) - 1, int(m.group(3)) - 1
                cols = shapes[name][1]
                flat = changes.setdefault(name, list(getattr(base, name)))
                flat[i * cols + j] = v
                if name in ("AddedMass", "Inertia"):
                    flat[j * cols + i] = v  # symmetric: one fitted value for both entries
                continue
            m = re.fullmatch(r"(\w+)\[(\d+)\]", key)
            if m:
                flat = changes.setdefault(m.group(1), list(getattr(base, m.group(1))))
                flat[int(m.group(2)) - 1] = v
            elif getattr(base, key) != v:
                changes[key] = v
        return dataclasses.replace(base, **{k: (tuple(v) if isinstance(v, list) else v) for k, v in changes.items()})

    def nuisance(self, log: TrialLog) -> dict[str, tuple[float, float]]:
        return {}  # every window starts from the measured state

    def window_labels(self, log: TrialLog) -> np.ndarray:
        """The prediction window (0, 1, ...) of each sample of ``log``: a window lasts at least
        ``window_s`` and starts again where no command jumps within the smoothing span (the kink
        of the motion at a jump would bias the smoothed initial state). A jump is a change of a
        command's slope by more than ``jump``: a step; not a chirp's smooth change (up to 0.25 Hz
        and amplitude 0.5 it changes its slope by under 0.013 a 0.1 s sample), so a window may
        start inside a chirp. Without ``window_s``, one window."""
        t, u = log.time, log.inputs
        labels = np.zeros(len(t), dtype=int)
        if not self.window_s:
            return labels
        kink = np.abs(np.diff(u, n=2, axis=0)) > self.jump
        change = np.concatenate([[False, False], np.any(kink, axis=1)]) | np.concatenate([[False], np.any(kink, axis=1), [False]])
        near = np.convolve(change.astype(float), np.ones(2 * self.smoothing + 1), mode="same") > 0
        start = 0
        for k in range(1, len(t)):
            if t[k] - t[start] >= self.window_s - 1e-9 and not near[k]:
                start = k
                labels[k] = labels[k - 1] + 1
            else:
                labels[k] = labels[k - 1]
        return labels

    def simulate(self, values, log, nuisance) -> dict[str, np.ndarray]:
        """Predictions over windows of ``window_s``: each window starts from the measured
        attitude, depth, body velocity and rates at its first sample (where the log lacks one,
        0) and the propeller speeds of the thrusters' first-order lag run over the logged
        commands from rest; a window's first sample is its initial state, not a prediction."""
        from scipy.integrate import ode
        from auv_cosim.vehicles.h100 import H100Model, dynamics
        from auv_cosim.vehicles.rotation import quaternion_from_euler

        model = H100Model(self._parameters(values))
        n = len(model.params.thruster_positions())
        t, u = log.time, log.inputs
        m = log.measured
        # the propeller speeds: s' = (c - s) / T with c held over each interval, exactly
        commands = np.clip(u[:, :n], -1.0, 1.0)
        speeds = np.zeros((len(t), n))
        for k in range(1, len(t)):
            decay = np.exp(-(t[k] - t[k - 1]) / model.params.ThrusterTimeConstant)
            speeds[k] = commands[k] + (speeds[k - 1] - commands[k]) * decay

        def measured(c, k):
            """The channel at sample k, smoothed: a quadratic fitted over +-1 s around it (the
            window's initial state; its noise would otherwise bias the fit, as errors in the
            regressors do)."""
            if c not in m:
                return 0.0
            lo, hi = max(0, k - self.smoothing), min(len(t), k + self.smoothing + 1)
            y = m[c][lo:hi]
            if self.channel(c).angle:
                y = np.unwrap(y)
            if hi - lo < 5:
                return float(m[c][k])
            coef = np.polyfit(t[lo:hi] - t[k], y, 2)
            return float(coef[-1])

        layout = model.output_layout
        wanted = [(c, layout[self._OUTPUT[c][0]][0] + self._OUTPUT[c][1]) for c in m]
        u_now = np.zeros(model.input_size)
        solver = ode(dynamics.state_derivative)  # the compiled derivative, no Python frame between
        solver.set_f_params(u_now, model.constants)
        solver.set_integrator("dopri5", rtol=1e-6, atol=1e-8, nsteps=100000)
        out = np.empty((len(t), len(wanted)))
        starts = self.window_labels(log)
        for k in range(len(t)):
            if k == 0 or starts[k] != starts[k - 1]:
                q0 = quaternion_from_euler(measured("roll", k), measured("pitch", k), measured("heading", k))
                x = model.initial_state(Pos0=(measured("north", k), measured("east", k), measured("depth", k)), Quater0=q0,
                                        LocalVel0=(measured("surge", k), measured("sway", k), measured("heave", k)),
                                        Omega0=(measured("p", k), measured("q", k), measured("r", k)),
                                        PropellerSpeed0=speeds[k])
            else:  # row k holds the commands applied over [t[k-1], t[k]] (log.py)
                u_now[:] = u[k]
                solver._integrator.first_step = t[k] - t[k - 1]
                solver.set_initial_value(x, t[k - 1])
                x = solver.integrate(t[k])
                if not solver.successful() or not np.all(np.isfinite(x)):
                    raise RuntimeError(f"the H100 simulation failed at t = {t[k]:g} s")
            y = model.output_vector(x, u[k], t[k])
            out[k] = [y[j] for _, j in wanted]
        return {c: out[:, i] for i, (c, _) in enumerate(wanted)}

    def simulate_windows(self, problem, values: dict[str, float], x0: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The multiple-shooting prediction (auv_cosim.identification.shooting.Shooting.simulate):
        (each measured channel's prediction over the log, the windows' end-state coordinates
        (windows - 1, 10) at the next window's first sample), each window flown from its start
        in ``x0`` (depth, roll, pitch, heading, body velocity, body rates)."""
        from auv_cosim.identification.shooting import ATOL, RTOL, STATE
        from auv_cosim.vehicles.h100 import H100Model
        from auv_cosim.vehicles.rotation import quaternion_from_euler
        from auv_cosim.vehicles.simulator import VehicleSimulator

        model = H100Model(self._parameters(values))
        n = model.n
        t, u = problem.t, problem.u
        commands = np.clip(u[:, :n], -1.0, 1.0)
        speeds = np.zeros((len(t), n))
        for k in range(1, len(t)):     # the propellers' lag s' = (c - s) / T, c held: exact
            decay = math.exp(-(t[k] - t[k - 1]) / model.params.ThrusterTimeConstant)
            speeds[k] = commands[k] + (speeds[k - 1] - commands[k]) * decay
        layout = model.output_layout
        index = {c: layout[self._OUTPUT[c][0]][0] + self._OUTPUT[c][1] for c in problem.channels}
        cols = [index[c] for c in problem.channels]
        coord = [layout[self._OUTPUT[c][0]][0] + self._OUTPUT[c][1] for c in STATE]
        pos = layout["Pos"][0]
        out = np.empty((len(t), len(problem.channels)))
        ends = np.empty((problem.windows - 1, 10))
        north, east = (float(problem.log.measured[c][0]) if c in problem.log.measured else 0.0 for c in ("north", "east"))
        sim = None
        for w, (a, b) in enumerate(zip(problem.starts, problem.ends)):
            s = x0[w]
            x = model.initial_state(Pos0=(north, east, s[0]), Quater0=quaternion_from_euler(s[1], s[2], s[3]),
                                    LocalVel0=tuple(s[4:7]), Omega0=tuple(s[7:10]),
                                    PropellerSpeed0=np.clip(speeds[a], -1.0, 1.0))
            if sim is None:
                sim = VehicleSimulator(model, x, rtol=RTOL, atol=ATOL)
            else:
                sim.set_state(x)
            out[a] = model.output_vector(x, u[a], t[a])[cols]
            last = b if w == problem.windows - 1 else b - 1
            for k in range(a + 1, b + 1):
                x = sim.advance(t[k - 1], t[k], u[k])   # row k: the commands over [t[k-1], t[k]]
                if not np.all(np.isfinite(x)):
                    raise RuntimeError(f"the H100 simulation failed at t = {t[k]:g} s")
                y = model.output_vector(x, u[k], t[k])
                if k <= last:
                    out[k] = y[cols]
                if k == b and w < problem.windows - 1:
                    ends[w] = y[coord]
                    north, east = float(y[pos]), float(y[pos + 1])
        return {c: out[:, i] for i, c in enumerate(problem.channels)}, ends

    def write_vehicle_file(self, values, path, vehicle_file=None, note="") -> Path:
        """A complete vehicle YAML (docs/physics/h100.md#fmu-interface), body and thrusters inline, the fitted values in:
        ready for the FMU build (tools/build_fmus.py) or for load_vehicle."""
        import yaml

        p = self._parameters(values)
        thruster_fields = ("MaxThrustForward", "MaxThrustReverse", "ThrusterTimeConstant", "ThrusterEfficiency")
        body = {}
        for f in dataclasses.fields(p):
            v = getattr(p, f.name)
            if f.name in thruster_fields or f.name in ("ThrusterPos", "ThrusterDir") or v is None:
                continue
            shape = f.metadata.get("shape")
            if shape and len(shape) == 2:
                v = np.reshape(np.asarray(v, dtype=float), shape).tolist()   # a matrix as its rows
            body[f.name] = _plain(v)
        thrusters = {k: float(getattr(p, k)) for k in thruster_fields}
        thrusters["thrusters"] = [{"name": n, "position": [float(x) for x in pos], "direction": [float(x) for x in d]}
                                  for n, pos, d in zip(self.vehicle.thruster_names, np.reshape(p.ThrusterPos, (-1, 3)),
                                                       np.reshape(p.ThrusterDir, (-1, 3)))]
        doc = {"name": f"{self.vehicle.name}_fitted",
               "description": f"{self.vehicle.name} with parameters fitted by auv-cosim identify"
                              + (f" ({note})" if note else ""),
               "body": body, "thrusters": thrusters}
        path.write_text(f"# {doc['description']}\n# from {self.vehicle.source}\n"
                        + yaml.safe_dump(doc, sort_keys=False, width=120), encoding="utf-8")
        return path


def _plain(v):
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if isinstance(v, (np.floating, float, int)):
        return float(v)
    return v
