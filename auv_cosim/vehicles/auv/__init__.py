"""The survey AUV of seeds 000 and 001 (FhSim's `Auv`): one implementation of
`auv_cosim.vehicles.protocol.Vehicle`.

* `parameters.py`: `AuvParameters`, every parameter of seed 001 with default and unit;
* `hull.py`, `foil.py`, `forces.py`: mass properties, fin coefficients, one pure function per
  force with its Jacobian;
* `dynamics.py`: the state, input and output tables, the constant table, the compiled
  derivative, Jacobians and outputs;
* `authority.py`: the start-up dive-authority check;
* `model.py`: `AuvModel`, the object the simulator, the linearisation and the FMU take;
* `slave.py`: the FMU slave (Auv.fmu);
* `stack/`: its instruments and control stack (AuvSensors.fmu, AuvControl.fmu), which import
  none of the physics;
* `host/`: what the host adds to a run (figures, analyses, plots, the identification adapter);
* `unit.py`: the unit's declaration (its FMUs, figures, analyses; `auv_cosim.units`).

The names below are imported on first use (PEP 562): importing the stack, or the unit's
declaration, imports no physics.
"""
from .. import lazy_door

#: public name -> the module that defines it
_WHERE = {
    **dict.fromkeys(("authority_check_cruise_speed", "dive_authority_warning"), ".authority"),
    **dict.fromkeys(("INPUTS", "OUTPUTS", "STATE"), ".dynamics"),
    **dict.fromkeys(("HullProperties", "hull_properties_of", "submerged_fraction"), ".hull"),
    **dict.fromkeys(("AuvModel", "initial_state", "inputs"), ".model"),
    **dict.fromkeys(("AuvParameters", "AuvWakeParameters"), ".parameters"),
}

__all__ = list(_WHERE)
__getattr__, __dir__ = lazy_door(__name__, _WHERE)
