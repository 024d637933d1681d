"""What the vehicles' instruments and control stacks share, as plain Python: angle wraps
(`angles`), first-order lags (`filters`), the PID law (`pid`), seeded noise (`noise`), the laws
compiled into the kernels (`kernel_laws`), the parameter declarations (`declare.parameter`: unit
and description beside the field they configure), the waypoint format (`waypoints`), the
acoustic instruments against a bathymetry grid (`acoustic`: the grid from the instruments'
parameters, a DVL's four Janus beams, its altitude and bottom lock). No FMI here.

Each vehicle's own stack is the `stack/` package of its unit's folder
(`auv_cosim/vehicles/<name>/stack/`), with the same files for the same jobs. Every vehicle's
stack package holds (tests/stacks/test_layout.py holds every registered unit's to it):

    instruments.py        the instruments: truth in, readings out (noise, bias, lag, range)
    instruments_slave.py  the thin FMU slave of the instruments (<Vehicle>Sensors.fmu)
    guidance.py           the references from the mission (waypoints, holds, manoeuvres)
    control.py            the control laws, and the controllers' parameters
    control_kernel.py     the control step's compiled arithmetic (numba, plain Python without it)
    control_slave.py      the thin FMU slave of the control stack (<Vehicle>Control.fmu)
    warm_up.py            the calls that compile every kernel the FMUs ship compiled

and, where the vehicle has the job, each in a file of the same name in either package:

    navigation.py   the state estimate from the readings (H100: dead reckoning between fixes
                    and a filtered attitude; AUV: its instruments give the position fix, and
                    over a grid without bottom lock it drifts with the water track's dead reckoning)
    allocation.py   the wrench to the thrusters (H100: eight or six thrusters, a QP or the
                    pseudo-inverse; the AUV has one propeller and two rudders, each set by a loop)
    belief.py       the controllers' model of the vehicle (H100: model-based control)
    frames.py       reference frames and attitude helpers the stack's files share (H100)
    stack.py        navigation, guidance, control and allocation composed (H100; the AUV's
                    `control.ControlStack` is guidance and loops in one compiled step)
    instruments_kernel.py   the instruments' compiled step (AUV: its instruments run at the
                    control period in the survey's tight loop)
    closed_loop.py  vehicle, instruments and control in one plain-Python loop, no FMI (AUV)
    terrain.py      the acoustic instruments against a bathymetry grid beyond the shared DVL
                    beams of `acoustic`: the altimeter (AUV)

Conventions (NED, SI): heading 0 = north, pi/2 = east, wrapped to (-pi, pi]; pitch positive nose
up; depth positive down.
"""
