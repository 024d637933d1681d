"""Print the figures of an H100 vehicle file (docs/physics/h100.md#parameters): python -m auv_cosim.vehicles.h100 [FILE ...]

Weight and buoyancy, the sink rate with the thrusters off, the restoring stiffness, the
eigenvalues of the linearisation at rest, the configuration matrix (rank, singular values, what
it cannot push) and the steady surge speed of the largest horizontal surge force.

A file that cannot be used is an error naming the file and the field, no traceback; the exit
status is 2 when any file was refused (the others are still reported).
"""
import argparse
import math
import sys

import numpy as np

from .forces import steady_speed
from .model import H100Model
from .vehicle_file import DEFAULT_VEHICLE_FILE, VehicleFileError, load_vehicle


def report(path: str) -> str:
    vehicle = load_vehicle(path)
    model = H100Model(vehicle.params)
    p = model.params
    weight, buoyancy = model.weight_and_buoyancy()
    roll, pitch = model.restoring_stiffness()
    x, u = model.rest_state(), model.inputs()
    a, _ = model.linearize_reduced(x, u)
    velocity = np.sort(np.linalg.eigvals(model.state_jacobian(x, u)[7:13, 7:13]).real)
    eigenvalues = np.linalg.eigvals(a[:12, :12])
    layout = model.layout()
    sink = model.sink_rate()
    lines = [f"{vehicle.name} ({path}): {p.thruster_count} thrusters",
             f"  weight {weight:.2f} N, buoyancy {buoyancy:.2f} N (Rho {p.Rho:g}, g {model.env.Gravity:g})",
             f"  sink rate, thrusters off: {sink:.4f} m/s" if math.isfinite(sink) else
             "  sink rate, thrusters off: none (the heave damping does not grow to hold W - B)",
             f"  restoring stiffness: roll {roll:.3f}, pitch {pitch:.3f} N m/rad",
             "  velocity eigenvalues at rest: " + ", ".join(f"{v:.3f}" for v in velocity) + " 1/s",
             "  rigid-body eigenvalues at rest: " + ", ".join(
                 f"{e.real:.3f}{e.imag:+.3f}j" for e in sorted(eigenvalues, key=lambda e: (e.real, e.imag))),
             "  " + layout.describe().replace("\n", "\n  ")]
    forward, reverse = p.MaxThrustForward, p.MaxThrustReverse
    b = layout.matrix
    # the largest surge force: each thruster at full speed in the direction of its surge share
    forces = np.where(b[0] > 1e-9, forward, np.where(b[0] < -1e-9, -reverse, 0.0))
    wrench = b @ forces
    speed = steady_speed(wrench[0], p.matrix("LinearDamping")[0, 0], p.matrix("QuadraticDamping")[0, 0])
    lines.append(f"  largest surge force {wrench[0]:.1f} N (pitch moment {wrench[4]:.1f} N m): "
                 + (f"{speed:.3f} m/s with the attitude held" if math.isfinite(speed) else
                    "no steady speed (the surge damping does not grow to hold it)"))
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m auv_cosim.vehicles.h100",
        description="Print the figures of H100 vehicle files (docs/physics/h100.md#parameters): weight and buoyancy, sink rate, "
                    "restoring stiffness, eigenvalues at rest, what the thruster layout can push, the "
                    "steady surge speed. Exit status 2 when a file is refused.")
    parser.add_argument("files", metavar="FILE", nargs="*",
                        help=f"vehicle files (default: {DEFAULT_VEHICLE_FILE})")
    args = parser.parse_args(argv)
    refused = 0
    for path in args.files or [DEFAULT_VEHICLE_FILE]:
        try:
            print(report(path))
        except (VehicleFileError, ValueError, np.linalg.LinAlgError) as error:
            message = str(error) if str(error).startswith(path) else f"{path}: {error}"
            print(f"error: {message}", file=sys.stderr)
            refused += 1
    return 2 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
