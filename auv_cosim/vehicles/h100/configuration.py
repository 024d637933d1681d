"""What a thruster layout can push: its configuration matrix B, rank, singular values, and the
wrench directions it cannot produce (docs/physics/h100.md#configuration-matrix; seed 004: "mark the
reachable subset explicitly").

`B = [d_i; r_i x d_i]` (6 x n) maps the thrust of each thruster (N) to the body wrench. Its rank
is the number of independent wrench directions the layout reaches: 6 is fully actuated. When
the rank is lower, the wrenches B never produces are the left null space of B (the directions
`w` with `w^T B = 0`): whatever the thrusts, the wrench has no component along them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import numpy as np

from .forces import configuration_matrix
from .parameters import DOF_NAMES

#: Singular values below this fraction of the largest count as zero.
RANK_TOLERANCE = 1e-9


@dataclass(frozen=True)
class LayoutReport:
    """The actuation of a layout: B, its rank and singular values, the unreachable directions."""

    matrix: np.ndarray                 # B, 6 x n
    rank: int
    singular_values: Tuple[float, ...]  # largest first, min(6, n) of them
    unreachable: np.ndarray            # (6 - rank) x 6, orthonormal rows: w with w^T B = 0

    @property
    def fully_actuated(self) -> bool:
        return self.rank == 6

    def describe(self) -> str:
        """A few lines for people: rank, singular values, each unreachable direction in words."""
        lines = [f"configuration matrix 6 x {self.matrix.shape[1]}, rank {self.rank}"
                 + (" (fully actuated)" if self.fully_actuated else " (under-actuated)"),
                 "singular values " + ", ".join(f"{s:.3g}" for s in self.singular_values)]
        for row in self.unreachable:
            lines.append("cannot produce: " + describe_direction(row))
        return "\n".join(lines)


def analyse_layout(positions, directions) -> LayoutReport:
    """The `LayoutReport` of thrusters at `positions` pushing along `directions` (body frame)."""
    return analyse_matrix(configuration_matrix(positions, directions))


def analyse_matrix(b) -> LayoutReport:
    """The `LayoutReport` of a 6 x n configuration matrix (what a thrust allocation is given)."""
    b = np.asarray(b, dtype=float)
    u, s, _ = np.linalg.svd(b)
    rank = int(np.sum(s > RANK_TOLERANCE * s[0])) if s.size else 0
    unreachable = u[:, rank:].T.copy()
    for row in unreachable:      # a sign convention, for stable reports: largest entry positive
        if row[np.argmax(np.abs(row))] < 0:
            row *= -1.0
    return LayoutReport(matrix=b, rank=rank, singular_values=tuple(float(v) for v in s),
                        unreachable=unreachable)


def describe_direction(direction, threshold: float = 1e-6) -> str:
    """A wrench direction as a weighted sum of the named degrees of freedom, e.g.
    '0.085 surge - 1 pitch' (scaled so that its largest weight is 1)."""
    direction = np.asarray(direction, dtype=float)
    scaled = direction / np.max(np.abs(direction))
    terms = []
    for weight, name in zip(scaled, DOF_NAMES):
        if abs(weight) < threshold:
            continue
        sign = "-" if weight < 0 else "+"
        terms.append(f"{sign} {abs(weight):.3g} {name}")
    text = " ".join(terms)
    return text[2:] if text.startswith("+ ") else text
