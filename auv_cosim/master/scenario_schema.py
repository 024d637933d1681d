"""The scenario file's schema (pydantic v2): what each field of a scenario file may hold.

``ScenarioModel`` is one file (every file of a scenario is checked on its own, then the merged
scenario again: auv_cosim/master/scenario.py); the other models are its parts: an instance, a
signal's terms, a stop condition, a vehicle. ``extra='forbid'`` everywhere, so a misspelt field
is an error, not a silent default; times and sizes are numbers written as numbers (not `yes`,
not "0.5") and finite.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    field_validator,
    model_validator,
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Number = Union[StrictInt, StrictFloat]  # a signal value: NaN allowed (how the FMUs' NaN handling is tested)
# times and sizes: a number written as a number (not `yes`, not "0.5"), finite
Time = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Duration = Annotated[float, Field(strict=True, allow_inf_nan=False, gt=0)]
Scalar = Union[StrictBool, StrictInt, StrictFloat, StrictStr]
ParamValue = Union[Scalar, list[Scalar]]


class InstanceSpec(Strict):
    """One FMU instance: the FMU file and the start values of its parameters (or inputs)."""

    fmu: Optional[StrictStr] = None
    parameters: dict[str, ParamValue] = Field(default_factory=dict)
    description: StrictStr = ""


class StepArgs(Strict):
    """``before`` until ``time``, ``after`` from ``time`` on."""

    time: Time
    after: Number
    before: Number = 0.0


class RampArgs(Strict):
    """``before`` until ``time``, then linear: either ``slope`` (per second, optionally for
    ``duration`` seconds) or from ``before`` to ``after`` over ``duration`` seconds."""

    time: Time = 0.0
    before: Number = 0.0
    slope: Optional[Number] = None
    after: Optional[Number] = None
    duration: Optional[Duration] = None

    @model_validator(mode="after")
    def _one_law(self):
        if self.slope is None and (self.after is None or self.duration is None):
            raise ValueError("a ramp needs either 'slope' or both 'after' and 'duration'")
        if self.slope is not None and self.after is not None:
            raise ValueError("give either 'slope' or 'after' (with 'duration'), not both")
        return self


class SineArgs(Strict):
    """``amplitude * sin(2 pi (t - start) / period + phase)`` for ``start <= t < stop``, else 0."""

    amplitude: Number
    period: Duration
    phase: Number = 0.0
    start: Time = 0.0
    stop: Optional[Time] = None


class ChirpArgs(Strict):
    """A linear frequency sweep, ``amplitude * sin(2 pi (f0 tau + (f1 - f0) tau^2 / (2 T)))``
    with ``tau = t - start`` and ``T = stop - start``, for ``start <= t < stop``, else 0: the
    frequency goes from ``f0`` to ``f1`` (Hz), an excitation of every frequency in between
    (identification manoeuvres)."""

    amplitude: Number
    start: Number
    stop: Number
    f0: Annotated[float, Field(ge=0)]
    f1: Annotated[float, Field(ge=0)]

    @model_validator(mode="after")
    def _stop_after_start(self):
        if not self.stop > self.start:
            raise ValueError(f"a chirp's stop ({self.stop}) must come after its start ({self.start})")
        return self


class Term(Strict):
    """One term of a signal; exactly one of the five kinds."""

    constant: Optional[Union[StrictBool, StrictInt, StrictFloat]] = None
    step: Optional[StepArgs] = None
    ramp: Optional[RampArgs] = None
    sine: Optional[SineArgs] = None
    chirp: Optional[ChirpArgs] = None

    @model_validator(mode="after")
    def _exactly_one(self):
        kinds = [k for k in ("constant", "step", "ramp", "sine", "chirp") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a signal term needs exactly one of constant, step, ramp, sine, chirp"
                             + (f" (got {', '.join(kinds)})" if kinds else ""))
        return self


SignalSpec = Union[StrictBool, StrictInt, StrictFloat, Term, list[Union[StrictInt, StrictFloat, Term]]]


class StopCondition(Strict):
    """``condition`` like ``control.MissionFinished == true``; the run ends successfully
    ``after`` seconds after the condition first holds."""

    condition: StrictStr
    after: Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0)] = 0.0


class VehicleSpec(Strict):
    """One vehicle of a scenario with several (``vehicles: {NAME: ...}``): its stack (the files
    it includes, as a scenario includes them) and what this scenario changes in it, written
    with the stack's own instance names (``vehicle``, ``sensors``, ``control``). The vehicle's
    instances are named after it: the stack's ``vehicle`` is ``NAME`` itself, every other
    instance ``X`` is ``NAME_X`` (``leader``, ``leader_sensors``, ``leader_control``)."""

    include: Union[StrictStr, list[StrictStr]] = Field(default_factory=list)
    description: StrictStr = ""
    instances: dict[Ident, Optional[InstanceSpec]] = Field(default_factory=dict)
    connections: list[StrictStr] = Field(default_factory=list)
    disconnect: list[StrictStr] = Field(default_factory=list)
    signals: dict[StrictStr, SignalSpec] = Field(default_factory=dict)


#: an Integer parameter that seeds random noise, INSTANCE.VARIABLE
SeedTarget = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$")]


class ScenarioModel(Strict):
    """The scenario file schema (one file; after the merge the same model is re-applied)."""

    include: Union[StrictStr, list[StrictStr]] = Field(default_factory=list)
    name: Optional[Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]+$")]] = None
    description: StrictStr = ""
    start_time: Time = 0.0
    stop_time: Optional[Duration] = None
    step: Duration = 0.1
    output_interval: Optional[Duration] = None   # record every k-th step (a multiple of step)
    tolerance: Optional[Duration] = None
    algorithm: Literal["gauss-seidel", "jacobi"] = "gauss-seidel"
    order: Optional[list[Ident]] = None
    instances: dict[Ident, Optional[InstanceSpec]] = Field(default_factory=dict)
    connections: list[StrictStr] = Field(default_factory=list)
    disconnect: list[StrictStr] = Field(default_factory=list)
    signals: dict[StrictStr, SignalSpec] = Field(default_factory=dict)
    stop_when: Optional[Union[StrictStr, StopCondition, list[Union[StrictStr, StopCondition]]]] = None
    record: Union[Literal["all"], list[StrictStr]] = "all"
    plots: StrictBool = True
    analysis: dict[StrictStr, Any] = Field(default_factory=dict)  # name -> options (registry.analyses())
    # the Integer parameter that seeds the stack's random noise (a campaign's `seeds` vary it);
    # a list in a scenario of several vehicles: each vehicle's, in the order of the vehicles
    noise_seed: Optional[Union[SeedTarget, list[SeedTarget]]] = None
    # several vehicles, each with its stack (expanded into prefixed instances when loaded)
    vehicles: dict[Ident, Optional[VehicleSpec]] = Field(default_factory=dict)   # null: removed
    # 'A -> B' or 'A -> B[k]': A's WakeSource into row k (default: the first free one) of B's
    # WakeSources (docs/physics/environment.md#several-vehicles)
    wakes: list[StrictStr] = Field(default_factory=list)

    def noise_seeds(self) -> list[str]:
        """Every variable that seeds noise (``noise_seed`` as a list: none, one, or each
        vehicle's)."""
        seed = self.noise_seed
        return [] if seed is None else [seed] if isinstance(seed, str) else list(seed)

    @field_validator("analysis", mode="before")
    @classmethod
    def _analysis_forms(cls, v):
        # accept `analysis: [turning_circle]` and `analysis: {turning_circle: }` (null = defaults)
        if v is None:
            return {}
        if isinstance(v, str):
            v = [v]
        if isinstance(v, list):
            out = {}
            for item in v:
                if isinstance(item, str):
                    out[item] = {}
                elif isinstance(item, dict):
                    out.update({k: ({} if a is None else a) for k, a in item.items()})
                else:
                    raise ValueError("analysis entries are names or {name: options}")
            return out
        if isinstance(v, dict):
            return {k: ({} if a is None else a) for k, a in v.items()}
        return v
