"""The vehicle's state derivative, its analytic Jacobians and its outputs.

State (14): Pos (NED, m), Quater (scalar first, body to NED), LocalVel (body velocity over
ground, m/s), Omega (rad/s), Battery (J). Inputs (6): ThrustPower (W), RudderYaw (rad),
RudderDive (rad), ExternalForce (NED, N). The tables STATE, INPUTS and OUTPUTS below are the
one place of these orders; the compiled functions index with the integers derived from them.

The equations (docs/physics/auv.md#equations-of-motion): with the water velocity
v_w = R^T V_c(depth) and v_r = LocalVel - v_w,
    M (v_r', omega') = tau_total(v_r, omega, ...)            (Coriolis and Munk inside tau)
    LocalVel' = v_r' + d(v_w)/dt = v_r' - omega x v_w + R^T (dV_c/dz) z'
For a current uniform in NED the last term vanishes and this is the seed's equation. With a
depth-sheared current the vehicle's response to the fluid acceleration (Froude-Krylov plus
added mass) is taken equal to its inertia to it, which is exact for a neutrally buoyant body.

The constants travel as one flat float vector (`CONSTANTS`, packed by `pack_constants`) so
that the compiled functions have a fixed, cheap signature. Inside them 3-vectors and wrenches
are tuples (`auv_cosim.vehicles.vectors`): the derivative allocates only the array it returns, the
rotation matrix and the quaternion rate, and does the floating-point operations of the array
code it replaced in the same order (every scenario's results.csv stayed byte-identical).
"""
import numpy as np

from ...compiled.jit import jit
from .forces import (
    DIVE_PLANE,
    YAW_PLANE,
    axial_drag_jacobian,
    frontal_area,
    axial_drag_wrench,
    coriolis_jacobian,
    coriolis_wrench,
    cross_flow_strip_jacobian,
    cross_flow_strip_wrench,
    external_force_wrench,
    roll_damping_moment,
    roll_damping_slope,
    rudder_wrench,
    rudder_wrench_jacobian,
    slender_body_lift_jacobian,
    slender_body_lift_wrench,
    thrust_wrench,
    weight_and_buoyancy_wrench,
)
from .hull import hull_properties_of, submerged_fraction
from .parameters import AuvWakeParameters
from ..bathymetry import latitude_longitude, seabed_block, seabed_under
from ..contact import in_contact, seabed_contact
from ..environment import current_ned
from ..waves import surface_elevation, wave_components, wave_kinematics
from ..packed import unpack_arguments
from ..parameters import NED, XYZ
from ..protocol import ConstantTable, Signal, SignalTable
from ..rotation import (
    euler_angles,
    quaternion_derivative,
    quaternion_derivative_jacobian,
    quaternion_rate_matrix,
    rotation_matrix,
    rotation_matrix_derivatives,
    skew,
)
from ..vectors import add3, cross3, rotate3, rotate_back3, scale3, sub3, triple, wrench_add
from ..wake import (HELD_PRESENT, HELD_VELOCITY, SOURCE_LABELS, SOURCE_SIZE, SOURCE_UNITS, SOURCES_SIZE,
                    WAKE_BLOCK, describe_source_problem, held_wake_velocity, hold_wake, meets_wake,
                    resistance, source_row_into, wake_velocity_gradient)

# ---- the vectors (their orders are written here only; see auv_cosim.vehicles.protocol)
STATE = SignalTable(
    Signal("Pos", 3, "m", "Position of the body origin, NED", NED),
    Signal("Quater", 4, "1", "Attitude quaternion body to NED, scalar first", ("q0", "q1", "q2", "q3")),
    Signal("LocalVel", 3, "m/s", "Velocity over ground in the body frame", XYZ),
    Signal("Omega", 3, "rad/s", "Angular velocity in the body frame", XYZ),
    Signal("Battery", 1, "J", "Battery energy"),
)
INPUTS = SignalTable(
    Signal("ThrustPower", 1, "W", "Commanded propulsion power, clamped to [0, MaxPropulsionPower]",
           limits=(0.0, "MaxPropulsionPower")),
    Signal("RudderYaw", 1, "rad", "Commanded deflection of the yaw fins (positive: turn to "
                                  "starboard), clamped to +-MaxRudderAngle",
           limits=("-MaxRudderAngle", "MaxRudderAngle")),
    Signal("RudderDive", 1, "rad", "Commanded deflection of the dive fins (positive: nose down, "
                                   "dive), clamped to +-MaxRudderAngle",
           limits=("-MaxRudderAngle", "MaxRudderAngle")),
    Signal("ExternalForce", 3, "N", "External force at the body origin, NED", NED),
)
OUTPUTS = SignalTable(
    Signal("Pos", 3, "m", ("North position of the body origin", "East position of the body origin",
                           "Down position of the body origin")),
    Signal("Vel", 3, "m/s", ("North velocity of the body origin over ground",
                             "East velocity of the body origin over ground",
                             "Down velocity of the body origin over ground")),
    Signal("Quater", 4, "1", ("Attitude quaternion body to NED, scalar part q0",
                              "Attitude quaternion body to NED, q1",
                              "Attitude quaternion body to NED, q2",
                              "Attitude quaternion body to NED, q3")),
    Signal("Euler", 3, "rad", ("Roll angle (ZYX convention)",
                               "Pitch angle (ZYX convention), nose up positive",
                               "Yaw angle (ZYX convention)")),
    Signal("Heading", 1, "rad", "Yaw angle, the third element of Euler"),
    Signal("Pitch", 1, "rad", "Pitch angle, the second element of Euler; positive is nose up"),
    Signal("Depth", 1, "m", "Depth of the body origin below the mean free surface, positive down"),
    Signal("Speed", 1, "m/s", "Forward speed through the water (body-x velocity relative to the current)"),
    Signal("Altitude", 1, "m", "Height of the body origin above the seafloor"),
    Signal("SeaDepth", 1, "m", "Depth of the seafloor below the surface at the vehicle position"),
    Signal("Battery", 1, "J", "Remaining battery energy"),
    Signal("BatteryFraction", 1, "1", "Remaining battery energy as a fraction of InitialBattery"),
    Signal("Thrust", 1, "N", "Thrust delivered along body x during the last step (0 with a flat battery)"),
)
#: Values for plots that are not outputs: FMU variables of causality "local" (read with
#: fmi2GetReal; the master records them when a scenario names them under `record`). Not
#: outputs because an output joins every scenario's results.csv, whose bytes are pinned.
LOCALS = SignalTable(
    Signal("SurfaceElevation", 1, "m", "Elevation of the sea surface above its mean at the vehicle's "
                                       "north and east (0 without waves)"),
)
#: The others' wakes (docs/physics/environment.md#meeting-wakes), held after the table's inputs in a
#: block of auv_cosim.vehicles.wake.WAKE_BLOCK values (up to three rows of other vehicles'
#: WakeSource, then what the vehicle holds of them over a step), and what this vehicle publishes of
#: its own (docs/physics/environment.md#wake-source). Not in INPUTS and OUTPUTS: the inputs have no
#: column in the input Jacobian (nothing linearises about another vehicle's wake), and the FMU
#: registers all of them after every other variable (no value reference moved).
EXTRA_INPUTS = SignalTable(
    Signal("WakeSources", SOURCES_SIZE, SOURCE_UNITS, "Another vehicle's WakeSource (a row of zeros: "
           "none)", SOURCE_LABELS, columns=SOURCE_SIZE),
)
EXTRA_OUTPUTS = SignalTable(
    Signal("WakeSource", SOURCE_SIZE, SOURCE_UNITS, "This vehicle's hull wake and propeller jet, for "
           "the others' WakeSources (all zero unless CastWake and a speed through the water of at "
           "least WakeMinSpeed)", SOURCE_LABELS),
    Signal("WakeVelocity", 3, "m/s", "Water velocity of the others' wakes at the body origin over the "
           "step just ended, NED", NED),
    Signal("Omega", 3, "rad/s", "Angular velocity in the body frame (roll, pitch and yaw rates: the "
           "state's Omega)", XYZ),
    Signal("Latitude", 1, "deg", "Latitude of the body origin, WGS 84 (NED about OriginLatitude, "
           "OriginLongitude: the geodesic of length hypot(north, east) at azimuth atan2(east, north))"),
    Signal("Longitude", 1, "deg", "Longitude of the body origin, WGS 84"),
)
STATE_SIZE = STATE.size
INPUT_SIZE = INPUTS.size
OUTPUT_SIZE = OUTPUTS.size
#: where the wake block starts in the held inputs, how many values a caller gives (the table's
#: inputs and the rows), and the size of the array the integrator reads them from
U_WAKE = INPUT_SIZE
GIVEN_INPUTS = INPUT_SIZE + SOURCES_SIZE
INPUT_ARRAY_SIZE = INPUT_SIZE + WAKE_BLOCK
#: where the FMU keeps the wake outputs: after the table's outputs, in the same array
Y_WAKE_SOURCE = OUTPUT_SIZE
EXTRA_OUTPUT_SIZE = EXTRA_OUTPUTS.size
Y_WAKE_VELOCITY = OUTPUT_SIZE + SOURCE_SIZE
#: the body rates, after the wake outputs (added later: no value reference moved)
Y_OMEGA = OUTPUT_SIZE + EXTRA_OUTPUTS.start("Omega")
Y_LATITUDE = OUTPUT_SIZE + EXTRA_OUTPUTS.start("Latitude")
Y_LONGITUDE = OUTPUT_SIZE + EXTRA_OUTPUTS.start("Longitude")
#: Boolean outputs (name, description), 1.0 / 0.0 in the FMU's array after the extra outputs
FLAG_OUTPUTS = (("SeabedContact", "The hull's lowest point (body origin depth + radius) is below the "
                 "seabed: the contact force acts (auv_cosim.vehicles.contact)"),)
Y_SEABED_CONTACT = OUTPUT_SIZE + EXTRA_OUTPUT_SIZE
BATTERY = STATE.start("Battery")
# The compiled functions slice the state and the outputs with these integers (numba freezes
# a global integer into the compiled code; a global slice object it would unpickle per call).
X_POS, X_QUAT, X_VEL, X_OMEGA = (STATE.start(n) for n in ("Pos", "Quater", "LocalVel", "Omega"))
assert X_OMEGA == X_VEL + 3, "the velocity block of the Jacobian takes LocalVel, Omega together"
U_THRUST_POWER, U_RUDDER_YAW, U_RUDDER_DIVE, U_EXTERNAL_FORCE = (
    INPUTS.start(n) for n in ("ThrustPower", "RudderYaw", "RudderDive", "ExternalForce"))
Y_POS, Y_VEL, Y_QUAT, Y_EULER = (OUTPUTS.start(n) for n in ("Pos", "Vel", "Quater", "Euler"))
Y_HEADING, Y_PITCH, Y_DEPTH, Y_SPEED = (OUTPUTS.start(n) for n in ("Heading", "Pitch", "Depth", "Speed"))
Y_ALTITUDE, Y_SEA_DEPTH, Y_BATTERY, Y_BATTERY_FRACTION, Y_THRUST = (
    OUTPUTS.start(n) for n in ("Altitude", "SeaDepth", "Battery", "BatteryFraction", "Thrust"))

# ---- the constant vector: one slot per line, its size and where its value comes from
# (p: AuvParameters, e: Environment, h: HullProperties, w: AuvWakeParameters). Declared in
# this file because the compiled functions below read the indices (see
# auv_cosim.vehicles.protocol, step 3).
CONSTANTS = ConstantTable()
C_MASS = CONSTANTS.add("mass", 1, lambda p, e, h, w: h.mass)
C_VOLUME = CONSTANTS.add("volume", 1, lambda p, e, h, w: h.volume)
C_RADIUS = CONSTANTS.add("radius", 1, lambda p, e, h, w: h.radius)
C_RHO = CONSTANTS.add("Rho", 1, lambda p, e, h, w: p.Rho)
C_GRAVITY = CONSTANTS.add("Gravity", 1, lambda p, e, h, w: e.Gravity)
C_COG = CONSTANTS.add("COG", 3, lambda p, e, h, w: p.COG)
C_INERTIA = CONSTANTS.add("rigid-body inertia Ixx Iyy Izz", 3,
                          lambda p, e, h, w: (h.inertia_xx, h.inertia_yy, h.inertia_yy))
C_ADDED = CONSTANTS.add("AddedMass", 6, lambda p, e, h, w: p.AddedMass)
C_MASS_INV = CONSTANTS.add("diagonal of M^-1", 6, lambda p, e, h, w: _inverse_mass_diagonal(p, h))
C_THRUST_PER_POWER = CONSTANTS.add("ThrustPerPower", 1, lambda p, e, h, w: p.ThrustPerPower)
C_MAX_POWER = CONSTANTS.add("MaxPropulsionPower", 1, lambda p, e, h, w: p.MaxPropulsionPower)
C_HOTEL = CONSTANTS.add("HotelPower", 1, lambda p, e, h, w: p.HotelPower)
C_THRUSTER_POS = CONSTANTS.add("ThrusterPos", 3, lambda p, e, h, w: p.ThrusterPos)
C_FRONTAL_AREA = CONSTANTS.add("frontal area", 1, lambda p, e, h, w: frontal_area(p.Diameter))
C_AXIAL_CD = CONSTANTS.add("AxialDragCoeff", 1, lambda p, e, h, w: p.AxialDragCoeff)
C_CROSS_FLOW_CD = CONSTANTS.add("CrossFlowDragCoeff", 1, lambda p, e, h, w: p.CrossFlowDragCoeff)
C_SECTION_X = CONSTANTS.add("section x", 3, lambda p, e, h, w: p.section_x)
C_SECTION_D = CONSTANTS.add("section diameter", 3, lambda p, e, h, w: p.section_diameter)
C_SECTION_L = CONSTANTS.add("section length", 3, lambda p, e, h, w: p.section_length)
C_ROLL_LINEAR = CONSTANTS.add("RollDampingLinear", 1, lambda p, e, h, w: p.RollDampingLinear)
C_ROLL_QUADRATIC = CONSTANTS.add("RollDampingQuadratic", 1, lambda p, e, h, w: p.RollDampingQuadratic)
C_RUDDER_AREA = CONSTANTS.add("RudderArea", 1, lambda p, e, h, w: p.RudderArea)
C_RUDDER_AR = CONSTANTS.add("RudderAspectRatio", 1, lambda p, e, h, w: p.RudderAspectRatio)
C_RUDDER_POS = CONSTANTS.add("RudderPos", 3, lambda p, e, h, w: p.RudderPos)
C_RUDDER_CL_MAX = CONSTANTS.add("RudderClMax", 1, lambda p, e, h, w: p.RudderClMax)
C_RUDDER_AOA_MAX = CONSTANTS.add("RudderAoaMax", 1, lambda p, e, h, w: p.RudderAoaMax)
C_RUDDER_CD0 = CONSTANTS.add("RudderCd0", 1, lambda p, e, h, w: p.RudderCd0)
C_RUDDER_OSWALD = CONSTANTS.add("RudderOswald", 1, lambda p, e, h, w: p.RudderOswald)
C_MAX_RUDDER = CONSTANTS.add("MaxRudderAngle", 1, lambda p, e, h, w: p.MaxRudderAngle)
C_QUAT_TAU = CONSTANTS.add("QuaternionConvergenceTime", 1, lambda p, e, h, w: p.QuaternionConvergenceTime)
# The seabed (auv_cosim.vehicles.bathymetry): where its grid starts after the table and the wave
# rows (0: no grid, the plane above), and the NED origin on WGS 84; set by `pack_constants`.
C_SEABED_AT = CONSTANTS.add("seabed grid start", 1, lambda p, e, h, w: 0.0)
C_ORIGIN = CONSTANTS.add("OriginLatitude, OriginLongitude", 2, lambda p, e, h, w: (0.0, 0.0))
C_CURRENT = CONSTANTS.add("CurrentVelocity", 3, lambda p, e, h, w: e.CurrentVelocity)
C_CURRENT_GRADIENT = CONSTANTS.add("CurrentDepthGradient", 3, lambda p, e, h, w: e.CurrentDepthGradient)
C_SEA_FLOOR = CONSTANTS.add("SeaFloorDepth", 1, lambda p, e, h, w: e.SeaFloorDepth)
C_SEA_FLOOR_SLOPE = CONSTANTS.add("SeaFloorSlope", 2, lambda p, e, h, w: e.SeaFloorSlope)
C_INITIAL_BATTERY = CONSTANTS.add("InitialBattery", 1, lambda p, e, h, w: p.InitialBattery)
# The waves (docs/physics/environment.md#waves): their count and direction here, their rows (a, w, k, phi) appended after
# the table (`pack_constants`); a count of 0 is still water.
C_WAVE_COUNT = CONSTANTS.add("wave components", 1, lambda p, e, h, w: 0.0)
C_WAVE_DIRECTION = CONSTANTS.add("WaveDirection", 1, lambda p, e, h, w: 0.0)
# The separated end of the slender-body lift: aft end of the aftmost section going ahead,
# forward end of the foremost going astern (sections are ordered bow to stern).
C_LIFT_X_AFT = CONSTANTS.add("lift end x, ahead", 1,
                             lambda p, e, h, w: p.section_x[2] - p.section_length[2] / 2.0)
C_LIFT_AREA_AFT = CONSTANTS.add("lift end area, ahead", 1,
                                lambda p, e, h, w: frontal_area(p.section_diameter[2]))
C_LIFT_X_FORE = CONSTANTS.add("lift end x, astern", 1,
                              lambda p, e, h, w: p.section_x[0] + p.section_length[0] / 2.0)
C_LIFT_AREA_FORE = CONSTANTS.add("lift end area, astern", 1,
                                 lambda p, e, h, w: frontal_area(p.section_diameter[0]))
# The wakes (docs/physics/environment.md#wakes): how this vehicle meets the others' (the field's
# parameters, the update mode) and what it casts (its stern, its diameters, whether it casts, from
# what speed).
C_WAKE_SPREAD = CONSTANTS.add("WakeSpreadRate", 1, lambda p, e, h, w: w.WakeSpreadRate)
C_JET_SPREAD = CONSTANTS.add("JetSpreadRate", 1, lambda p, e, h, w: w.JetSpreadRate)
C_WAKE_LENGTH = CONSTANTS.add("WakeLength", 1, lambda p, e, h, w: w.WakeLength)
C_WAKE_EVALUATION = CONSTANTS.add("ExternalWakeUpdate is Evaluation", 1, lambda p, e, h, w: w.evaluation)
C_CAST_WAKE = CONSTANTS.add("CastWake", 1, lambda p, e, h, w: 1.0 if w.CastWake else 0.0)
C_WAKE_MIN_SPEED = CONSTANTS.add("WakeMinSpeed", 1, lambda p, e, h, w: w.WakeMinSpeed)
C_STERN = CONSTANTS.add("stern, body frame", 3, lambda p, e, h, w: (-p.Length / 2.0, 0.0, 0.0))
C_DIAMETER = CONSTANTS.add("Diameter", 1, lambda p, e, h, w: p.Diameter)
C_PROPELLER_DIAMETER = CONSTANTS.add("propeller diameter", 1,
                                     lambda p, e, h, w: w.propeller_diameter(p.Diameter))
CONSTANT_COUNT = CONSTANTS.size


def _inverse_mass_diagonal(params, hull):
    """The diagonal of (M_RB + M_A)^-1: rigid body (m, m, m, Ixx, Iyy, Izz) plus added mass."""
    rigid = np.array([hull.mass] * 3 + [hull.inertia_xx, hull.inertia_yy, hull.inertia_yy])
    return 1.0 / (rigid + np.asarray(params.AddedMass, dtype=float))


def pack_constants(params, env, waves=None, wake=None, origin=(0.0, 0.0), seabed=None):
    """The flat constant vector of an `AuvParameters`, an `Environment`, the sea (a
    `WaveParameters`, None for still water), the wakes (an `AuvWakeParameters`, None for
    the defaults: casting nothing), the NED origin (latitude, longitude) and the seabed (an
    `auv_cosim.seabed.Seabed`, None for the plane): the table's slots, the wave rows, the grid."""
    hull = hull_properties_of(params.Length, params.Diameter, params.AverageDensity)
    c = CONSTANTS.pack(params, env, hull, wake if wake is not None else AuvWakeParameters())
    c[C_ORIGIN:C_ORIGIN + 2] = origin
    rows = np.zeros((0, 4)) if waves is None else wave_components(waves, env.Gravity)
    if rows.shape[0] > 0:
        c[C_WAVE_COUNT] = rows.shape[0]
        c[C_WAVE_DIRECTION] = waves.WaveDirection
        c = np.concatenate([c, rows.ravel()])
    if seabed is not None:
        c[C_SEABED_AT] = c.size
        c = np.concatenate([c, seabed_block(seabed)])
    return c


@jit
def seabed_at(north, east, c):
    """(depth, d depth/d north, d depth/d east) of the seabed at (north, east): the grid's when
    there is one (NaN off it), else the plane SeaFloorDepth + SeaFloorSlope . (north, east)."""
    return seabed_under(north, east, c, int(c[C_SEABED_AT]), c[C_SEA_FLOOR], c[C_SEA_FLOOR_SLOPE:C_SEA_FLOOR_SLOPE + 2])


@jit
def wave_motion(t, pos, c):
    """The waves' water velocity and acceleration at `pos` (NED), from the rows after the table."""
    n = int(c[C_WAVE_COUNT])
    rows = c[CONSTANT_COUNT:CONSTANT_COUNT + 4 * n].reshape((n, 4))
    return wave_kinematics(t, pos, rows, c[C_WAVE_DIRECTION])


@jit
def water_velocity_ned(depth, c):
    """The current at `depth`, NED, a tuple (auv_cosim.vehicles.environment.current_ned, element by
    element)."""
    return (current_ned(depth, c[C_CURRENT], c[C_CURRENT_GRADIENT]),
            current_ned(depth, c[C_CURRENT + 1], c[C_CURRENT_GRADIENT + 1]),
            current_ned(depth, c[C_CURRENT + 2], c[C_CURRENT_GRADIENT + 2]))


@jit
def propulsion_power(commanded_power, battery, c):
    """clamp(ThrustPower, 0, MaxPropulsionPower), zero while the battery is flat."""
    if battery <= 0.0:
        return 0.0
    return min(max(commanded_power, 0.0), c[C_MAX_POWER])


@jit
def compute_thrust(power, surge_speed, c):
    """T = ThrustPerPower * P: speed independent (seed 001); the one place to change the law."""
    return c[C_THRUST_PER_POWER] * power


@jit
def _rudder(plane, rel_vel, omega, deflection, c):
    return rudder_wrench(plane, rel_vel, omega, deflection, c[C_RHO], c[C_RUDDER_AREA],
                         c[C_RUDDER_AR], triple(c, C_RUDDER_POS), c[C_RUDDER_CL_MAX],
                         c[C_RUDDER_AOA_MAX], c[C_RUDDER_CD0], c[C_RUDDER_OSWALD],
                         c[C_MAX_RUDDER])


@jit
def _rudder_jacobian(plane, rel_vel, omega, deflection, c):
    return rudder_wrench_jacobian(plane, rel_vel, omega, deflection, c[C_RHO], c[C_RUDDER_AREA],
                                  c[C_RUDDER_AR], c[C_RUDDER_POS:C_RUDDER_POS + 3],
                                  c[C_RUDDER_CL_MAX], c[C_RUDDER_AOA_MAX], c[C_RUDDER_CD0],
                                  c[C_RUDDER_OSWALD], c[C_MAX_RUDDER])


@jit
def hull_wrench(rel_vel, omega, c):
    """The hull's velocity-dependent wrench (a tuple): axial drag, strip theory and slender-body
    lift (docs/physics/auv.md#axial-drag, #cross-flow-strip-theory, #hull-lift), summed in this
    order."""
    w = axial_drag_wrench(rel_vel, c[C_RHO], c[C_FRONTAL_AREA], c[C_AXIAL_CD])
    w = wrench_add(w, cross_flow_strip_wrench(
        rel_vel, omega, c[C_RHO], c[C_CROSS_FLOW_CD], triple(c, C_SECTION_X),
        triple(c, C_SECTION_D), triple(c, C_SECTION_L)))
    return wrench_add(w, slender_body_lift_wrench(
        rel_vel, omega, c[C_RHO], c[C_LIFT_X_AFT], c[C_LIFT_AREA_AFT], c[C_LIFT_X_FORE],
        c[C_LIFT_AREA_FORE]))


@jit
def with_fins(w, rel_vel, omega, rudder_yaw, rudder_dive, c):
    """w plus the yaw plane's wrench, then the dive plane's (docs/physics/auv.md#fins; nothing
    without fins)."""
    if c[C_RUDDER_AREA] > 0.0:
        w = wrench_add(w, _rudder(YAW_PLANE, rel_vel, omega, rudder_yaw, c))
        w = wrench_add(w, _rudder(DIVE_PLANE, rel_vel, omega, rudder_dive, c))
    return w


@jit
def hydrodynamic_wrench(rel_vel, omega, rudder_yaw, rudder_dive, c):
    """Every velocity-dependent wrench (a tuple): hull drag, strip theory, slender-body lift,
    roll damping, both fin planes and the Coriolis-centripetal (Munk) terms, summed in this
    order."""
    w = hull_wrench(rel_vel, omega, c)
    roll = w[3] + roll_damping_moment(omega[0], c[C_ROLL_LINEAR], c[C_ROLL_QUADRATIC])
    w = with_fins((w[0], w[1], w[2], roll, w[4], w[5]), rel_vel, omega, rudder_yaw, rudder_dive, c)
    return wrench_add(w, coriolis_wrench(rel_vel, omega, c[C_MASS], triple(c, C_INERTIA),
                                         triple(c, C_ADDED), triple(c, C_ADDED + 3)))


@jit
def resisting_force(rel_vel, omega, rudder_yaw, rudder_dive, c):
    """The force (body frame, a 3-tuple) of the hull and the fins: axial drag, strip theory, hull
    lift and fins (docs/physics/auv.md#equations-of-motion), what the resistance F_D of the
    published wake source is taken from (docs/physics/environment.md#wake-source; the Coriolis
    terms and the roll damping do no work against the flow)."""
    w = with_fins(hull_wrench(rel_vel, omega, c), rel_vel, omega, rudder_yaw, rudder_dive, c)
    return (w[0], w[1], w[2])


@jit
def others_wake(x, u, c):
    """The water velocity of the others' wakes at the body origin, NED
    (docs/physics/environment.md#meeting-wakes), as the step sees it: the value held since its start
    ("Step") or the field at x ("Evaluation"). Only where `meets_wake(u, U_WAKE)`."""
    return held_wake_velocity((x[X_POS], x[X_POS + 1], x[X_POS + 2]), u, U_WAKE,
                              c[C_WAKE_EVALUATION] > 0.0, c[C_WAKE_SPREAD], c[C_JET_SPREAD],
                              c[C_WAKE_LENGTH])


@jit
def hold_inputs(x, u, c):
    """At a step's start: the wake block of the held inputs u filled from the rows in it and the
    state x (auv_cosim.vehicles.wake.hold_wake); 0, or the code of a malformed row. Nothing to do
    for inputs without the block."""
    if u.shape[0] < INPUT_ARRAY_SIZE:
        return 0
    return hold_wake((x[X_POS], x[X_POS + 1], x[X_POS + 2]), u, U_WAKE, c[C_WAKE_EVALUATION] > 0.0,
                     c[C_WAKE_SPREAD], c[C_JET_SPREAD], c[C_WAKE_LENGTH])


def input_problem(code, u):
    """The words of a `hold_inputs` code: which row and element of WakeSources is malformed."""
    return describe_source_problem(code, u, U_WAKE)


@jit
def hydrodynamic_jacobian(rel_vel, omega, rudder_yaw, rudder_dive, c):
    """d(hydrodynamic_wrench)/d(v_r, omega), 6 x 6: the complete velocity block."""
    j = axial_drag_jacobian(rel_vel, c[C_RHO], c[C_FRONTAL_AREA], c[C_AXIAL_CD])
    j += cross_flow_strip_jacobian(rel_vel, omega, c[C_RHO], c[C_CROSS_FLOW_CD],
                                   c[C_SECTION_X:C_SECTION_X + 3],
                                   c[C_SECTION_D:C_SECTION_D + 3],
                                   c[C_SECTION_L:C_SECTION_L + 3])
    j += slender_body_lift_jacobian(rel_vel, omega, c[C_RHO], c[C_LIFT_X_AFT],
                                    c[C_LIFT_AREA_AFT], c[C_LIFT_X_FORE], c[C_LIFT_AREA_FORE])
    j[3, 3] += roll_damping_slope(omega[0], c[C_ROLL_LINEAR], c[C_ROLL_QUADRATIC])
    if c[C_RUDDER_AREA] > 0.0:
        j += _rudder_jacobian(YAW_PLANE, rel_vel, omega, rudder_yaw, c)[0]
        j += _rudder_jacobian(DIVE_PLANE, rel_vel, omega, rudder_dive, c)[0]
    j += coriolis_jacobian(rel_vel, omega, c[C_MASS], c[C_INERTIA:C_INERTIA + 3],
                           c[C_ADDED:C_ADDED + 3], c[C_ADDED + 3:C_ADDED + 6])
    return j


@jit
def state_derivative(x, u, c):
    """x' for the state x, the inputs u held, and the constants c (see the module docstring),
    in still water (the waves need the time: `state_derivative_at`)."""
    return _derivative(0.0, x, u, c, False)


@jit
def _derivative(t, x, u, c, in_waves):
    """x' at time t, a new array (see `_write_derivative`)."""
    xdot = np.empty(STATE_SIZE)
    _write_derivative(t, x, u, c, in_waves, xdot)
    return xdot


@jit
def _write_derivative(t, x, u, c, in_waves, xdot):
    """x' at time t, written into `xdot`; `in_waves` adds the waves
    (docs/physics/environment.md#wave-forces; and nothing, not even a zero, when
    False: still water stays bit for bit what it was).

    The others' wakes (docs/physics/environment.md#meeting-wakes) add their water velocity to the
    current's wherever it enters (v_r and -omega x v_w), held over the step or evaluated at x
    (`others_wake`); their acceleration is neglected.

    In waves the water velocity at the body origin adds the waves' v_w, and their acceleration
    a_w acts through the Froude-Krylov force and the added mass, (rho Vol I + A) R^T a_w at the
    centre of buoyancy (the origin: no moment). In the relative velocity the equations carry,
    M v_r' = tau + (rho Vol I + A) R^T a_w - (m I + A) R^T a_w = tau + (rho Vol - m) R^T a_w,
    and LocalVel' = v_r' + R^T a_w - omega x v_w^b (the local acceleration only;
    docs/physics/environment.md#wave-forces).
    """
    q = x[X_QUAT:X_QUAT + 4]
    vel = triple(x, X_VEL)
    omega = triple(x, X_OMEGA)
    depth = x[X_POS + 2]
    battery = x[BATTERY]
    rotation = rotation_matrix(q)
    water_ned = water_velocity_ned(depth, c)
    if meets_wake(u, U_WAKE):
        water_ned = add3(water_ned, others_wake(x, u, c))
    if in_waves:
        wave_velocity, wave_acceleration = wave_motion(t, x[X_POS:X_POS + 3], c)
        water_ned = add3(water_ned, wave_velocity)
    water = rotate_back3(rotation, water_ned)
    rel_vel = sub3(vel, water)

    power = propulsion_power(u[U_THRUST_POWER], battery, c)
    tau = weight_and_buoyancy_wrench(rotation, depth, c[C_MASS], c[C_VOLUME], c[C_RADIUS],
                                     c[C_RHO], c[C_GRAVITY], triple(c, C_COG),
                                     submerged_fraction(depth, c[C_RADIUS]))
    tau = wrench_add(tau, thrust_wrench(compute_thrust(power, rel_vel[0], c),
                                        triple(c, C_THRUSTER_POS)))
    tau = wrench_add(tau, hydrodynamic_wrench(rel_vel, omega, u[U_RUDDER_YAW], u[U_RUDDER_DIVE], c))
    tau = wrench_add(tau, external_force_wrench(rotation, triple(u, U_EXTERNAL_FORCE)))
    contact = _seabed_contact(x, rotation, c)
    if contact[3] > 0.0:   # touching the seabed (nothing is added clear of it)
        tau = wrench_add(tau, external_force_wrench(rotation, (contact[0], contact[1], contact[2])))
    if in_waves:
        froude_krylov = scale3(c[C_RHO] * c[C_VOLUME] - c[C_MASS],
                               rotate_back3(rotation, wave_acceleration))
        tau = (tau[0] + froude_krylov[0], tau[1] + froude_krylov[1], tau[2] + froude_krylov[2],
               tau[3], tau[4], tau[5])

    pos_rate = rotate3(rotation, vel)
    xdot[X_POS] = pos_rate[0]
    xdot[X_POS + 1] = pos_rate[1]
    xdot[X_POS + 2] = pos_rate[2]
    xdot[X_QUAT:X_QUAT + 4] = quaternion_derivative(q, omega, c[C_QUAT_TAU])
    shear = scale3(xdot[X_POS + 2], triple(c, C_CURRENT_GRADIENT))
    vel_rate = add3(sub3(_acceleration(tau, c, 0), cross3(omega, water)),
                    rotate_back3(rotation, shear))
    if in_waves:
        vel_rate = add3(vel_rate, rotate_back3(rotation, wave_acceleration))
    omega_rate = _acceleration(tau, c, 3)
    for i in range(3):
        xdot[X_VEL + i] = vel_rate[i]
        xdot[X_OMEGA + i] = omega_rate[i]
    xdot[BATTERY] = -(power + c[C_HOTEL]) if battery > 0.0 else 0.0


@jit
def _seabed_contact(x, rotation, c):
    """The seabed's contact on the hull (auv_cosim.vehicles.contact.contact_force_ned)."""
    return seabed_contact(x[X_POS], x[X_POS + 1], x[X_POS + 2] + c[C_RADIUS], rotate3(rotation, triple(x, X_VEL)), c,
                          int(c[C_SEABED_AT]), c[C_SEA_FLOOR], c[C_SEA_FLOOR_SLOPE:C_SEA_FLOOR_SLOPE + 2])


@jit
def _acceleration(tau, c, start):
    """M^-1 tau for the three components of the wrench `tau` from `start` (0: linear, 3:
    angular): M is diagonal, its inverse in the constants."""
    return (c[C_MASS_INV + start] * tau[start], c[C_MASS_INV + start + 1] * tau[start + 1],
            c[C_MASS_INV + start + 2] * tau[start + 2])


@jit
def state_derivative_at(t, x, u, c):
    """x' at time t, the signature SciPy's integrators call (the time matters in waves only)."""
    return _derivative(t, x, u, c, c[C_WAVE_COUNT] > 0.0)


@jit
def state_derivative_into(t, x, u, c, xdot):
    """`state_derivative_at` written into the array `xdot`, returning nothing: the form the
    simulator hands to SciPy (`VehicleSimulator`; handing a new array back to Python costs
    twice what computing it does)."""
    _write_derivative(t, x, u, c, c[C_WAVE_COUNT] > 0.0, xdot)


@jit
def state_derivative_packed(t, x, work):
    """`state_derivative_into` with u, c and xdot in one array (auv_cosim.vehicles.packed: SciPy
    hands the simulator's right-hand side three arguments instead of five)."""
    u, c, xdot = unpack_arguments(work)
    _write_derivative(t, x, u, c, c[C_WAVE_COUNT] > 0.0, xdot)


@jit
def state_jacobian(x, u, c):
    """d x' / d x in still water, 14 x 14: the Jacobian of `state_derivative` (the pair the
    linearisation uses). In waves: `state_jacobian_at`."""
    return _state_jacobian(0.0, x, u, c, False)


@jit
def state_jacobian_at(t, x, u, c):
    """d x' / d x at time t, waves included when there are any: the Jacobian of
    `state_derivative_at`."""
    return _state_jacobian(t, x, u, c, c[C_WAVE_COUNT] > 0.0)


@jit
def _water_body(t, x, u, rotation, c, in_waves):
    """The water's velocity at the body origin in the body frame: the current, the others'
    wakes, and in waves the waves' velocity at time t."""
    water_ned = np.array(water_velocity_ned(x[X_POS + 2], c))
    if meets_wake(u, U_WAKE):
        water_ned = water_ned + np.array(others_wake(x, u, c))
    if in_waves:
        water_ned = water_ned + wave_motion(t, x[X_POS:X_POS + 3], c)[0]
    return rotation.T @ water_ned


@jit
def _state_jacobian(t, x, u, c, in_waves):
    """d x' / d x, 14 x 14.

    Analytic (seed 000 and 003): dPos'/dQuater (dR/dq v), dPos'/dLocalVel = R,
    dQuater'/dQuater (rate matrix and norm term), dQuater'/dOmega = T(q), and the complete
    6 x 6 velocity block with the fins. Left to central differences, as the seed does: the
    velocity rows against Pos and Quater (weight and buoyancy against attitude, the submerged
    fraction, the current's dependence on depth and attitude). The battery row and column are
    zero: the discharge and the flat-battery switch do not depend smoothly on a state.

    In waves (`in_waves`) the water velocity in v_r and in -omega x v_w counts the waves' at
    time t, and the differences of the velocity rows against Pos and Quater are those of the
    derivative in waves: the waves' velocity and acceleration change with the position (their
    phase with north and east, their decay with depth) and turn with the attitude. Their
    acceleration does not depend on the velocity, so the analytic blocks take nothing else.
    """
    q = x[X_QUAT:X_QUAT + 4]
    vel = x[X_VEL:X_VEL + 3]
    omega = x[X_OMEGA:X_OMEGA + 3]
    rotation = rotation_matrix(q)
    water = _water_body(t, x, u, rotation, c, in_waves)
    rel_vel = vel - water
    j = np.zeros((STATE_SIZE, STATE_SIZE))

    d_rotation = rotation_matrix_derivatives(q)
    for k in range(4):
        j[X_POS:X_POS + 3, X_QUAT + k] = d_rotation[k] @ vel
    j[X_POS:X_POS + 3, X_VEL:X_VEL + 3] = rotation
    j[X_QUAT:X_QUAT + 4, X_QUAT:X_QUAT + 4] = quaternion_derivative_jacobian(q, omega, c[C_QUAT_TAU])
    j[X_QUAT:X_QUAT + 4, X_OMEGA:X_OMEGA + 3] = quaternion_rate_matrix(q)

    # the velocity block: (LocalVel, Omega) against themselves, six consecutive states
    block = hydrodynamic_jacobian(rel_vel, omega, u[U_RUDDER_YAW], u[U_RUDDER_DIVE], c)
    for row in range(6):
        block[row, :] *= c[C_MASS_INV + row]
    gradient = c[C_CURRENT_GRADIENT:C_CURRENT_GRADIENT + 3]
    j[X_VEL:X_VEL + 6, X_VEL:X_VEL + 6] = block
    j[X_VEL:X_VEL + 3, X_OMEGA:X_OMEGA + 3] += skew(water)          # -omega x v_w = v_w x omega
    j[X_VEL:X_VEL + 3, X_VEL:X_VEL + 3] += np.outer(rotation.T @ gradient, rotation[2, :])  # R^T G z', z' = R_3 v
    contact = _seabed_contact(x, rotation, c)
    if contact[3] > 0.0:   # the contact's damping: -g n n^T on v_ned = R v, b = R^T n, row-scaled by M^-1
        b = rotation.T @ np.array((contact[4], contact[5], contact[6]))
        j[X_VEL:X_VEL + 3, X_VEL:X_VEL + 3] -= contact[3] * np.outer(c[C_MASS_INV:C_MASS_INV + 3] * b, b)

    # In "Evaluation" mode the others' wakes move with the position: the differences take them
    # frozen at their value at x (as "Step" holds them), and their gradient enters analytically
    # below, through the water velocity (the 5-sigma cut's jump would spoil a difference).
    evaluating = meets_wake(u, U_WAKE) and c[C_WAKE_EVALUATION] > 0.0
    held, constants = u, c
    if evaluating:
        held, constants = _frozen_wake(x, u, c)
    for col in range(X_POS, X_QUAT + 4):   # the velocity rows against Pos and Quater
        step = 1e-6 * max(1.0, abs(x[col]))
        plus = x.copy()
        minus = x.copy()
        plus[col] += step
        minus[col] -= step
        difference = (_derivative(t, plus, held, constants, in_waves)
                      - _derivative(t, minus, held, constants, in_waves)) / (2.0 * step)
        j[X_VEL:X_VEL + 6, col] = difference[X_VEL:X_VEL + 6]
    if evaluating:
        # d(LocalVel', Omega')/d(v_w in the body frame) = -(the velocity block's v_r columns),
        # and -S(omega) on LocalVel' from -omega x v_w; v_w = R^T V(Pos): times R^T dV/dPos
        through_water = -block[:, 0:3]
        through_water[0:3, :] -= skew(omega)
        gradient = wake_velocity_gradient((x[X_POS], x[X_POS + 1], x[X_POS + 2]), u, U_WAKE,
                                          c[C_WAKE_SPREAD], c[C_JET_SPREAD], c[C_WAKE_LENGTH])
        j[X_VEL:X_VEL + 6, X_POS:X_POS + 3] += through_water @ (np.ascontiguousarray(rotation.T) @ gradient)
    return j


@jit
def _frozen_wake(x, u, c):
    """(u, c) as a "Step" vehicle would hold them at x: the wake held at its value at x, the mode
    "Step" (copies; the Jacobian's differences in "Evaluation" mode)."""
    held = u.copy()
    wake = others_wake(x, u, c)
    for i in range(3):
        held[U_WAKE + HELD_VELOCITY + i] = wake[i]
    constants = c.copy()
    constants[C_WAKE_EVALUATION] = 0.0
    return held, constants


@jit
def input_jacobian(x, u, c):
    """d x' / d u in still water, 14 x 6 (of `state_derivative`). In waves: `input_jacobian_at`."""
    return _input_jacobian(0.0, x, u, c, False)


@jit
def input_jacobian_at(t, x, u, c):
    """d x' / d u at time t, waves included when there are any (of `state_derivative_at`)."""
    return _input_jacobian(t, x, u, c, c[C_WAVE_COUNT] > 0.0)


@jit
def _input_jacobian(t, x, u, c, in_waves):
    """d x' / d u, 14 x 6, analytic (in waves, the fins see the waves' water velocity too).

    ThrustPower: ThrustPerPower along body x at ThrusterPos and -1 on the battery, inside the
    clamp and while the battery holds energy; zero elsewhere. RudderYaw, RudderDive: the fin
    wrench's deflection derivative, zero outside the stop. ExternalForce: M^-1 R^T.
    """
    q = x[X_QUAT:X_QUAT + 4]
    omega = x[X_OMEGA:X_OMEGA + 3]
    rotation = rotation_matrix(q)
    water = _water_body(t, x, u, rotation, c, in_waves)
    rel_vel = x[X_VEL:X_VEL + 3] - water
    minv = c[C_MASS_INV:C_MASS_INV + 6]
    b = np.zeros((STATE_SIZE, INPUT_SIZE))
    if x[BATTERY] > 0.0 and 0.0 < u[U_THRUST_POWER] < c[C_MAX_POWER]:
        dw = np.array(thrust_wrench(c[C_THRUST_PER_POWER], triple(c, C_THRUSTER_POS)))
        b[X_VEL:X_VEL + 6, U_THRUST_POWER] = minv * dw
        b[BATTERY, U_THRUST_POWER] = -1.0
    if c[C_RUDDER_AREA] > 0.0:
        b[X_VEL:X_VEL + 6, U_RUDDER_YAW] = minv * _rudder_jacobian(
            YAW_PLANE, rel_vel, omega, u[U_RUDDER_YAW], c)[1]
        b[X_VEL:X_VEL + 6, U_RUDDER_DIVE] = minv * _rudder_jacobian(
            DIVE_PLANE, rel_vel, omega, u[U_RUDDER_DIVE], c)[1]
    b[X_VEL:X_VEL + 3, U_EXTERNAL_FORCE:U_EXTERNAL_FORCE + 3] = rotation.T * minv[0:3].reshape(3, 1)
    return b


@jit
def output_vector(t, x, u, c):
    """The outputs of seed 001 at time t as one flat vector, in the order of `OUTPUTS` (see
    `write_outputs`)."""
    out = np.full(OUTPUT_SIZE, np.nan)   # NaN: a slot nobody fills shows (a test checks)
    write_outputs(t, x, u, c, out)
    return out


@jit
def write_outputs(t, x, u, c, out):
    """The outputs of seed 001 at time t written into `out`, in the order of `OUTPUTS` (the
    speed through the water counts the waves' water velocity)."""
    q = x[X_QUAT:X_QUAT + 4]
    rotation = rotation_matrix(q)
    depth = x[X_POS + 2]
    water_ned = water_velocity_ned(depth, c)
    wake = (0.0, 0.0, 0.0)
    if meets_wake(u, U_WAKE):
        wake = others_wake(x, u, c)
        water_ned = add3(water_ned, wake)
    still_water_ned = water_ned        # no waves: what the published wake trails in
    if c[C_WAVE_COUNT] > 0.0:
        water_ned = add3(water_ned, wave_motion(t, x[X_POS:X_POS + 3], c)[0])
    water = rotate_back3(rotation, water_ned)
    euler = euler_angles(rotation)
    battery = max(x[BATTERY], 0.0)
    sea_depth = seabed_at(x[X_POS], x[X_POS + 1], c)[0]
    out[Y_POS:Y_POS + 3] = x[X_POS:X_POS + 3]
    vel_ned = rotate3(rotation, triple(x, X_VEL))
    for i in range(3):
        out[Y_VEL + i] = vel_ned[i]
    out[Y_QUAT:Y_QUAT + 4] = q
    out[Y_EULER:Y_EULER + 3] = euler
    out[Y_HEADING] = euler[2]
    out[Y_PITCH] = euler[1]
    out[Y_DEPTH] = depth
    out[Y_SPEED] = x[X_VEL] - water[0]                 # through the water
    out[Y_ALTITUDE] = sea_depth - depth
    out[Y_SEA_DEPTH] = sea_depth
    out[Y_BATTERY] = battery
    out[Y_BATTERY_FRACTION] = battery / c[C_INITIAL_BATTERY] if c[C_INITIAL_BATTERY] > 0.0 else 0.0
    out[Y_THRUST] = compute_thrust(propulsion_power(u[U_THRUST_POWER], x[BATTERY], c), out[Y_SPEED], c)
    if out.shape[0] > OUTPUT_SIZE:    # the FMU's array: the wake outputs and the rates after the table's
        write_wake_outputs(x, u, c, rotation, still_water_ned, wake, out[Y_THRUST], out)
        if out.shape[0] >= Y_OMEGA + 3:
            for i in range(3):
                out[Y_OMEGA + i] = x[X_OMEGA + i]
        if out.shape[0] > Y_SEABED_CONTACT:     # the place on Earth and the contact, after the rates
            out[Y_LATITUDE], out[Y_LONGITUDE] = latitude_longitude(x[X_POS], x[X_POS + 1], c[C_ORIGIN],
                                                                   c[C_ORIGIN + 1])
            out[Y_SEABED_CONTACT] = 1.0 if in_contact(depth + c[C_RADIUS], sea_depth) else 0.0


@jit
def write_wake_outputs(x, u, c, rotation, water_ned, wake, thrust, out):
    """The wake outputs (docs/physics/environment.md#wakes) written into out after the table's:
    WakeVelocity (the others' wakes over the step just ended, `wake`) and WakeSource, the row this
    vehicle publishes (auv_cosim.vehicles.wake.source_row_into): v_r through `water_ned` (the
    current and the others' wakes, no waves), F_D from the hull and fin forces with that v_r
    (`resisting_force`), T the Thrust output; all zero unless CastWake."""
    for i in range(3):
        out[Y_WAKE_VELOCITY + i] = wake[i]
    if not c[C_CAST_WAKE] > 0.0:
        for i in range(SOURCE_SIZE):
            out[Y_WAKE_SOURCE + i] = 0.0
        return
    rel_vel = sub3(triple(x, X_VEL), rotate_back3(rotation, water_ned))
    force = resisting_force(rel_vel, triple(x, X_OMEGA), u[U_RUDDER_YAW], u[U_RUDDER_DIVE], c)
    source_row_into(triple(x, X_POS), rotation, rel_vel, resistance(force, rel_vel), thrust,
                    triple(c, C_STERN), triple(c, C_THRUSTER_POS), c[C_DIAMETER],
                    c[C_PROPELLER_DIAMETER], c[C_RHO], c[C_WAKE_MIN_SPEED], out, Y_WAKE_SOURCE)


@jit
def wake_outputs(t, x, u, c):
    """WakeSource (15) then WakeVelocity (3) at time t, a new array (see `write_wake_outputs`)."""
    out = np.zeros(OUTPUT_SIZE + EXTRA_OUTPUT_SIZE)
    write_outputs(t, x, u, c, out)
    return out[OUTPUT_SIZE:OUTPUT_SIZE + SOURCE_SIZE + 3].copy()


@jit
def local_vector(t, x, u, c):
    """The values of `LOCALS` at time t (see `write_locals`)."""
    out = np.zeros(1)
    write_locals(t, x, u, c, out)
    return out


@jit
def write_locals(t, x, u, c, out):
    """The values of `LOCALS` at time t written into `out`: the sea surface's elevation at the
    body origin's north and east (docs/physics/environment.md#waves; 0 in still water)."""
    out[0] = 0.0
    if c[C_WAVE_COUNT] > 0.0:
        n = int(c[C_WAVE_COUNT])
        rows = c[CONSTANT_COUNT:CONSTANT_COUNT + 4 * n].reshape((n, 4))
        out[0] = surface_elevation(t, x[X_POS], x[X_POS + 1], rows, c[C_WAVE_DIRECTION])


@jit
def write_outputs_and_locals(t, x, u, c, out, local_values):
    """`write_outputs` and `write_locals` in one compiled call: the FMU's refresh after a step
    (one dispatch from Python, no arrays handed back)."""
    write_outputs(t, x, u, c, out)
    write_locals(t, x, u, c, local_values)


#: name -> (first index, size) in `output_vector`.
OUTPUT_LAYOUT = OUTPUTS.layout
