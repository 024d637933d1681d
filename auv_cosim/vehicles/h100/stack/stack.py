"""The H100's control stack at the control period: navigation -> guidance -> controller ->
thrust allocation -> thruster commands (the plain Python behind the ``H100Control`` FMU).

Timing as the AUV's control stack: ``step(measurements, dt)`` advances everything by ``dt`` with
the measurements of the step's start and returns the commands for the next vehicle step;
``initialize`` evaluates the first commands without advancing any integrator.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import List

import numpy as np

from .allocation import PseudoInverseAllocator, QpAllocator
from ....stacks.declare import parameter
from .belief import VehicleBelief
from .control import ControllerConfig, make_controller
from .guidance import Commands, Guidance, GuidanceConfig, Reference
from .navigation import Estimate, Measurements, Navigation, NavigationConfig

ALLOCATORS = ("qp", "pinv")


@dataclass
class StackConfig:
    """The thrust allocator and how the controllers' belief of the vehicle differs from the
    vehicle file (model error for robustness runs); the field names are the FMU parameter names."""
    Allocator: str = parameter("qp", None, "Thrust allocation: 'qp' (constrained, with slack) or 'pinv' "
                                           "(clipped pseudo-inverse)")
    EfficiencyBelief: float = parameter(1.0, "1", "The controller's belief eta_hat of the thruster efficiency")
    DampingScale: float = parameter(1.0, "1", "Believed damping (linear and quadratic) as a multiple of the "
                                              "vehicle file's")
    AddedMassScale: float = parameter(1.0, "1", "Believed added mass as a multiple of the vehicle file's")

    def validate(self) -> None:
        if self.Allocator not in ALLOCATORS:
            raise ValueError(f"Allocator must be one of {', '.join(ALLOCATORS)}; got {self.Allocator!r}")
        for name in ("EfficiencyBelief", "DampingScale", "AddedMassScale"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0.0):
                raise ValueError(f"{name} must be finite and > 0, got {value!r}")

    def belief(self, params) -> VehicleBelief:
        """The controllers' model: the vehicle file's parameters ``params`` (H100Parameters),
        damping and added mass scaled, and the believed thruster efficiency."""
        if self.DampingScale != 1.0 or self.AddedMassScale != 1.0:
            params = params.replace(
                LinearDamping=(np.asarray(params.LinearDamping) * self.DampingScale).tolist(),
                QuadraticDamping=(np.asarray(params.QuadraticDamping) * self.DampingScale).tolist(),
                AddedMass=(np.asarray(params.AddedMass) * self.AddedMassScale).tolist())
        return VehicleBelief(params, efficiency_belief=self.EfficiencyBelief)


@dataclass
class StackOutputs:
    commands: List[float]
    reference: Reference
    estimate: Estimate
    wrench: List[float]                 # desired body wrench
    achieved: List[float]               # B F of the allocation
    unmet_norm: float
    saturated_count: int
    position_error: List[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])   # ref - estimate, NED
    heading_error: float = 0.0


class H100ControlStack:
    def __init__(self, belief: VehicleBelief, guidance: GuidanceConfig, controller: ControllerConfig,
                 navigation: NavigationConfig = None, allocator: str = "qp"):
        if allocator not in ALLOCATORS:
            raise ValueError(f"Allocator must be one of {', '.join(ALLOCATORS)}; got {allocator!r}")
        self.belief = belief
        self.navigation = Navigation(navigation or NavigationConfig())
        self.guidance = Guidance(guidance)
        self.controller = make_controller(controller, belief)
        allocator_class = QpAllocator if allocator == "qp" else PseudoInverseAllocator
        p = belief.params
        self.allocator = allocator_class(belief.configuration, p.MaxThrustForward, p.MaxThrustReverse,
                                         efficiency_belief=belief.efficiency_belief)

    def initialize(self, m: Measurements, commands: Commands) -> StackOutputs:
        est = self.navigation.initialize(m)
        ref = self.guidance.initialize(est.pos, est.euler[2], commands)
        return self._outputs(est, ref, 0.0)

    def step(self, m: Measurements, commands: Commands, dt: float) -> StackOutputs:
        est = self.navigation.update(m, dt)
        ref = self.guidance.step(commands, dt)
        return self._outputs(est, ref, dt)

    def _outputs(self, est: Estimate, ref: Reference, dt: float) -> StackOutputs:
        tau = self.controller.wrench_array(est, ref, dt)
        allocation = self.allocator.command(tau)
        # the reference is built afresh each step, the estimate's position is updated in place
        return StackOutputs(
            commands=allocation.commands, reference=ref,
            estimate=Estimate(list(est.pos), est.euler, est.nu),
            wrench=tau.tolist(), achieved=allocation.achieved,
            unmet_norm=allocation.unmet_norm, saturated_count=allocation.saturated_count,
            position_error=[ref.pos[0] - est.pos[0], ref.pos[1] - est.pos[1], ref.pos[2] - est.pos[2]],
            heading_error=math.remainder(ref.heading - est.euler[2], 2.0 * math.pi))

    def get_state(self) -> dict:
        return {"navigation": self.navigation.get_state(), "guidance": self.guidance.get_state(),
                "controller": self.controller.get_state(),
                "allocator": self.allocator.get_state()}

    def set_state(self, state: dict) -> None:
        self.navigation.set_state(state["navigation"])
        self.guidance.set_state(state["guidance"])
        self.controller.set_state(state["controller"])
        self.allocator.set_state(state["allocator"])
