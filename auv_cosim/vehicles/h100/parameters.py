"""The H100's parameters (docs/physics/h100.md#parameters, #fmu-interface), declared in the
project's one style
(`auv_cosim.vehicles.parameters.parameter`: unit and description beside each field) and validated on
construction, SI units throughout.

Field names are the FMU's parameter names, so that the vehicle files, the FMU and the docs share
one vocabulary. A matrix is a flat tuple of its rows (`shape` in its declaration): `Inertia` is
(I11, I12, I13, I21, ...), the FMU's `Inertia[i,j]`; `ThrusterPos` / `ThrusterDir` have one row
of three per thruster, their number fixed by the vehicle file (`vehicles/`). Every check raises a
`ValueError` that names the parameter and, for a matrix, the element (`Inertia[1,2]`).

Gravity is the environment's (`auv_cosim.vehicles.environment.Environment`; the H100's default
water, `DEFAULT_ENVIRONMENT`, has von Benzon's 9.82 m/s2).

Checks: every number finite; Mass, Volume, Rho, Height, the time constants positive;
the inertia tensor symmetric positive definite; the added mass symmetric and M_RB + M_A positive
definite; at least one thruster, as many directions as positions, no zero-length direction;
the thrust limits and the efficiency not negative.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

import numpy as np

from ..parameters import XYZ, ParameterSet, Vector3, parameter, require
from .forces import rigid_body_mass_matrix

#: The six degrees of freedom, in the order of nu.
DOF_NAMES = ("surge", "sway", "heave", "roll", "pitch", "yaw")


def _block_units(linear_linear, linear_angular, angular_linear, angular_angular):
    """The 36 units of a 6 x 6 matrix acting on nu = (v, omega), row by row."""
    return tuple(
        (linear_linear if j < 3 else linear_angular) if i < 3 else
        (angular_linear if j < 3 else angular_angular)
        for i in range(6) for j in range(6))


def _diagonal(values):
    size = len(values)
    return tuple(float(values[i]) if i == j else 0.0 for i in range(size) for j in range(size))


@dataclass(frozen=True)
class H100Parameters(ParameterSet):
    """Every parameter of the H100 (docs/physics/h100.md#parameters); the defaults are the BlueROV2
    Heavy's (von Benzon et al. 2022, Table A1) with the T200 thrusters' limits (datasheet, 16 V).

    There is no default thruster layout here: the layout comes from a thrusters file, so a
    vehicle without one is refused rather than silently thrust-less.
    """

    Mass: float = parameter(13.5, "kg", "Mass of the vehicle")
    Volume: float = parameter(0.0134, "m3", "Displaced volume when fully submerged")
    Rho: float = parameter(1000.0, "kg/m3", "Density of the water")
    CenterOfGravity: Vector3 = parameter((0.0, 0.0, 0.0), "m",
                                         "Centre of gravity r_g from the body origin O", labels=XYZ)
    CenterOfBuoyancy: Vector3 = parameter((0.0, 0.0, -0.01), "m",
                                          "Centre of buoyancy r_b from the body origin O", labels=XYZ)
    Inertia: Tuple[float, ...] = parameter(
        _diagonal((0.26, 0.23, 0.37)), "kg.m2",
        "Inertia tensor about the centre of gravity (off-diagonal: minus the products of inertia)",
        shape=(3, 3))
    AddedMass: Tuple[float, ...] = parameter(
        _diagonal((6.36, 7.12, 18.68, 0.189, 0.135, 0.222)), _block_units("kg", "kg.m", "kg.m", "kg.m2"),
        "Added mass M_A, symmetric, positive convention", shape=(6, 6))
    LinearDamping: Tuple[float, ...] = parameter(
        _diagonal((13.7, 0.0, 33.0, 0.0, 0.8, 0.0)), _block_units("N.s/m", "N.s", "N.s", "N.m.s"),
        "Linear damping L: the damping wrench is -L nu_r", shape=(6, 6))
    QuadraticDamping: Tuple[float, ...] = parameter(
        _diagonal((141.0, 217.0, 190.0, 1.19, 0.47, 1.5)),
        _block_units("N.s2/m2", "N.s2", "N.s2/m", "N.m.s2"),
        "Quadratic damping Qa_ijj: the damping wrench's i-th component has -Qa_ijj |nu_r,j| nu_r,j",
        shape=(6, 6))
    Height: float = parameter(0.254, "m", "Height of the hull, over which the submerged fraction goes from 0 to 1")
    ThrusterPos: Tuple[float, ...] = parameter((), "m", "Position of each thruster from O, body frame",
                                               shape=(None, 3))
    ThrusterDir: Tuple[float, ...] = parameter((), "1", "Thrust direction of each thruster, body frame (normalised)",
                                               shape=(None, 3))
    MaxThrustForward: float = parameter(51.5, "N", "Thrust of one thruster at full forward speed")
    MaxThrustReverse: float = parameter(40.2, "N", "Thrust of one thruster at full reverse speed (a positive number)")
    ThrusterTimeConstant: float = parameter(0.1, "s", "Time constant of the propeller speed's lag behind its command")
    ThrusterEfficiency: float = parameter(1.0, "1", "Thrust efficiency eta_t (1: the datasheet's thrust)")
    QuaternionConvergenceTime: float = parameter(1.0, "s", "Time constant that drives the quaternion norm to one")
    #: Library only (the FMU exposes L and Qa_ijj): the full |nu|-quadratic tensor Qa_ijk
    #: (216 numbers, i-major; replaces QuadraticDamping when given) and seed 002's signed Q_ijk.
    QuadraticDampingTensor: Optional[Tuple[float, ...]] = field(default=None)
    SignedQuadraticDampingTensor: Optional[Tuple[float, ...]] = field(default=None)

    def _validate(self):
        for name in ("Mass", "Volume", "Rho", "Height", "ThrusterTimeConstant",
                     "QuaternionConvergenceTime"):
            require(name, getattr(self, name), getattr(self, name) > 0, "must be positive")
        for name in ("MaxThrustForward", "MaxThrustReverse", "ThrusterEfficiency"):
            require(name, getattr(self, name), getattr(self, name) >= 0, "must not be negative")
        _require_symmetric("Inertia", self.inertia_matrix())
        require("Inertia", self.Inertia, _positive_definite(self.inertia_matrix()),
                "is not positive definite: not a rigid body's inertia tensor")
        _require_symmetric("AddedMass", np.reshape(self.AddedMass, (6, 6)))
        mass_matrix = self.mass_matrix()
        require("AddedMass", self.AddedMass, _positive_definite(mass_matrix),
                "makes the mass matrix M_RB + M_A not positive definite (eigenvalues "
                f"{np.round(np.linalg.eigvalsh(0.5 * (mass_matrix + mass_matrix.T)), 6).tolist()})")
        for name in ("QuadraticDampingTensor", "SignedQuadraticDampingTensor"):
            value = getattr(self, name)
            if value is not None:
                array = np.asarray(value, dtype=float).reshape(-1)
                require(name, "(...)", array.size == 216 and np.all(np.isfinite(array)),
                        "must be 216 finite numbers (6 x 6 x 6, i-major)")
                object.__setattr__(self, name, tuple(float(v) for v in array))
        if self.QuadraticDampingTensor is not None:
            require("QuadraticDamping", "(...)", not any(self.QuadraticDamping),
                    "is given with QuadraticDampingTensor, which replaces it: give one of them")
        n = len(self.ThrusterPos) // 3
        require("ThrusterPos", self.ThrusterPos, n >= 1, "holds no thruster (give a thrusters file)")
        require("ThrusterDir", self.ThrusterDir, len(self.ThrusterDir) == 3 * n,
                f"has {len(self.ThrusterDir) // 3} directions for {n} thrusters in ThrusterPos")
        for i in range(n):
            d = self.ThrusterDir[3 * i:3 * i + 3]
            require(f"ThrusterDir[{i + 1},1..3]", d, float(np.linalg.norm(d)) > 1e-9,
                    f"has zero length: thruster {i + 1} pushes nowhere")

    # --- derived quantities ------------------------------------------------------------------
    @property
    def thruster_count(self) -> int:
        return len(self.ThrusterPos) // 3

    def inertia_matrix(self) -> np.ndarray:
        return np.reshape(self.Inertia, (3, 3))

    def mass_matrix(self) -> np.ndarray:
        """M = M_RB + M_A, 6 x 6."""
        return (rigid_body_mass_matrix(self.Mass, np.asarray(self.CenterOfGravity), self.inertia_matrix())
                + np.reshape(self.AddedMass, (6, 6)))

    def matrix(self, name: str) -> np.ndarray:
        """A 6 x 6 matrix parameter (AddedMass, LinearDamping, QuadraticDamping) as an array."""
        return np.reshape(getattr(self, name), (6, 6))

    def quadratic_abs_tensor(self) -> np.ndarray:
        """Qa_ijk, 6 x 6 x 6: the given tensor, or QuadraticDamping on its k = j terms."""
        if self.QuadraticDampingTensor is not None:
            return np.reshape(self.QuadraticDampingTensor, (6, 6, 6))
        tensor = np.zeros((6, 6, 6))
        q = self.matrix("QuadraticDamping")
        for j in range(6):
            tensor[:, j, j] = q[:, j]
        return tensor

    def quadratic_signed_tensor(self) -> np.ndarray:
        """Q_ijk, 6 x 6 x 6 (zero unless given)."""
        if self.SignedQuadraticDampingTensor is None:
            return np.zeros((6, 6, 6))
        return np.reshape(self.SignedQuadraticDampingTensor, (6, 6, 6))

    def thruster_positions(self) -> np.ndarray:
        return np.reshape(self.ThrusterPos, (-1, 3))

    def unit_thruster_directions(self) -> np.ndarray:
        d = np.reshape(self.ThrusterDir, (-1, 3))
        return d / np.linalg.norm(d, axis=1, keepdims=True)


def _require_symmetric(name, m):
    size = m.shape[0]
    for i in range(size):
        for j in range(i + 1, size):
            require(f"{name}[{i + 1},{j + 1}]", float(m[i, j]),
                    abs(m[i, j] - m[j, i]) <= 1e-9 * max(1.0, abs(m[i, j]), abs(m[j, i])),
                    f"differs from {name}[{j + 1},{i + 1}] = {float(m[j, i])!r}: {name} must be symmetric")


def _positive_definite(matrix) -> bool:
    m = np.asarray(matrix, dtype=float)
    try:
        np.linalg.cholesky(0.5 * (m + m.T))
    except np.linalg.LinAlgError:
        return False
    return True
