"""`python -m auv_cosim.vehicles.auv`: a short scripted flight of the AUV's library alone.

Cruises at 30 W for 60 s, then turns with 0.1 rad of RudderYaw and dives with 0.05 rad of
RudderDive for 30 s, printing the outputs every 10 s.
"""
import sys
import time

from ..environment import Environment
from ..simulator import VehicleSimulator
from .model import AuvModel, initial_state, inputs
from .parameters import AuvParameters


def main(argv=None) -> int:
    model = AuvModel(AuvParameters(), Environment())
    sim = VehicleSimulator(model, initial_state(Pos0=(0.0, 0.0, 5.0), LocalVel0=(1.4, 0.0, 0.0)))
    step = 0.1
    started = time.perf_counter()
    print(f"{'t (s)':>6} {'north':>8} {'east':>8} {'depth':>7} {'speed':>6} {'heading':>8} "
          f"{'pitch':>7} {'battery':>8}")
    for k in range(900):
        t = k * step
        u = inputs(30.0) if t < 60.0 else inputs(30.0, rudder_yaw=0.1, rudder_dive=0.05)
        sim.advance(t, t + step, u)
        if (k + 1) % 100 == 0:
            out = model.outputs(sim.state, u)
            print(f"{t + step:6.1f} {out['Pos'][0]:8.2f} {out['Pos'][1]:8.2f} {out['Depth']:7.2f} "
                  f"{out['Speed']:6.3f} {out['Heading']:8.3f} {out['Pitch']:7.3f} "
                  f"{out['BatteryFraction']:8.5f}")
    wall = time.perf_counter() - started
    print(f"90 s simulated in {wall:.2f} s of wall time ({90.0 / wall:.0f} x real time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
