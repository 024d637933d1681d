"""MoorDyn's input file, written from a `TetherConfig`: one line type, two coupled points (the
anchor and the end), one line between them, the options (time step, water depth, density,
gravity, current), and for a current the table MoorDyn reads beside the input file.

MoorDyn is configured by files only (`moordyn.Create(path)`): `write_inputs` writes both into a
folder the caller owns (`Tether` uses a temporary one).
"""
from __future__ import annotations

from pathlib import Path

from .config import TetherConfig
from .frames import ned_to_moordyn

#: the file name MoorDyn reads a steady current profile from (option Currents 1), in the
#: folder of its input file
CURRENT_FILE = "current_profile.txt"


def _number(value: float) -> str:
    """repr: the shortest text that reads back as the same double."""
    return repr(float(value))


def input_text(config: TetherConfig, anchor_md, end_md) -> str:
    """The MoorDyn v2 input file. Both ends are coupled points (massless, no volume): MoorDyn
    takes their positions and velocities each step and returns the cable's force on each, so
    the anchor may be fixed or moved (a vessel) and the end follows the vehicle. The axial
    damping is given as -zeta (a fraction of each segment's critical damping), the bending
    stiffness is zero (a cable), the tangential added mass zero. `anchor_md`, `end_md`: the
    points in MoorDyn's frame."""
    c = config
    line_type = " ".join(_number(v) for v in (
        c.Diameter, c.MassPerLength, c.AxialStiffness, -c.AxialDampingRatio, 0.0, c.NormalDragCoeff,
        c.NormalAddedMassCoeff, c.TangentialDragCoeff, 0.0))
    has_current = any(v != 0.0 for v in c.CurrentVelocity)
    return "\n".join([
        "auv-cosim tether (written from the FMU's parameters)",
        "---------------------- LINE TYPES -----------------------------------",
        "TypeName Diam Mass/m EA BA/-zeta EI Cd Ca CdAx CaAx",
        "(name) (m) (kg/m) (N) (N-s/-) (N-m^2) (-) (-) (-) (-)",
        f"tether {line_type}",
        "---------------------- POINTS -------------------------------------",
        "ID Attachment X Y Z Mass Volume CdA Ca",
        "(#) (-) (m) (m) (m) (kg) (m^3) (m^2) (-)",
        "1 Coupled " + " ".join(_number(v) for v in anchor_md) + " 0 0 0 0",
        "2 Coupled " + " ".join(_number(v) for v in end_md) + " 0 0 0 0",
        "---------------------- LINES ----------------------------------------",
        "ID LineType AttachA AttachB UnstrLen NumSegs Outputs",
        "(#) (name) (#) (#) (m) (-) (-)",
        f"1 tether 1 2 {_number(c.Length)} {int(c.SegmentCount)} -",
        "---------------------- OPTIONS --------------------------------------",
        f"{_number(c.TimeStep)} dtM",
        "RK2 tScheme",
        f"{_number(c.WaterDepth)} WtrDpth",
        f"{_number(c.Rho)} rho",
        f"{_number(c.Gravity)} g",
        f"{1 if has_current else 0} Currents",
        "0 writeLog",
        "1 disableOutput",
        "1 disableOutTime",
        "---------------------- need this line -------------------------------",
        ""])


def current_text(config: TetherConfig) -> str:
    """MoorDyn's steady current table (option Currents 1): the current, uniform, at the sea floor
    and at the surface (MoorDyn interpolates in depth between rows), in MoorDyn's frame."""
    u = ned_to_moordyn(config.CurrentVelocity)
    row = " ".join(_number(v) for v in u)
    return "\n".join([
        "--------------------- MoorDyn steady currents File ----------------------------------",
        "uniform current from the tether's CurrentVelocity",
        "z (m), ux (m/s), uy (m/s), uz (m/s)",
        f"{_number(-config.WaterDepth - 1.0)} {row}",
        f"0.0 {row}",
        ""])


def write_inputs(config: TetherConfig, folder: Path, anchor_md, end_md) -> Path:
    """Write the input file (and the current table when there is a current) into `folder`;
    returns the input file's path."""
    folder = Path(folder)
    path = folder / "tether.txt"
    path.write_text(input_text(config, anchor_md, end_md))
    if any(v != 0.0 for v in config.CurrentVelocity):
        (folder / CURRENT_FILE).write_text(current_text(config))
    return path
