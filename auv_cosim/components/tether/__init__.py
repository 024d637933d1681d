"""The tether: a lumped-mass cable on MoorDyn, as a plain Python library (`Tether`) and an FMU
slave (`slave.py`, `Tether.fmu`), a unit of its own (`unit.py`) that names no vehicle.

    from auv_cosim.components.tether import Tether, TetherConfig
    tether = Tether(TetherConfig(Length=35.0), end_pos=(20.0, 0.0, 10.0))
    loads = tether.step(end_pos=(20.0, 0.0, 10.0), end_vel=(0.0, 0.0, 0.0), dt=0.1)
    loads.end_force          # N, NED: what the cable applies to what holds its end

Modules: `config` (the parameters, declared beside their fields), `frames` (NED <-> MoorDyn's
z-up frame, the rigid-body attachment point), `moordyn_file` (MoorDyn's input file written from
the parameters), `cable` (`Tether`: MoorDyn driven step by step, its state saved and restored,
its console output kept off the host's stdout), `slave` (the FMU slave); `host/` what the host
adds to a run with a tether (its tensions in the summary, tether.png), `unit.py` the unit's
declaration (`auv_cosim.units`). docs/tether.md has the equations.

The names below are imported on first use (PEP 562): reading the unit's declaration imports
none of the cable's code.
"""
from ...vehicles import lazy_door

#: public name -> the module that defines it
_WHERE = {"TetherConfig": ".config", "Tether": ".cable", "TetherLoads": ".cable"}

__all__ = list(_WHERE)
__getattr__, __dir__ = lazy_door(__name__, _WHERE)
