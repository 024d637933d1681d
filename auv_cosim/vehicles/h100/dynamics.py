"""The H100's state derivative, its analytic Jacobians and its outputs
(docs/physics/h100.md#state, #equations-of-motion, #fmu-interface).

State (13 + n): Pos (0:3, NED position of O, m), Quater (3:7, scalar first, body to NED),
LocalVel (7:10, velocity of O over ground, body frame, m/s), Omega (10:13, rad/s), and the
propeller speed of each of the n thrusters as a fraction of its maximum (13:13+n).
Inputs (n + 6): ThrusterCommand (0:n, fraction of full speed), ExternalForce (n:n+3, N, NED, at
O), ExternalMoment (n+3:n+6, N m, NED axes).

The equations (Fossen 2011 eqs. 3.44, 4.6, 6.43, 10.1; docs/physics/h100.md#equations-of-motion):
with the water velocity v_c
(current, the others' wakes and the waves, NED) at O, v_c^b = R^T v_c and
nu_r = (LocalVel - v_c^b, Omega),

    (M_RB + M_A) nu' = tau - c_RB(nu) - C_A(nu_r) nu_r - D(nu_r) nu_r - g(eta)
                       + M_A (R^T a_c - Omega x v_c^b, 0) + tau_FK,

a_c = CurrentDepthGradient z' + a_w the water's acceleration along the path (a_w the waves'),
tau_FK the waves' Froude-Krylov wrench (the wakes' acceleration is neglected:
docs/physics/environment.md#meeting-wakes), and in tau the seabed's contact while the frame
touches it (`frame_contact`, docs/physics/environment.md#seabed-contact); then the kinematics of
seed 003 and the propeller lag.
The H100 casts no wake (its thrusters' jets are out of scope) but meets the others': their rows
follow the inputs in a wake block (auv_cosim.vehicles.wake), held over each step.
R is built from q / |q| (the norm-restoring term keeps |q| near one, and a rotation matrix must
stay orthogonal whatever the integrator does to the norm in between).

The constants travel as one flat float vector (`pack_constants`): a fixed block, then the
thrusters, then the wave components; the compiled functions read the sizes from its head.
"""
import math

import numpy as np

from ...compiled.jit import jit
from ..rotation import (
    cross,
    euler_angles,
    quaternion_derivative,
    quaternion_derivative_jacobian,
    quaternion_rate_matrix,
    rotate,
    rotate_back,
    rotation_matrix,
    rotation_matrix_derivatives,
    skew,
)
from ..bathymetry import grid_depth_at, latitude_longitude, seabed_block
from ..contact import in_contact
from ..packed import unpack_arguments
from ..parameters import NED, XYZ
from ..protocol import ConstantTable, Signal, SignalTable
from ..waves import surface_elevation, wave_components, wave_kinematics
from ..vectors import add3, rotate3, rotate_back3, wrench_add
from ..wake import (HELD_VELOCITY, WakeParameters, SOURCE_LABELS, SOURCE_SIZE, SOURCE_UNITS, SOURCES_SIZE, WAKE_BLOCK,
                    describe_source_problem, held_wake_velocity, hold_wake, meets_wake,
                    wake_velocity_gradient)
from .forces import (
    added_mass_coriolis_jacobian,
    added_mass_coriolis_wrench,
    damping_jacobian,
    damping_wrench,
    external_wrench,
    frame_contact,
    frame_lowest_depth,
    froude_krylov_wrench,
    inertia_about_origin,
    moving_water_added_mass_wrench,
    quadratic_damping_terms,
    restoring_wrench,
    rigid_body_coriolis_jacobian,
    rigid_body_coriolis_wrench,
    submerged_fraction,
    thruster_force,
    thruster_force_slope,
    thruster_impulse_scaled,
    thruster_speed_after,
    thruster_speed_rate,
    thrusters_wrench,
)

# ---- the vectors (their orders are written here only; see auv_cosim.vehicles.protocol). The
# thrusters' parts come last, their size n fixed by the vehicle file.
BODY_STATE = (
    Signal("Pos", 3, "m", "Position of the body origin O, NED", NED),
    Signal("Quater", 4, "1", "Attitude quaternion body to NED, scalar first", ("q0", "q1", "q2", "q3")),
    Signal("LocalVel", 3, "m/s", "Velocity of O over ground in the body frame", XYZ),
    Signal("Omega", 3, "rad/s", "Angular velocity in the body frame", XYZ),
)
FIXED_OUTPUTS = (
    Signal("Pos", 3, "m", "Position of the body origin O, NED", NED),
    Signal("Vel", 3, "m/s", "Velocity of O over ground, NED", NED),
    Signal("LocalVel", 3, "m/s", "Velocity of O over ground in the body frame", XYZ),
    Signal("Omega", 3, "rad/s", "Angular velocity in the body frame", XYZ),
    Signal("Quater", 4, "1", "Attitude quaternion body to NED, scalar first", ("q0", "q1", "q2", "q3")),
    Signal("Euler", 3, "rad", ("Roll angle (ZYX convention)", "Pitch angle (ZYX convention), nose up positive",
                               "Yaw angle (ZYX convention)")),
    Signal("Heading", 1, "rad", "Yaw angle, the third element of Euler"),
    Signal("Depth", 1, "m", "Depth of O below the mean free surface, positive down"),
    Signal("Altitude", 1, "m", "Height of O above the sea floor (SeaDepth minus Depth)"),
    Signal("SpecificForce", 3, "m/s2", "What an accelerometer at O reads, body frame: "
                                       "LocalVel' + Omega x LocalVel - R^T (0, 0, Gravity)", XYZ),
    Signal("SurfaceElevation", 1, "m", "Elevation of the sea surface above its mean at the vehicle's "
                                       "north and east (0 without waves)"),
)


def state_table(n):
    return SignalTable(*BODY_STATE, Signal("PropellerSpeed", n, "1", "Propeller speed as a fraction of "
                                            "its maximum", tuple(f"thruster {i + 1}" for i in range(n))))


def input_table(n):
    return SignalTable(
        Signal("ThrusterCommand", n, "1", "Propeller speed set-point as a fraction of full speed, "
               "clamped to [-1, 1]", tuple(f"thruster {i + 1}" for i in range(n)), limits=(-1.0, 1.0)),
        Signal("ExternalForce", 3, "N", "External force at the body origin O, NED", NED),
        Signal("ExternalMoment", 3, "N.m", "External moment, NED axes", NED),
    )


def output_table(n):
    thrusters = tuple(f"thruster {i + 1}" for i in range(n))
    return SignalTable(*FIXED_OUTPUTS,
                       Signal("Thrust", n, "N", "Force of each thruster now", thrusters),
                       Signal("PropellerSpeed", n, "1", "Propeller speed of each thruster as a fraction "
                              "of its maximum", thrusters))


#: The others' wakes (docs/physics/environment.md#meeting-wakes): their rows after the inputs (no
#: column of the input Jacobian), and the velocity they gave over the step just ended, after the
#: outputs in the FMU's array; the FMU registers them after every other variable.
EXTRA_INPUTS = SignalTable(
    Signal("WakeSources", SOURCES_SIZE, SOURCE_UNITS, "Another vehicle's WakeSource (a row of zeros: "
           "none)", SOURCE_LABELS, columns=SOURCE_SIZE),
)
EXTRA_OUTPUTS = SignalTable(
    Signal("WakeVelocity", 3, "m/s", "Water velocity of the others' wakes at O over the step just "
           "ended, NED", NED),
    # the seabed and the place on Earth (auv_cosim.vehicles.bathymetry), registered after the wake's
    Signal("SeaDepth", 1, "m", "Depth of the sea floor below the surface under O (BathymetryFile's grid, "
           "else SeaFloorDepth)"),
    Signal("Latitude", 1, "deg", "Latitude of O, WGS 84 (NED about OriginLatitude, OriginLongitude: the "
           "geodesic of length hypot(north, east) at azimuth atan2(east, north))"),
    Signal("Longitude", 1, "deg", "Longitude of O, WGS 84"),
)
#: where each extra output sits after the table's outputs
(E_WAKE_VELOCITY, E_SEA_DEPTH, E_LATITUDE, E_LONGITUDE) = (
    EXTRA_OUTPUTS.start(n) for n in ("WakeVelocity", "SeaDepth", "Latitude", "Longitude"))
#: how many values they take (an int: compiled code cannot read the table itself)
EXTRA_OUTPUT_SIZE = EXTRA_OUTPUTS.size
#: Boolean outputs (name, description), 1.0 / 0.0 in the FMU's array after the extra outputs
FLAG_OUTPUTS = (("SeabedContact", "The frame's lowest point (the depth of the centre of buoyancy + Height/2) "
                 "is below the seabed: the contact force acts (auv_cosim.vehicles.contact)"),)


def given_inputs(n):
    """How many inputs a caller gives: the table's (n + 6) and the others' rows."""
    return n + 6 + SOURCES_SIZE


def input_array_size(n):
    """The size of the array the inputs are held in: the table's and the wake block."""
    return n + 6 + WAKE_BLOCK


_FIXED = SignalTable(*FIXED_OUTPUTS)
#: The rigid-body states before the thrusters'.
BODY_STATES = SignalTable(*BODY_STATE).size
# The compiled functions index the outputs with these integers (see the AUV's dynamics).
(Y_POS, Y_VEL, Y_LOCAL_VEL, Y_OMEGA, Y_QUAT, Y_EULER, Y_HEADING, Y_DEPTH, Y_ALTITUDE,
 Y_SPECIFIC_FORCE, Y_SURFACE) = (_FIXED.start(s.name) for s in FIXED_OUTPUTS)
OUTPUT_FIXED = _FIXED.size

# The fixed block of the constant vector, slot by slot (its sources: the parameters, the
# environment, the sea and how the vehicle meets the others' wakes; see pack_constants). The
# counts are stored as floats. After the block come the parts whose length depends on the
# vehicle: ThrusterPos (3n), the unit ThrusterDir (3n), the wave components (4 N) and the
# nonzero quadratic damping terms (5 m: forces.quadratic_damping_terms).
CONSTANTS = ConstantTable()
C_THRUSTERS = CONSTANTS.add("thruster count n", 1, lambda p, e, sea, wake, waves, terms: p.thruster_count)
C_WAVES = CONSTANTS.add("wave component count N", 1, lambda p, e, sea, wake, waves, terms: waves.shape[0])
C_MASS = CONSTANTS.add("Mass", 1, lambda p, e, sea, wake, waves, terms: p.Mass)
C_VOLUME = CONSTANTS.add("Volume", 1, lambda p, e, sea, wake, waves, terms: p.Volume)
C_RHO = CONSTANTS.add("Rho", 1, lambda p, e, sea, wake, waves, terms: p.Rho)
C_GRAVITY = CONSTANTS.add("Gravity", 1, lambda p, e, sea, wake, waves, terms: e.Gravity)
C_HEIGHT = CONSTANTS.add("Height", 1, lambda p, e, sea, wake, waves, terms: p.Height)
C_THRUSTER_TAU = CONSTANTS.add("ThrusterTimeConstant", 1,
                               lambda p, e, sea, wake, waves, terms: p.ThrusterTimeConstant)
C_MAX_FORWARD = CONSTANTS.add("MaxThrustForward", 1, lambda p, e, sea, wake, waves, terms: p.MaxThrustForward)
C_MAX_REVERSE = CONSTANTS.add("MaxThrustReverse", 1, lambda p, e, sea, wake, waves, terms: p.MaxThrustReverse)
C_EFFICIENCY = CONSTANTS.add("ThrusterEfficiency", 1, lambda p, e, sea, wake, waves, terms: p.ThrusterEfficiency)
C_QUAT_TAU = CONSTANTS.add("QuaternionConvergenceTime", 1,
                           lambda p, e, sea, wake, waves, terms: p.QuaternionConvergenceTime)
C_SEA_FLOOR = CONSTANTS.add("SeaFloorDepth", 1, lambda p, e, sea, wake, waves, terms: e.SeaFloorDepth)
C_WAVE_DIRECTION = CONSTANTS.add("WaveDirection", 1,
                                 lambda p, e, sea, wake, waves, terms: 0.0 if sea is None else sea.WaveDirection)
C_CURRENT = CONSTANTS.add("CurrentVelocity (NED, at the surface)", 3,
                          lambda p, e, sea, wake, waves, terms: e.CurrentVelocity)
C_CURRENT_GRADIENT = CONSTANTS.add("CurrentDepthGradient (per metre of depth)", 3,
                                   lambda p, e, sea, wake, waves, terms: e.CurrentDepthGradient)
C_COG = CONSTANTS.add("CenterOfGravity r_g", 3, lambda p, e, sea, wake, waves, terms: p.CenterOfGravity)
C_COB = CONSTANTS.add("CenterOfBuoyancy r_b", 3, lambda p, e, sea, wake, waves, terms: p.CenterOfBuoyancy)
C_MASS_INV = CONSTANTS.add("(M_RB + M_A)^-1 row by row", 36,
                           lambda p, e, sea, wake, waves, terms: np.linalg.inv(p.mass_matrix()))
C_ADDED = CONSTANTS.add("AddedMass M_A", 36, lambda p, e, sea, wake, waves, terms: p.AddedMass)
C_INERTIA_O = CONSTANTS.add("inertia I_o about O", 9, lambda p, e, sea, wake, waves, terms: inertia_about_origin(
    p.Mass, np.asarray(p.CenterOfGravity, float), p.inertia_matrix()))
C_LINEAR = CONSTANTS.add("LinearDamping L", 36, lambda p, e, sea, wake, waves, terms: p.LinearDamping)
C_QUAD_ABS = CONSTANTS.add("quadratic damping Qa_ijk", 216,
                           lambda p, e, sea, wake, waves, terms: p.quadratic_abs_tensor())
C_QUAD = CONSTANTS.add("quadratic damping Q_ijk", 216,
                       lambda p, e, sea, wake, waves, terms: p.quadratic_signed_tensor())
C_DAMPING_TERMS = CONSTANTS.add("count m of the nonzero quadratic damping terms", 1,
                                lambda p, e, sea, wake, waves, terms: terms.shape[0])
# how the vehicle meets the others' wakes (docs/physics/environment.md#wake-field)
C_WAKE_SPREAD = CONSTANTS.add("WakeSpreadRate", 1, lambda p, e, sea, wake, waves, terms: wake.WakeSpreadRate)
C_JET_SPREAD = CONSTANTS.add("JetSpreadRate", 1, lambda p, e, sea, wake, waves, terms: wake.JetSpreadRate)
C_WAKE_LENGTH = CONSTANTS.add("WakeLength", 1, lambda p, e, sea, wake, waves, terms: wake.WakeLength)
C_WAKE_EVALUATION = CONSTANTS.add("1: ExternalWakeUpdate 'Evaluation', 0: 'Step'", 1,
                                  lambda p, e, sea, wake, waves, terms: wake.evaluation)
# the seabed (auv_cosim.vehicles.bathymetry): where its grid starts (0: none, SeaFloorDepth) and
# the NED origin on WGS 84; set by `pack_constants`
C_SEABED_AT = CONSTANTS.add("seabed grid start", 1, lambda p, e, sea, wake, waves, terms: 0.0)
C_ORIGIN = CONSTANTS.add("OriginLatitude, OriginLongitude", 2, lambda p, e, sea, wake, waves, terms: (0.0, 0.0))
# the slope of the plane seabed without a grid: the H100's is level (SeaFloorDepth), as its Altitude
C_LEVEL_SLOPE = CONSTANTS.add("slope of the plane seabed (level)", 2, lambda p, e, sea, wake, waves, terms: (0.0, 0.0))
C_FIXED = CONSTANTS.size


def pack_constants(params, environment, sea=None, wake=None, origin=(0.0, 0.0), seabed=None):
    """The flat constant vector of `H100Parameters`, the environment (any object with
    CurrentVelocity, CurrentDepthGradient and SeaFloorDepth), the sea (`WaveParameters`,
    None for still water) and how the vehicle meets the others' wakes (`WakeParameters`, None
    for the defaults), the NED origin (latitude, longitude) and the seabed (an
    `auv_cosim.seabed.Seabed`, None: SeaFloorDepth). Gravity is the environment's. The fixed
    block is `CONSTANTS`; the parts whose length depends on the vehicle follow it, the grid last."""
    wake = wake if wake is not None else WakeParameters()
    waves = np.zeros((0, 4)) if sea is None else wave_components(sea, environment.Gravity)
    damping_terms = quadratic_damping_terms(params.quadratic_abs_tensor(), params.quadratic_signed_tensor())
    fixed = CONSTANTS.pack(params, environment, sea, wake, waves, damping_terms)
    fixed[C_ORIGIN:C_ORIGIN + 2] = origin
    c = np.concatenate((fixed, np.asarray(params.ThrusterPos, float).ravel(),
                        params.unit_thruster_directions().ravel(), waves.ravel(), damping_terms.ravel()))
    if seabed is not None:
        c[C_SEABED_AT] = c.size
        c = np.concatenate((c, seabed_block(seabed)))
    return c


@jit
def sea_depth_at(north, east, c):
    """The sea floor's depth under (north, east): the grid's (NaN off it) when there is one,
    else SeaFloorDepth."""
    at = int(c[C_SEABED_AT])
    if at > 0:
        return grid_depth_at(north, east, c, at)[0]
    return c[C_SEA_FLOOR]


@jit
def thruster_count(c):
    return int(c[C_THRUSTERS])


@jit
def _matrix6(c, start):
    return c[start:start + 36].reshape((6, 6))


@jit
def _tensor6(c, start):
    return c[start:start + 216].reshape((6, 6, 6))


@jit
def _thruster_geometry(c):
    n = int(c[C_THRUSTERS])
    positions = c[C_FIXED:C_FIXED + 3 * n].reshape((n, 3))
    directions = c[C_FIXED + 3 * n:C_FIXED + 6 * n].reshape((n, 3))
    return positions, directions


@jit
def _waves(c):
    n = int(c[C_THRUSTERS])
    start = C_FIXED + 6 * n
    return c[start:start + 4 * int(c[C_WAVES])].reshape((int(c[C_WAVES]), 4))


@jit
def _damping_terms(c):
    start = C_FIXED + 6 * int(c[C_THRUSTERS]) + 4 * int(c[C_WAVES])
    return c[start:start + 5 * int(c[C_DAMPING_TERMS])].reshape((int(c[C_DAMPING_TERMS]), 5))


@jit
def attitude(q):
    """R(q / |q|): the rotation matrix of the normalised quaternion (normalised as a tuple:
    no array for it)."""
    norm = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return rotation_matrix((q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm))


@jit
def water_motion(t, x, u, c):
    """The water's velocity at O (x[0:3], NED) and its wave acceleration, both NED, as 3-tuples:
    (CurrentVelocity + CurrentDepthGradient z + the others' wakes + v_w, a_w). Still water
    skips the waves' sums, and inputs without a source (or without the wake block) the wakes."""
    pos = x[0:3]
    if int(c[C_WAVES]) > 0:
        wave_velocity, wave_acceleration = wave_kinematics(t, pos, _waves(c), c[C_WAVE_DIRECTION])
        v_w = (wave_velocity[0], wave_velocity[1], wave_velocity[2])
        a_w = (wave_acceleration[0], wave_acceleration[1], wave_acceleration[2])
    else:
        v_w = (0.0, 0.0, 0.0)
        a_w = (0.0, 0.0, 0.0)
    current = (c[C_CURRENT] + c[C_CURRENT_GRADIENT] * pos[2],
               c[C_CURRENT + 1] + c[C_CURRENT_GRADIENT + 1] * pos[2],
               c[C_CURRENT + 2] + c[C_CURRENT_GRADIENT + 2] * pos[2])
    if meets_wake(u, int(c[C_THRUSTERS]) + 6):
        current = add3(current, others_wake(x, u, c))
    velocity = (current[0] + v_w[0], current[1] + v_w[1], current[2] + v_w[2])
    return velocity, a_w


@jit
def others_wake(x, u, c):
    """The water velocity of the others' wakes at O, NED
    (docs/physics/environment.md#meeting-wakes), as the step sees it: held since its start ("Step")
    or the field at x ("Evaluation"). Only where `meets_wake`."""
    return held_wake_velocity((x[0], x[1], x[2]), u, int(c[C_THRUSTERS]) + 6, c[C_WAKE_EVALUATION] > 0.0,
                              c[C_WAKE_SPREAD], c[C_JET_SPREAD], c[C_WAKE_LENGTH])


@jit
def hold_inputs(x, u, c):
    """At a step's start: the wake block of the held inputs u filled from its rows and the state
    x (auv_cosim.vehicles.wake.hold_wake); 0, or the code of a malformed row. Nothing to do for
    inputs without the block."""
    start = int(c[C_THRUSTERS]) + 6
    if u.shape[0] < start + WAKE_BLOCK:
        return 0
    return hold_wake((x[0], x[1], x[2]), u, start, c[C_WAKE_EVALUATION] > 0.0, c[C_WAKE_SPREAD],
                     c[C_JET_SPREAD], c[C_WAKE_LENGTH])


@jit
def thruster_forces(x, c):
    """Each thruster's force now, from its propeller speed (N)."""
    n = int(c[C_THRUSTERS])
    forces = np.empty(n)
    for i in range(n):
        forces[i] = thruster_force(x[BODY_STATES + i], c[C_MAX_FORWARD], c[C_MAX_REVERSE],
                                   c[C_EFFICIENCY])
    return forces


@jit
def generalized_force(t, x, u, c):
    """The right-hand side of (M_RB + M_A) nu' = ... (module docstring), and the body-frame
    current v_c^b and nu_r it used: (wrench, current_body, nu_r), arrays."""
    tau, current_body, nu_r = generalized_force_at(t, x, u, c, attitude(x[3:7]))
    return np.array(tau), np.array(current_body), np.array(nu_r)


@jit
def holding_wrench_into(t, x, u, c, out):
    """The thrust wrench that holds the body velocity of x steady: ``out = -(every wrench of
    the right-hand side but the thrusters')``, since ``(M_RB + M_A) nu' = tau_thrust + rest``
    vanishes exactly when ``tau_thrust = -rest`` (a controller's model feed-forward,
    auv_cosim/vehicles/h100/stack/belief.py). The same sums as `generalized_force` with the thrusters'
    wrench taken as zero (stopped thrusters give exactly +0.0 there), written into `out` (6):
    called every control period, it hands no new array back."""
    tau, _, _ = add_unthrusted_wrenches(t, x, (x[7], x[8], x[9], x[10], x[11], x[12]), u, c, attitude(x[3:7]),
                                        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    for i in range(6):
        out[i] = -tau[i]


@jit
def generalized_force_at(t, x, u, c, rotation):
    """`generalized_force` as tuples, with R(q/|q|) already built (the derivative needs it too):
    the sum of the wrenches of `forces`, as tuples (the thrusters' forces are the one array)."""
    positions, directions = _thruster_geometry(c)
    thrust = thrusters_wrench(thruster_forces(x, c), positions, directions)
    return add_unthrusted_wrenches(t, x, (x[7], x[8], x[9], x[10], x[11], x[12]), u, c, rotation, thrust)


@jit
def add_unthrusted_wrenches(t, x, nu, u, c, rotation, tau):
    """tau plus every wrench of the right-hand side but the thrusters' (external, restoring, the
    seabed's contact while touching it, Coriolis, damping, moving water, Froude-Krylov), summed in
    that order: (wrench,
    current_body, nu_r), tuples. The velocity nu = (LocalVel, Omega) comes apart from x (of
    which only the position x[0:3] is read): `step_derivative_into` hands the velocity
    with the thrusters' impulse put back."""
    n = int(c[C_THRUSTERS])
    water_ned, wave_acceleration = water_motion(t, x, u, c)
    current_body = rotate_back3(rotation, water_ned)
    omega = (nu[3], nu[4], nu[5])
    nu_r = (nu[0] - current_body[0], nu[1] - current_body[1], nu[2] - current_body[2], nu[3], nu[4], nu[5])
    depth_rate = rotation[2, 0] * nu[0] + rotation[2, 1] * nu[1] + rotation[2, 2] * nu[2]
    water_acceleration = rotate_back3(rotation, (
        c[C_CURRENT_GRADIENT] * depth_rate + wave_acceleration[0],
        c[C_CURRENT_GRADIENT + 1] * depth_rate + wave_acceleration[1],
        c[C_CURRENT_GRADIENT + 2] * depth_rate + wave_acceleration[2]))
    cob = (c[C_COB], c[C_COB + 1], c[C_COB + 2])
    cog = (c[C_COG], c[C_COG + 1], c[C_COG + 2])
    buoyancy_depth = buoyancy_depth_of(x, rotation, c)
    added = _matrix6(c, C_ADDED)

    tau = wrench_add(tau, external_wrench(rotation, (u[n], u[n + 1], u[n + 2]),
                                            (u[n + 3], u[n + 4], u[n + 5])))
    tau = wrench_add(tau, restoring_wrench(rotation, c[C_MASS], c[C_VOLUME], c[C_RHO], c[C_GRAVITY], cog, cob,
                                             submerged_fraction(buoyancy_depth, c[C_HEIGHT])))
    contact = contact_on_frame(x, nu, rotation, c)
    if contact[3] > 0.0:   # touching the seabed (nothing is added clear of it)
        tau = wrench_add(tau, external_wrench(rotation, (contact[0], contact[1], contact[2]), (0.0, 0.0, 0.0)))
    tau = wrench_add(tau, rigid_body_coriolis_wrench(nu, c[C_MASS], cog,
                                                       c[C_INERTIA_O:C_INERTIA_O + 9].reshape((3, 3))))
    tau = wrench_add(tau, added_mass_coriolis_wrench(added, nu_r))
    tau = wrench_add(tau, damping_wrench(_matrix6(c, C_LINEAR), _damping_terms(c), nu_r))
    tau = wrench_add(tau, moving_water_added_mass_wrench(added, omega, current_body, water_acceleration))
    if int(c[C_WAVES]) > 0:
        tau = wrench_add(tau, froude_krylov_wrench(rotate_back3(rotation, wave_acceleration), c[C_RHO],
                                                     c[C_VOLUME], cob))
    return tau, current_body, nu_r


@jit
def buoyancy_depth_of(x, rotation, c):
    """The depth of the centre of buoyancy: O's plus the vertical of R r_b."""
    return x[2] + rotation[2, 0] * c[C_COB] + rotation[2, 1] * c[C_COB + 1] + rotation[2, 2] * c[C_COB + 2]


@jit
def contact_on_frame(x, nu, rotation, c):
    """The seabed's contact on the frame at x moving at nu (`forces.frame_contact`): (force NED,
    damping gain, normal); zeros clear of the seabed."""
    return frame_contact(x[0], x[1], buoyancy_depth_of(x, rotation, c), c[C_HEIGHT],
                         rotate3(rotation, (nu[0], nu[1], nu[2])), c, int(c[C_SEABED_AT]), c[C_SEA_FLOOR],
                         c[C_LEVEL_SLOPE:C_LEVEL_SLOPE + 2])


@jit
def state_derivative(t, x, u, c):
    """x' at time t for the state x and the inputs u held (the module docstring's equations).
    The time enters through the waves only; argument order is SciPy's `ode` callback's."""
    xdot = np.empty(BODY_STATES + int(c[C_THRUSTERS]))
    state_derivative_into(t, x, u, c, xdot)
    return xdot


@jit
def state_derivative_into(t, x, u, c, xdot):
    """`state_derivative` written into the array `xdot`, returning nothing: the form the
    simulator hands to SciPy (`VehicleSimulator`: handing a new array back to Python costs
    more than computing it)."""
    n = int(c[C_THRUSTERS])
    q = x[3:7]
    rotation = attitude(q)
    tau = generalized_force_at(t, x, u, c, rotation)[0]
    position_rate = rotate3(rotation, x[7:10])   # a tuple: no array made per call
    xdot[0] = position_rate[0]
    xdot[1] = position_rate[1]
    xdot[2] = position_rate[2]
    xdot[3:7] = quaternion_derivative(q, x[10:13], c[C_QUAT_TAU])
    rate = _mass_inverse_times(c, tau)
    for i in range(6):
        xdot[7 + i] = rate[i]
    for i in range(n):
        xdot[BODY_STATES + i] = thruster_speed_rate(u[i], x[BODY_STATES + i], c[C_THRUSTER_TAU])


# ---- one communication step with the propeller lag solved in closed form. Over a step the
# commands are held and the lag is linear, so each propeller speed and each thruster's impulse
# are known functions of time (forces.thruster_speed_after, forces.thruster_impulse). The
# integrator carries the rigid body only, y = (Pos, Quater, LocalVel, Omega) with the velocity
# less the thrusters' share of it since the step began:
#     nu~ = nu - (M_RB + M_A)^-1 B I(t),   I_i(t) = integral of F_i from t0 to t,
# so that nu~' = (M_RB + M_A)^-1 (every wrench but the thrusters'), evaluated at the true
# nu = nu~ + (M_RB + M_A)^-1 B I(t). Same model, same state at the communication points; what
# the integrator sees no longer holds the propellers' transient (T = the step) nor the jump in
# F's second derivative where a propeller reverses, which made DOP853 split the step.
# The held vector of a step: the inputs u (n + 6) and their wake block (auv_cosim.vehicles.wake), the
# propeller speeds at its start (n), t0.
@jit
def step_held_size(n):
    return 2 * n + 7 + WAKE_BLOCK


@jit
def _held_speeds(n):
    """Where the propeller speeds at the step's start begin in the held vector."""
    return n + 6 + WAKE_BLOCK


@jit
def _step_start_time(held, n):
    return held[2 * n + 6 + WAKE_BLOCK]


@jit
def thrusters_impulse_velocity(t, held, c):
    """(M_RB + M_A)^-1 B I(t): the change of nu the thrusters alone have made since the step
    began (t0, speeds s0 and commands in `held`), a 6-tuple."""
    n = int(c[C_THRUSTERS])
    time_constant = c[C_THRUSTER_TAU]
    scaled_time = (t - _step_start_time(held, n)) / time_constant
    decay_minus_one = math.expm1(-scaled_time)   # one exponential for every thruster
    impulses = np.empty(n)
    for i in range(n):
        impulses[i] = thruster_impulse_scaled(held[_held_speeds(n) + i], held[i], time_constant, scaled_time,
                                              decay_minus_one, c[C_MAX_FORWARD], c[C_MAX_REVERSE],
                                              c[C_EFFICIENCY])
    positions, directions = _thruster_geometry(c)
    return _mass_inverse_times(c, thrusters_wrench(impulses, positions, directions))


@jit
def _mass_inverse_row(c, wrench_tuple, i):
    """Row i of (M_RB + M_A)^-1 times the wrench, summed left to right."""
    total = 0.0
    for j in range(6):
        total += c[C_MASS_INV + 6 * i + j] * wrench_tuple[j]
    return total


@jit
def _mass_inverse_times(c, wrench_tuple):
    """(M_RB + M_A)^-1 w as a 6-tuple (no array, no BLAS call at 6 x 6)."""
    return (_mass_inverse_row(c, wrench_tuple, 0), _mass_inverse_row(c, wrench_tuple, 1),
            _mass_inverse_row(c, wrench_tuple, 2), _mass_inverse_row(c, wrench_tuple, 3),
            _mass_inverse_row(c, wrench_tuple, 4), _mass_inverse_row(c, wrench_tuple, 5))


@jit
def step_derivative_into(t, y, held, c, ydot):
    """y' of the rigid body within a step (the comment above: y = (Pos, Quater, nu~)), written
    into `ydot` (13): Pos' = R v and seed 003's Quater' at the true nu, and
    nu~' = (M_RB + M_A)^-1 (the wrenches but the thrusters') at the true nu. The held inputs
    u and their wake block are the first n + 6 + WAKE_BLOCK values of `held`."""
    share = thrusters_impulse_velocity(t, held, c)
    nu = (y[7] + share[0], y[8] + share[1], y[9] + share[2], y[10] + share[3], y[11] + share[4],
          y[12] + share[5])
    q = y[3:7]
    rotation = attitude(q)
    tau = add_unthrusted_wrenches(t, y, nu, held, c, rotation, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0))[0]
    position_rate = rotate3(rotation, (nu[0], nu[1], nu[2]))
    ydot[0] = position_rate[0]
    ydot[1] = position_rate[1]
    ydot[2] = position_rate[2]
    ydot[3:7] = quaternion_derivative(q, (nu[3], nu[4], nu[5]), c[C_QUAT_TAU])
    rate = _mass_inverse_times(c, tau)
    for i in range(6):
        ydot[7 + i] = rate[i]


@jit
def step_derivative_packed(t, y, work):
    """`step_derivative_into` with held, c and ydot in one array (auv_cosim.vehicles.packed: SciPy
    hands the simulator's right-hand side three arguments instead of five)."""
    held, c, ydot = unpack_arguments(work)
    step_derivative_into(t, y, held, c, ydot)


@jit
def step_held(x, u, t0, held):
    """Fill `held` for the step that starts at t0 from the state x with the inputs u (and their
    wake block, zero when u has none)."""
    n = int((held.size - 7 - WAKE_BLOCK) // 2)
    given = min(u.shape[0], n + 6 + WAKE_BLOCK)
    for i in range(given):
        held[i] = u[i]
    for i in range(given, n + 6 + WAKE_BLOCK):
        held[i] = 0.0
    for i in range(n):
        held[_held_speeds(n) + i] = x[BODY_STATES + i]
    held[2 * n + 6 + WAKE_BLOCK] = t0


@jit
def step_end_state_into(y, held, t, c, x):
    """The whole state at time t from the integrator's y and the step's `held`, written into x:
    nu = nu~ plus the thrusters' share, each propeller speed from the closed form of its lag."""
    n = int(c[C_THRUSTERS])
    share = thrusters_impulse_velocity(t, held, c)
    for i in range(7):
        x[i] = y[i]
    for i in range(6):
        x[7 + i] = y[7 + i] + share[i]
    elapsed = t - _step_start_time(held, n)
    for i in range(n):
        x[BODY_STATES + i] = thruster_speed_after(held[_held_speeds(n) + i], held[i], c[C_THRUSTER_TAU], elapsed)


@jit
def normalised_rotation_derivatives(q):
    """d R(q/|q|) / d q_k, k = 0..3: dR/dq_hat chained with d q_hat/dq = (I - q_hat q_hat^T)/|q|."""
    norm = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    q_hat = q / norm
    d_hat = rotation_matrix_derivatives(q_hat)
    projection = (np.eye(4) - np.outer(q_hat, q_hat)) / norm
    d = np.zeros((4, 3, 3))
    for k in range(4):
        for m in range(4):
            d[k] += d_hat[m] * projection[m, k]
    return d


@jit
def _frozen_wake(x, u, c):
    """(u, c) as a "Step" vehicle would hold them at x: the wake held at its value at x, the mode
    "Step" (copies; the Jacobian's differences in "Evaluation" mode)."""
    held = u.copy()
    wake = others_wake(x, u, c)
    start = int(c[C_THRUSTERS]) + 6
    for i in range(3):
        held[start + HELD_VELOCITY + i] = wake[i]
    constants = c.copy()
    constants[C_WAKE_EVALUATION] = 0.0
    return held, constants


@jit
def state_jacobian(t, x, u, c):
    """d x' / d x, (13 + n) x (13 + n).

    Analytic: dPos'/dQuater (dR/dq v, through the normalisation), dPos'/dLocalVel = R,
    dQuater'/dQuater and dQuater'/dOmega (seed 003), the complete 6 x 6 velocity block (C_RB,
    C_A, damping, the turning and the shear of the current), the thrusters' block
    M^-1 B diag(dF_i/ds_i) and the propeller lag -1/T. Left to central differences, as the AUV
    and seed 000 do: the velocity rows against Pos and Quater (restoring forces against attitude,
    the submerged fraction, the current and the waves against position and attitude). In
    "Evaluation" mode the others' wakes enter those differences frozen at their value at x, and
    their gradient analytically: d tau / d v_c^b = -(d(C_A + D)/d nu_r)[:, 0:3] - M_A[:, 0:3]
    S(Omega), times R^T dV/dPos.
    """
    n = int(c[C_THRUSTERS])
    size = BODY_STATES + n
    q = x[3:7]
    vel = x[7:10]
    omega = x[10:13]
    rotation = attitude(q)
    tau, current_body, nu_r = generalized_force(t, x, u, c)
    minv = _matrix6(c, C_MASS_INV)
    added = _matrix6(c, C_ADDED)
    j = np.zeros((size, size))

    d_rotation = normalised_rotation_derivatives(q)
    for k in range(4):
        j[0:3, 3 + k] = d_rotation[k] @ vel
    j[0:3, 7:10] = rotation
    j[3:7, 3:7] = quaternion_derivative_jacobian(q, omega, c[C_QUAT_TAU])
    j[3:7, 10:13] = quaternion_rate_matrix(q)

    # d tau / d nu: nu_r moves with nu one for one (the current does not depend on the velocity)
    block = added_mass_coriolis_jacobian(added, nu_r)
    block += damping_jacobian(_matrix6(c, C_LINEAR), _tensor6(c, C_QUAD_ABS), _tensor6(c, C_QUAD), nu_r)
    block += rigid_body_coriolis_jacobian(x[7:13], c[C_MASS], c[C_COG:C_COG + 3],
                                          c[C_INERTIA_O:C_INERTIA_O + 9].reshape((3, 3)))
    # M_A (-omega x v_c^b, 0): d/d omega = M_A[:, 0:3] S(v_c^b)
    added_linear = np.ascontiguousarray(added[:, 0:3])
    block[:, 3:6] += added_linear @ skew(current_body)
    # M_A (R^T G z', 0) with z' = R[2, :] v: d/dv = M_A[:, 0:3] (R^T G) R[2, :]
    shear = rotate_back(rotation, c[C_CURRENT_GRADIENT:C_CURRENT_GRADIENT + 3])
    block[:, 0:3] += added_linear @ np.outer(shear, rotation[2, :])
    contact = contact_on_frame(x, x[7:13], rotation, c)
    if contact[3] > 0.0:   # the contact's damping: -g n n^T on v_ned = R v, so -g b b^T with b = R^T n
        b = rotation.T @ np.array((contact[4], contact[5], contact[6]))
        block[0:3, 0:3] -= contact[3] * np.outer(b, b)
    j[7:13, 7:13] = minv @ block

    positions, directions = _thruster_geometry(c)
    for i in range(n):
        slope = thruster_force_slope(x[BODY_STATES + i], c[C_MAX_FORWARD], c[C_MAX_REVERSE],
                                     c[C_EFFICIENCY])
        column = np.zeros(6)
        column[0:3] = directions[i]
        column[3:6] = cross(positions[i], directions[i])
        j[7:13, BODY_STATES + i] = minv @ (slope * column)
        j[BODY_STATES + i, BODY_STATES + i] = -1.0 / c[C_THRUSTER_TAU]

    evaluating = meets_wake(u, n + 6) and c[C_WAKE_EVALUATION] > 0.0
    held, constants = u, c
    if evaluating:
        held, constants = _frozen_wake(x, u, c)
    for col in range(7):
        step = 1e-6 * max(1.0, abs(x[col]))
        plus = x.copy()
        minus = x.copy()
        plus[col] += step
        minus[col] -= step
        difference = (generalized_force(t, plus, held, constants)[0]
                      - generalized_force(t, minus, held, constants)[0]) / (2.0 * step)
        j[7:13, col] = minv @ difference
    if evaluating:
        through_water = -(added_mass_coriolis_jacobian(added, nu_r)
                          + damping_jacobian(_matrix6(c, C_LINEAR), _tensor6(c, C_QUAD_ABS),
                                             _tensor6(c, C_QUAD), nu_r))[:, 0:3]
        through_water -= added_linear @ skew(omega)
        gradient = wake_velocity_gradient((x[0], x[1], x[2]), u, n + 6, c[C_WAKE_SPREAD],
                                          c[C_JET_SPREAD], c[C_WAKE_LENGTH])
        j[7:13, 0:3] += minv @ (through_water @ (np.ascontiguousarray(rotation.T) @ gradient))
    return j


@jit
def input_jacobian(t, x, u, c):
    """d x' / d u, (13 + n) x (n + 6), analytic: 1/T on each propeller-speed row inside the
    command's clamp (zero beyond it); M^-1 (R^T, 0) for ExternalForce, M^-1 (0, R^T) for
    ExternalMoment. A command reaches the velocities only through the propeller speed."""
    n = int(c[C_THRUSTERS])
    rotation = attitude(x[3:7])
    minv = _matrix6(c, C_MASS_INV)
    b = np.zeros((BODY_STATES + n, n + 6))
    for i in range(n):
        if -1.0 < u[i] < 1.0:
            b[BODY_STATES + i, i] = 1.0 / c[C_THRUSTER_TAU]
    rotation_back = np.ascontiguousarray(rotation.T)
    b[7:13, n:n + 3] = np.ascontiguousarray(minv[:, 0:3]) @ rotation_back
    b[7:13, n + 3:n + 6] = np.ascontiguousarray(minv[:, 3:6]) @ rotation_back
    return b


@jit
def output_vector(t, x, u, c):
    """The outputs (docs/physics/h100.md#fmu-interface) as one flat vector, in the order of
    `output_table(n)`."""
    out = np.empty(OUTPUT_FIXED + 2 * int(c[C_THRUSTERS]))
    output_into(t, x, u, c, out)
    return out


@jit
def output_into(t, x, u, c, out):
    """`output_vector` written into the array `out`, returning nothing: the form the FMU
    refreshes its outputs with (`H100Model.write_outputs`; an array handed back from compiled
    code costs Python a new object every step)."""
    n = int(c[C_THRUSTERS])
    q = x[3:7]
    rotation = attitude(q)
    xdot = state_derivative(t, x, u, c)
    euler = euler_angles(rotation)
    out[:] = np.nan   # NaN: a slot nobody fills shows
    out[Y_POS:Y_POS + 3] = x[0:3]
    out[Y_VEL:Y_VEL + 3] = rotate(rotation, x[7:10])
    out[Y_LOCAL_VEL:Y_LOCAL_VEL + 3] = x[7:10]
    out[Y_OMEGA:Y_OMEGA + 3] = x[10:13]
    out[Y_QUAT:Y_QUAT + 4] = q
    out[Y_EULER:Y_EULER + 3] = euler
    out[Y_HEADING] = euler[2]
    out[Y_DEPTH] = x[2]
    sea_depth = sea_depth_at(x[0], x[1], c)
    out[Y_ALTITUDE] = sea_depth - x[2]
    # what an accelerometer at O reads: v' + omega x v - R^T (0, 0, g)
    out[Y_SPECIFIC_FORCE:Y_SPECIFIC_FORCE + 3] = (xdot[7:10] + cross(x[10:13], x[7:10])
                                                  - c[C_GRAVITY] * rotation[2, :])
    out[Y_SURFACE] = surface_elevation(t, x[0], x[1], _waves(c), c[C_WAVE_DIRECTION])
    out[OUTPUT_FIXED:OUTPUT_FIXED + n] = thruster_forces(x, c)
    out[OUTPUT_FIXED + n:OUTPUT_FIXED + 2 * n] = x[BODY_STATES:BODY_STATES + n]
    if out.shape[0] > OUTPUT_FIXED + 2 * n:   # the FMU's array: the extra outputs after the table's
        extra = OUTPUT_FIXED + 2 * n
        wake = others_wake(x, u, c) if meets_wake(u, n + 6) else (0.0, 0.0, 0.0)
        for i in range(3):
            out[extra + E_WAKE_VELOCITY + i] = wake[i]
        out[extra + E_SEA_DEPTH] = sea_depth
        out[extra + E_LATITUDE], out[extra + E_LONGITUDE] = latitude_longitude(x[0], x[1], c[C_ORIGIN], c[C_ORIGIN + 1])
        if out.shape[0] > extra + EXTRA_OUTPUT_SIZE:   # the flags after them: SeabedContact
            lowest = frame_lowest_depth(buoyancy_depth_of(x, rotation, c), c[C_HEIGHT])
            out[extra + EXTRA_OUTPUT_SIZE] = 1.0 if in_contact(lowest, sea_depth) else 0.0


@jit
def wake_velocity_now(t, x, u, c):
    """WakeVelocity (NED) at x over the step just ended: the held value ("Step") or the field at
    x ("Evaluation") of the held inputs u; zero without a source."""
    extra = OUTPUT_FIXED + 2 * int(c[C_THRUSTERS])
    out = np.empty(extra + EXTRA_OUTPUT_SIZE)
    output_into(t, x, u, c, out)
    return out[extra + E_WAKE_VELOCITY:extra + E_WAKE_VELOCITY + 3].copy()


def input_problem(code, u, n):
    """The words of a `hold_inputs` code: which row and element of WakeSources is malformed."""
    return describe_source_problem(code, u, n + 6)
