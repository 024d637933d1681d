"""The drifter's control stack: a depth controller (control.py) and its FMU (control_slave.py)."""
