"""The vehicle's state derivative, its analytic Jacobians and its outputs.

State (14): Pos (0:3, NED, m), Quater (3:7, scalar first, body to NED), LocalVel (7:10, body
velocity over ground, m/s), Omega (10:13, rad/s), Battery (13, J).
Inputs (6): ThrustPower (W), RudderYaw (rad), RudderDive (rad), ExternalForce (NED, N).

The equations (SPEC 2.3): with the water velocity v_w = R^T V_c(depth) and v_r = LocalVel - v_w,
    M (v_r', omega') = tau_total(v_r, omega, ...)            (Coriolis and Munk inside tau)
    LocalVel' = v_r' + d(v_w)/dt = v_r' - omega x v_w + R^T (dV_c/dz) z'
For a current uniform in NED the last term vanishes and this is the seed's equation. With a
depth-sheared current the vehicle's response to the fluid acceleration (Froude-Krylov plus
added mass) is taken equal to its inertia to it, which is exact for a neutrally buoyant body.

The constants travel as one flat float vector (see `pack_constants`) so that the compiled
functions have a fixed, cheap signature; the index names below are its layout.
"""
import numpy as np

from ._jit import jit
from .forces import (
    DIVE_PLANE, YAW_PLANE, axial_drag_jacobian, axial_drag_wrench, coriolis_jacobian,
    coriolis_wrench, cross_flow_strip_jacobian, cross_flow_strip_wrench, external_force_wrench,
    roll_damping_moment, roll_damping_slope, rudder_wrench, rudder_wrench_jacobian,
    slender_body_lift_jacobian, slender_body_lift_wrench, thrust_wrench,
    weight_and_buoyancy_wrench,
)
from .hull import hull_properties_of, submerged_fraction
from .rotation import (
    cross, euler_angles, quaternion_derivative, quaternion_derivative_jacobian,
    quaternion_rate_matrix, rotate, rotate_back, rotation_matrix, rotation_matrix_derivatives,
    skew,
)

STATE_SIZE = 14
INPUT_SIZE = 6
INPUT_NAMES = ("ThrustPower", "RudderYaw", "RudderDive", "ExternalForce[1]", "ExternalForce[2]",
               "ExternalForce[3]")
# Index ranges of the state (written out as literal slices inside the compiled functions:
# numba re-unpickles a global slice object on every call).
POS, QUAT, VEL, OMEGA, BATTERY = slice(0, 3), slice(3, 7), slice(7, 10), slice(10, 13), 13

# Layout of the constant vector.
C_MASS, C_VOLUME, C_RADIUS, C_RHO, C_GRAVITY = 0, 1, 2, 3, 4
C_COG = 5                 # 3
C_INERTIA = 8             # Ixx, Iyy, Izz of the rigid body
C_ADDED = 11              # A11..A66
C_MASS_INV = 17           # diagonal of M^-1, 6
C_THRUST_PER_POWER, C_MAX_POWER, C_HOTEL = 23, 24, 25
C_THRUSTER_POS = 26       # 3
C_FRONTAL_AREA, C_AXIAL_CD, C_CROSS_FLOW_CD = 29, 30, 31
C_SECTION_X, C_SECTION_D, C_SECTION_L = 32, 35, 38   # 3 each
C_ROLL_LINEAR, C_ROLL_QUADRATIC = 41, 42
C_RUDDER_AREA, C_RUDDER_AR = 43, 44
C_RUDDER_POS = 45         # 3
C_RUDDER_CL_MAX, C_RUDDER_AOA_MAX, C_RUDDER_CD0, C_RUDDER_OSWALD, C_MAX_RUDDER = 48, 49, 50, 51, 52
C_QUAT_TAU = 53
C_CURRENT = 54            # 3, NED at the surface
C_CURRENT_GRADIENT = 57   # 3, per metre of depth
C_SEA_FLOOR, C_SEA_FLOOR_SLOPE = 60, 61  # slope: 2
C_INITIAL_BATTERY = 63
C_LIFT_X_AFT, C_LIFT_AREA_AFT, C_LIFT_X_FORE, C_LIFT_AREA_FORE = 64, 65, 66, 67
CONSTANT_COUNT = 68


def pack_constants(params, env):
    """The flat constant vector of an `AuvParameters` and an `Environment`."""
    hull = hull_properties_of(params.Length, params.Diameter, params.AverageDensity)
    c = np.zeros(CONSTANT_COUNT)
    c[C_MASS], c[C_VOLUME], c[C_RADIUS] = hull.mass, hull.volume, hull.radius
    c[C_RHO], c[C_GRAVITY] = params.Rho, env.Gravity
    c[C_COG:C_COG + 3] = params.COG
    c[C_INERTIA:C_INERTIA + 3] = (hull.inertia_xx, hull.inertia_yy, hull.inertia_yy)
    added = np.asarray(params.AddedMass, dtype=float)
    c[C_ADDED:C_ADDED + 6] = added
    rigid = np.array([hull.mass] * 3 + [hull.inertia_xx, hull.inertia_yy, hull.inertia_yy])
    c[C_MASS_INV:C_MASS_INV + 6] = 1.0 / (rigid + added)
    c[C_THRUST_PER_POWER], c[C_MAX_POWER], c[C_HOTEL] = (
        params.ThrustPerPower, params.MaxPropulsionPower, params.HotelPower)
    c[C_THRUSTER_POS:C_THRUSTER_POS + 3] = params.ThrusterPos
    c[C_FRONTAL_AREA] = np.pi * params.Diameter ** 2 / 4.0
    c[C_AXIAL_CD], c[C_CROSS_FLOW_CD] = params.AxialDragCoeff, params.CrossFlowDragCoeff
    xs, ds, ls = params.section_x, params.section_diameter, params.section_length
    c[C_SECTION_X:C_SECTION_X + 3] = xs
    c[C_SECTION_D:C_SECTION_D + 3] = ds
    c[C_SECTION_L:C_SECTION_L + 3] = ls
    c[C_ROLL_LINEAR], c[C_ROLL_QUADRATIC] = params.RollDampingLinear, params.RollDampingQuadratic
    c[C_RUDDER_AREA], c[C_RUDDER_AR] = params.RudderArea, params.RudderAspectRatio
    c[C_RUDDER_POS:C_RUDDER_POS + 3] = params.RudderPos
    c[C_RUDDER_CL_MAX], c[C_RUDDER_AOA_MAX] = params.RudderClMax, params.RudderAoaMax
    c[C_RUDDER_CD0], c[C_RUDDER_OSWALD] = params.RudderCd0, params.RudderOswald
    c[C_MAX_RUDDER] = params.MaxRudderAngle
    c[C_QUAT_TAU] = params.QuaternionConvergenceTime
    c[C_CURRENT:C_CURRENT + 3] = env.CurrentVelocity
    c[C_CURRENT_GRADIENT:C_CURRENT_GRADIENT + 3] = env.CurrentDepthGradient
    c[C_SEA_FLOOR] = env.SeaFloorDepth
    c[C_SEA_FLOOR_SLOPE:C_SEA_FLOOR_SLOPE + 2] = env.SeaFloorSlope
    c[C_INITIAL_BATTERY] = params.InitialBattery
    # The separated end of the slender-body lift: aft end of the aftmost section going ahead,
    # forward end of the foremost going astern (sections are ordered bow to stern).
    c[C_LIFT_X_AFT] = xs[2] - ls[2] / 2.0
    c[C_LIFT_AREA_AFT] = np.pi * ds[2] ** 2 / 4.0
    c[C_LIFT_X_FORE] = xs[0] + ls[0] / 2.0
    c[C_LIFT_AREA_FORE] = np.pi * ds[0] ** 2 / 4.0
    return c


@jit
def water_velocity_ned(depth, c):
    """V_c(z) = CurrentVelocity + CurrentDepthGradient z, NED."""
    return c[C_CURRENT:C_CURRENT + 3] + c[C_CURRENT_GRADIENT:C_CURRENT_GRADIENT + 3] * depth


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
                         c[C_RUDDER_AR], c[C_RUDDER_POS:C_RUDDER_POS + 3], c[C_RUDDER_CL_MAX],
                         c[C_RUDDER_AOA_MAX], c[C_RUDDER_CD0], c[C_RUDDER_OSWALD],
                         c[C_MAX_RUDDER])


@jit
def _rudder_jacobian(plane, rel_vel, omega, deflection, c):
    return rudder_wrench_jacobian(plane, rel_vel, omega, deflection, c[C_RHO], c[C_RUDDER_AREA],
                                  c[C_RUDDER_AR], c[C_RUDDER_POS:C_RUDDER_POS + 3],
                                  c[C_RUDDER_CL_MAX], c[C_RUDDER_AOA_MAX], c[C_RUDDER_CD0],
                                  c[C_RUDDER_OSWALD], c[C_MAX_RUDDER])


@jit
def hydrodynamic_wrench(rel_vel, omega, rudder_yaw, rudder_dive, c):
    """Every velocity-dependent wrench: hull drag, strip theory, slender-body lift, roll
    damping, both fin planes and the Coriolis-centripetal (Munk) terms."""
    w = axial_drag_wrench(rel_vel, c[C_RHO], c[C_FRONTAL_AREA], c[C_AXIAL_CD])
    w += cross_flow_strip_wrench(rel_vel, omega, c[C_RHO], c[C_CROSS_FLOW_CD],
                                 c[C_SECTION_X:C_SECTION_X + 3], c[C_SECTION_D:C_SECTION_D + 3],
                                 c[C_SECTION_L:C_SECTION_L + 3])
    w += slender_body_lift_wrench(rel_vel, omega, c[C_RHO], c[C_LIFT_X_AFT], c[C_LIFT_AREA_AFT],
                                  c[C_LIFT_X_FORE], c[C_LIFT_AREA_FORE])
    w[3] += roll_damping_moment(omega[0], c[C_ROLL_LINEAR], c[C_ROLL_QUADRATIC])
    if c[C_RUDDER_AREA] > 0.0:
        w += _rudder(YAW_PLANE, rel_vel, omega, rudder_yaw, c)
        w += _rudder(DIVE_PLANE, rel_vel, omega, rudder_dive, c)
    w += coriolis_wrench(rel_vel, omega, c[C_MASS], c[C_INERTIA:C_INERTIA + 3],
                         c[C_ADDED:C_ADDED + 3], c[C_ADDED + 3:C_ADDED + 6])
    return w


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
    """x' for the state x, the inputs u held, and the constants c (see the module docstring)."""
    q = x[3:7]
    vel = x[7:10]
    omega = x[10:13]
    battery = x[BATTERY]
    rotation = rotation_matrix(q)
    water = rotate_back(rotation, water_velocity_ned(x[2], c))
    rel_vel = vel - water

    power = propulsion_power(u[0], battery, c)
    tau = weight_and_buoyancy_wrench(rotation, x[2], c[C_MASS], c[C_VOLUME], c[C_RADIUS],
                                     c[C_RHO], c[C_GRAVITY], c[C_COG:C_COG + 3],
                                     submerged_fraction(x[2], c[C_RADIUS]))
    tau += thrust_wrench(compute_thrust(power, rel_vel[0], c), c[C_THRUSTER_POS:C_THRUSTER_POS + 3])
    tau += hydrodynamic_wrench(rel_vel, omega, u[1], u[2], c)
    tau += external_force_wrench(rotation, u[3:6])
    acceleration = c[C_MASS_INV:C_MASS_INV + 6] * tau

    xdot = np.empty(STATE_SIZE)
    xdot[0:3] = rotate(rotation, vel)
    xdot[3:7] = quaternion_derivative(q, omega, c[C_QUAT_TAU])
    shear = c[C_CURRENT_GRADIENT:C_CURRENT_GRADIENT + 3] * xdot[2]
    xdot[7:10] = acceleration[0:3] - cross(omega, water) + rotate_back(rotation, shear)
    xdot[10:13] = acceleration[3:6]
    xdot[BATTERY] = -(power + c[C_HOTEL]) if battery > 0.0 else 0.0
    return xdot


@jit
def state_derivative_at(t, x, u, c):
    """`state_derivative` with the time first, the signature SciPy's integrators call."""
    return state_derivative(x, u, c)


@jit
def state_jacobian(x, u, c):
    """d x' / d x, 14 x 14.

    Analytic (seed 000 and 003): dPos'/dQuater (dR/dq v), dPos'/dLocalVel = R,
    dQuater'/dQuater (rate matrix and norm term), dQuater'/dOmega = T(q), and the complete
    6 x 6 velocity block with the fins. Left to central differences, as the seed does: the
    velocity rows against Pos and Quater (weight and buoyancy against attitude, the submerged
    fraction, the current's dependence on depth and attitude). The battery row and column are
    zero: the discharge and the flat-battery switch do not depend smoothly on a state.
    """
    q = x[3:7]
    vel = x[7:10]
    omega = x[10:13]
    rotation = rotation_matrix(q)
    water = rotation.T @ water_velocity_ned(x[2], c)
    rel_vel = vel - water
    j = np.zeros((STATE_SIZE, STATE_SIZE))

    d_rotation = rotation_matrix_derivatives(q)
    for k in range(4):
        j[0:3, 3 + k] = d_rotation[k] @ vel
    j[0:3, 7:10] = rotation
    j[3:7, 3:7] = quaternion_derivative_jacobian(q, omega, c[C_QUAT_TAU])
    j[3:7, 10:13] = quaternion_rate_matrix(q)

    block = hydrodynamic_jacobian(rel_vel, omega, u[1], u[2], c)
    for row in range(6):
        block[row, :] *= c[C_MASS_INV + row]
    gradient = c[C_CURRENT_GRADIENT:C_CURRENT_GRADIENT + 3]
    j[7:13, 7:13] = block
    j[7:10, 10:13] += skew(water)                       # -omega x v_w = v_w x omega
    j[7:10, 7:10] += np.outer(rotation.T @ gradient, rotation[2, :])   # R^T G z', z' = R_3 v

    for col in range(7):
        step = 1e-6 * max(1.0, abs(x[col]))
        plus = x.copy()
        minus = x.copy()
        plus[col] += step
        minus[col] -= step
        difference = (state_derivative(plus, u, c) - state_derivative(minus, u, c)) / (2.0 * step)
        j[7:13, col] = difference[7:13]
    return j


@jit
def input_jacobian(x, u, c):
    """d x' / d u, 14 x 6, analytic.

    ThrustPower: ThrustPerPower along body x at ThrusterPos and -1 on the battery, inside the
    clamp and while the battery holds energy; zero elsewhere. RudderYaw, RudderDive: the fin
    wrench's deflection derivative, zero outside the stop. ExternalForce: M^-1 R^T.
    """
    q = x[3:7]
    omega = x[10:13]
    rotation = rotation_matrix(q)
    water = rotation.T @ water_velocity_ned(x[2], c)
    rel_vel = x[7:10] - water
    minv = c[C_MASS_INV:C_MASS_INV + 6]
    b = np.zeros((STATE_SIZE, INPUT_SIZE))
    if x[BATTERY] > 0.0 and 0.0 < u[0] < c[C_MAX_POWER]:
        dw = thrust_wrench(c[C_THRUST_PER_POWER], c[C_THRUSTER_POS:C_THRUSTER_POS + 3])
        b[7:13, 0] = minv * dw
        b[BATTERY, 0] = -1.0
    if c[C_RUDDER_AREA] > 0.0:
        b[7:13, 1] = minv * _rudder_jacobian(YAW_PLANE, rel_vel, omega, u[1], c)[1]
        b[7:13, 2] = minv * _rudder_jacobian(DIVE_PLANE, rel_vel, omega, u[2], c)[1]
    b[7:10, 3:6] = rotation.T * minv[0:3].reshape(3, 1)
    return b


@jit
def output_vector(x, u, c):
    """The outputs of seed 001 as one flat vector, in the order of `OUTPUT_LAYOUT`."""
    q = x[3:7]
    rotation = rotation_matrix(q)
    water = rotate_back(rotation, water_velocity_ned(x[2], c))
    euler = euler_angles(rotation)
    battery = max(x[BATTERY], 0.0)
    sea_depth = (c[C_SEA_FLOOR] + c[C_SEA_FLOOR_SLOPE] * x[0] + c[C_SEA_FLOOR_SLOPE + 1] * x[1])
    out = np.empty(OUTPUT_SIZE)
    out[0:3] = x[0:3]
    out[3:6] = rotate(rotation, x[7:10])
    out[6:10] = q
    out[10:13] = euler
    out[13] = euler[2]                      # Heading
    out[14] = euler[1]                      # Pitch
    out[15] = x[2]                          # Depth
    out[16] = x[7] - water[0]               # Speed through the water
    out[17] = sea_depth - x[2]              # Altitude
    out[18] = sea_depth                     # SeaDepth
    out[19] = battery
    out[20] = battery / c[C_INITIAL_BATTERY] if c[C_INITIAL_BATTERY] > 0.0 else 0.0
    out[21] = compute_thrust(propulsion_power(u[0], x[BATTERY], c), out[16], c)
    return out


#: name -> (first index, size) in `output_vector`.
OUTPUT_LAYOUT = {
    "Pos": (0, 3), "Vel": (3, 3), "Quater": (6, 4), "Euler": (10, 3), "Heading": (13, 1),
    "Pitch": (14, 1), "Depth": (15, 1), "Speed": (16, 1), "Altitude": (17, 1),
    "SeaDepth": (18, 1), "Battery": (19, 1), "BatteryFraction": (20, 1), "Thrust": (21, 1),
}
OUTPUT_SIZE = 22
