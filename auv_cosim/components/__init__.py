"""Components that are not vehicles: units whose FMU couples to a vehicle by forces and positions.

`tether/`: a lumped-mass cable on MoorDyn (the ROV's umbilical, a mooring line), as a plain
Python library, its FMU slave and its unit declaration. A component names no vehicle.
"""
