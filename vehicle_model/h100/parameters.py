"""The H100's parameters (SPEC 7.3), validated with pydantic, SI units throughout.

Field names are the FMU's parameter names (SPEC 7.6), so that the vehicle files, the FMU and the
SPEC share one vocabulary. Matrices are tuples of rows; a matrix field also accepts the list of
its diagonal (the default vehicle's matrices are diagonal). Every check raises an error that
names the field and, for a matrix, the element (`Inertia[1,2]`, 1-based as the FMU's scalars).

Checks: every number finite; Mass, Volume, Rho, Gravity, Height, the time constants positive;
the inertia tensor symmetric positive definite; the added mass symmetric and M_RB + M_A positive
definite; at least one thruster, as many directions as positions, no zero-length direction;
the thrust limits and the efficiency not negative.
"""
from __future__ import annotations

import math
from typing import Optional, Tuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .forces import rigid_body_mass_matrix

Vector3 = Tuple[float, float, float]
Matrix3 = Tuple[Vector3, Vector3, Vector3]
Row6 = Tuple[float, float, float, float, float, float]
Matrix6 = Tuple[Row6, Row6, Row6, Row6, Row6, Row6]
Tensor6 = Tuple[Matrix6, Matrix6, Matrix6, Matrix6, Matrix6, Matrix6]

#: The six degrees of freedom, in the order of nu.
DOF_NAMES = ("surge", "sway", "heave", "roll", "pitch", "yaw")


def _field(default, unit, description, **kwargs):
    return Field(default, description=description, json_schema_extra={"unit": unit}, **kwargs)


def _diagonal_shorthand(value, size):
    """A list of `size` numbers is the diagonal of a size x size matrix."""
    if isinstance(value, (list, tuple)) and len(value) == size and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return tuple(tuple(float(value[i]) if i == j else 0.0 for j in range(size))
                     for i in range(size))
    return value


def _zeros(size):
    return tuple(tuple(0.0 for _ in range(size)) for _ in range(size))


class H100Parameters(BaseModel):
    """Every parameter of the H100 of SPEC 7.3; the defaults are the BlueROV2 Heavy's (von Benzon
    et al. 2022, Table A1) with eight Blue Robotics T200 thrusters (datasheet, 16 V).

    There is no default thruster layout here: the layout comes from a thrusters file
    (`vehicles/`), so a vehicle without one is refused rather than silently thrust-less.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    Mass: float = _field(13.5, "kg", "Mass of the vehicle (dry mass plus the water it carries)", gt=0)
    Volume: float = _field(0.0134, "m3", "Displaced volume when fully submerged", gt=0)
    Rho: float = _field(1000.0, "kg/m3", "Density of the water", gt=0)
    Gravity: float = _field(9.82, "m/s2", "Acceleration of gravity", gt=0)
    CenterOfGravity: Vector3 = _field((0.0, 0.0, 0.0), "m", "Centre of gravity r_g from the body origin O, body frame")
    CenterOfBuoyancy: Vector3 = _field((0.0, 0.0, -0.01), "m", "Centre of buoyancy r_b from the body origin O, body frame")
    Inertia: Matrix3 = _field(((0.26, 0.0, 0.0), (0.0, 0.23, 0.0), (0.0, 0.0, 0.37)), "kg.m2",
                              "Inertia tensor about the centre of gravity (off-diagonal entries: minus the products of inertia)")
    AddedMass: Matrix6 = _field(
        _diagonal_shorthand((6.36, 7.12, 18.68, 0.189, 0.135, 0.222), 6), "",
        "Added mass M_A, symmetric, positive convention (kg, kg.m, kg.m2 by block)")
    LinearDamping: Matrix6 = _field(
        _diagonal_shorthand((13.7, 0.0, 33.0, 0.0, 0.8, 0.0), 6), "",
        "Linear damping L (N.s/m, N.s, N.m.s by block), damping wrench -L nu_r")
    QuadraticDamping: Matrix6 = _field(
        _diagonal_shorthand((141.0, 217.0, 190.0, 1.19, 0.47, 1.5), 6), "",
        "Quadratic damping Qa_ijj: the damping wrench's i-th component has -Qa_ijj |nu_r,j| nu_r,j")
    QuadraticDampingTensor: Optional[Tensor6] = Field(
        None, description="The full |nu|-quadratic tensor Qa_ijk (replaces QuadraticDamping when given)")
    SignedQuadraticDampingTensor: Optional[Tensor6] = Field(
        None, description="The signed quadratic tensor Q_ijk of seed 002 (zero when not given)")
    Height: float = _field(0.254, "m", "Height of the hull, over which the submerged fraction goes from 0 to 1", gt=0)
    ThrusterPos: Tuple[Vector3, ...] = _field((), "m", "Position of each thruster from O, body frame")
    ThrusterDir: Tuple[Vector3, ...] = _field((), "1", "Thrust direction of each thruster, body frame (normalised)")
    MaxThrustForward: float = _field(51.5, "N", "Thrust of one thruster at full forward speed", ge=0)
    MaxThrustReverse: float = _field(40.2, "N", "Thrust of one thruster at full reverse speed (a positive number)", ge=0)
    ThrusterTimeConstant: float = _field(0.1, "s", "Time constant of the propeller speed's lag behind its command", gt=0)
    ThrusterEfficiency: float = _field(1.0, "1", "Thrust efficiency eta_t (1: the datasheet's thrust)", ge=0)
    QuaternionConvergenceTime: float = _field(1.0, "s", "Time constant that drives the quaternion norm to one", gt=0)

    # --- shapes and shorthands ---------------------------------------------------------------
    @field_validator("Inertia", mode="before")
    @classmethod
    def _inertia_diagonal(cls, value):
        return _diagonal_shorthand(value, 3)

    @field_validator("AddedMass", "LinearDamping", "QuadraticDamping", mode="before")
    @classmethod
    def _matrix6_diagonal(cls, value):
        return _diagonal_shorthand(value, 6)

    # --- physics checks ------------------------------------------------------------------------
    @model_validator(mode="after")
    def _check(self):
        _require_symmetric("Inertia", self.Inertia)
        if not _positive_definite(self.Inertia):
            raise ValueError(f"Inertia = {self.Inertia} is not positive definite: not a rigid body's "
                             "inertia tensor")
        _require_symmetric("AddedMass", self.AddedMass)
        if not _positive_definite(self.mass_matrix()):
            raise ValueError("AddedMass: the mass matrix M_RB + M_A is not positive definite "
                             f"(eigenvalues {np.round(np.linalg.eigvalsh(self.mass_matrix()), 6).tolist()})")
        if self.QuadraticDampingTensor is not None and np.any(np.asarray(self.QuadraticDamping) != 0.0):
            raise ValueError("QuadraticDamping and QuadraticDampingTensor are both given: the tensor "
                             "replaces the matrix, give one of them")
        n = len(self.ThrusterPos)
        if n == 0:
            raise ValueError("ThrusterPos: the vehicle has no thruster (give a thrusters file)")
        if len(self.ThrusterDir) != n:
            raise ValueError(f"ThrusterDir has {len(self.ThrusterDir)} directions for {n} thrusters "
                             "in ThrusterPos")
        for i, d in enumerate(self.ThrusterDir):
            if math.hypot(*d) < 1e-9:
                raise ValueError(f"ThrusterDir[{i + 1},1..3] = {d} has zero length: thruster {i + 1} "
                                 "pushes nowhere")
        return self

    # --- derived quantities ------------------------------------------------------------------
    @property
    def thruster_count(self) -> int:
        return len(self.ThrusterPos)

    def mass_matrix(self) -> np.ndarray:
        """M = M_RB + M_A, 6 x 6."""
        return rigid_body_mass_matrix(self.Mass, self.CenterOfGravity, self.Inertia) + np.asarray(self.AddedMass)

    def quadratic_abs_tensor(self) -> np.ndarray:
        """Qa_ijk, 6 x 6 x 6: the given tensor, or QuadraticDamping on its k = j terms."""
        if self.QuadraticDampingTensor is not None:
            return np.asarray(self.QuadraticDampingTensor, dtype=float)
        tensor = np.zeros((6, 6, 6))
        q = np.asarray(self.QuadraticDamping, dtype=float)
        for j in range(6):
            tensor[:, j, j] = q[:, j]
        return tensor

    def quadratic_signed_tensor(self) -> np.ndarray:
        """Q_ijk, 6 x 6 x 6 (zero unless given)."""
        if self.SignedQuadraticDampingTensor is None:
            return np.zeros((6, 6, 6))
        return np.asarray(self.SignedQuadraticDampingTensor, dtype=float)

    def unit_thruster_directions(self) -> np.ndarray:
        d = np.asarray(self.ThrusterDir, dtype=float)
        return d / np.linalg.norm(d, axis=1, keepdims=True)

    def replace(self, **changes) -> "H100Parameters":
        """A copy with some fields changed, validated again."""
        data = self.model_dump()
        data.update(changes)
        return H100Parameters(**data)

    @classmethod
    def field_unit(cls, name: str) -> str:
        extra = cls.model_fields[name].json_schema_extra or {}
        return extra.get("unit", "")

    @classmethod
    def field_description(cls, name: str) -> str:
        return cls.model_fields[name].description or ""


def _require_symmetric(name, matrix):
    m = np.asarray(matrix, dtype=float)
    size = m.shape[0]
    for i in range(size):
        for j in range(i + 1, size):
            if abs(m[i, j] - m[j, i]) > 1e-9 * max(1.0, abs(m[i, j]), abs(m[j, i])):
                raise ValueError(f"{name} is not symmetric: {name}[{i + 1},{j + 1}] = {m[i, j]!r} but "
                                 f"{name}[{j + 1},{i + 1}] = {m[j, i]!r}")


def _positive_definite(matrix) -> bool:
    m = np.asarray(matrix, dtype=float)
    try:
        np.linalg.cholesky(0.5 * (m + m.T))
    except np.linalg.LinAlgError:
        return False
    return True
