"""The momentum a vehicle's wake carries (docs/physics/environment.md#wake-field): rho U Int(u . e)
dA over planes across the wake of an AUV in steady cruise, against T - F_D.

A library AUV (casting its wake) flies 150 s at the power given from the survey speed until it
has settled; its published row (WakeSource) is then integrated over planes normal to e at the
distances given behind its stern (auv_cosim.vehicles.wake.plane_momentum), the hull wake and the jet
each on its own (-F_D and +T) and both, against (T - F_D) (1 - e^-12.5). In the default trim
(0.314 kg light) the vehicle climbs slowly and T - F_D is -0.043 N; at neutral trim
(--neutral, AverageDensity = Rho) the far field carries no momentum: T - F_D is zero to
rounding, seed 001's momentumless wake.

    .venv/bin/python tools/wake_momentum.py                 # 5, 10 and 20 m behind, default trim
    .venv/bin/python tools/wake_momentum.py --neutral --distances 5 10 20 40
    .venv/bin/python tools/wake_momentum.py --fmu fmus/Auv.fmu   # the row Auv.fmu publishes

With `--fmu` the row is the WakeSource[1..15] an instance of that FMU publishes after the same
flight (fmpy alone, CastWake = true), printed against the library's row.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auv_cosim.vehicles import VehicleSimulator  # noqa: E402
from auv_cosim.vehicles.auv import AuvModel, AuvParameters, AuvWakeParameters, inputs  # noqa: E402
from auv_cosim.vehicles.wake import CUT_SHARE, DRAG, THRUST, plane_momentum  # noqa: E402


def steady_row(neutral: bool, power: float, seconds: float) -> np.ndarray:
    params = AuvParameters(AverageDensity=1025.0) if neutral else AuvParameters()
    model = AuvModel(params, wake=AuvWakeParameters(CastWake=True))
    sim = VehicleSimulator(model, model.cruise_state(1.438, depth=30.0))
    u = inputs(power)
    for k in range(int(round(seconds / 0.1))):
        t = 0.1 * k
        sim.advance(t, t + 0.1, u)     # t + 0.1, as an FMU's step from t ends (fmu_row)
    return model.wake_source(sim.state, sim.inputs)


def fmu_row(fmu: Path, neutral: bool, power: float, seconds: float) -> np.ndarray:
    """The WakeSource[1..15] of an instance of `fmu` (Auv.fmu) flown as `steady_row` flies the
    library's vehicle: fmpy alone, 0.1 s steps."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    instance = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu)),
                         modelIdentifier=md.coSimulation.modelIdentifier, instanceName="cruiser")
    instance.instantiate()
    try:
        instance.setupExperiment(startTime=0.0)
        instance.enterInitializationMode()
        instance.setReal([vr["Pos0[3]"], vr["LocalVel0[1]"], vr["ThrustPower"]]
                         + ([vr["AverageDensity"]] if neutral else []),
                         [30.0, 1.438, power] + ([1025.0] if neutral else []))
        instance.setBoolean([vr["CastWake"]], [True])
        instance.exitInitializationMode()
        for k in range(int(round(seconds / 0.1))):
            instance.doStep(currentCommunicationPoint=0.1 * k, communicationStepSize=0.1)
        return np.array(instance.getReal([vr[f"WakeSource[{j}]"] for j in range(1, 16)]))
    finally:
        instance.terminate()
        instance.freeInstance()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--distances", type=float, nargs="+", default=[5.0, 10.0, 20.0],
                        help="metres behind the stern (default 5 10 20)")
    parser.add_argument("--neutral", action="store_true", help="AverageDensity = Rho (level cruise)")
    parser.add_argument("--power", type=float, default=30.0, help="propulsion power, W (default 30)")
    parser.add_argument("--seconds", type=float, default=150.0, help="flight before the row is taken")
    parser.add_argument("--rings", type=int, default=10000, help="rings of the quadrature (default 10000)")
    parser.add_argument("--fmu", type=Path, help="take the row from this Auv.fmu's WakeSource (fmpy alone)")
    args = parser.parse_args(argv)
    if any(not 0.0 < d < 50.0 for d in args.distances):
        parser.error("--distances must lie between 0 and WakeLength (50 m)")
    if args.fmu is not None and not args.fmu.is_file():
        print(f"wake_momentum: {args.fmu}: no such FMU (build it: ./build.sh)", file=sys.stderr)
        return 2

    row = steady_row(args.neutral, args.power, args.seconds)
    if args.fmu is not None:
        library = row
        row = fmu_row(args.fmu, args.neutral, args.power, args.seconds)
        print(f"the row of {args.fmu.name}'s WakeSource after {args.seconds:g} s: largest difference from "
              f"the library's {np.abs(row - library).max():.3g}")
    thrust, drag = row[THRUST], row[DRAG]
    trim = "neutral trim (AverageDensity = Rho)" if args.neutral else "default trim (0.314 kg light)"
    print(f"steady cruise at {args.power:g} W, {trim}: U = {row[9]:.4f} m/s, T = {thrust:.6f} N, "
          f"F_D = {drag:.6f} N, T - F_D = {thrust - drag:.6g} N")
    print(f"expected through a plane: (T - F_D) (1 - e^-12.5) = {(thrust - drag) * CUT_SHARE:.6g} N "
          f"(hull wake {-drag * CUT_SHARE:.6f} N, jet {thrust * CUT_SHARE:.6f} N)")
    hull, jet = row.copy(), row.copy()
    hull[THRUST] = 0.0
    jet[DRAG] = 0.0
    print(f"{'behind the stern':>17} {'rho U Int(u.e) dA':>18} {'hull wake':>11} {'jet':>10} {'against T - F_D':>16}")
    for distance in args.distances:
        both = plane_momentum(row, distance, rings=args.rings)
        print(f"{distance:15.1f} m {both:17.7f} N {plane_momentum(hull, distance, rings=args.rings):10.7f} N "
              f"{plane_momentum(jet, distance, rings=args.rings):9.7f} N {both - (thrust - drag) * CUT_SHARE:+15.2e} N")
    return 0


if __name__ == "__main__":
    sys.exit(main())
