"""The vehicles' instruments and control stacks as plain Python, one package per vehicle with the
same shape (`auv/`, `h100/`: instruments, navigation, guidance, control, allocation, and the two
thin FMU slaves `instruments_slave.py` and `control_slave.py`), and what both share (`shared/`:
angles, filters, PID, noise, the compiled kernels' laws, the parameter declarations, the
waypoint format). No FMI in the libraries; their parameters are declared with unit and
description beside the field they configure (`shared.declare.parameter`).

Conventions (NED, SI): heading 0 = north, pi/2 = east, wrapped to (-pi, pi]; pitch positive nose
up; depth positive down.
"""
