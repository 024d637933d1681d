"""``auv-cosim plan-survey``: lawn-mower lines over an area for a swath, an altitude and an overlap.

The swath of the coverage model (`auv_cosim.analyses.coverage`) at the planned altitude a has
half-width w = min(a tan(half_angle), sqrt(range^2 - a^2)) on a flat seabed. Neighbouring
lines overlap by the fraction `overlap` of a swath when they are

    spacing = 2 w (1 - overlap)

apart. The lines run along `direction` (degrees from north), as many as it takes to span the
area across them, centred on it (the outer swaths reach at least w - spacing/2 beyond the
area's edges), each clipped to the area (a convex polygon: the stretch of the line inside it),
flown alternately forth and back. The output is a scenario fragment to ``include:``: the
control's waypoints (north, east, depth; the depth, the start depth, is what the altitude
mode begins from) in ``DiveMode: altitude`` at ``TargetAltitude``.
"""
from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from auv_cosim.master import ScenarioError

from .coverage import swath_half_width
from .coverage_cli import parse_polygon

#: m: the altitude mode's look-ahead in the lines planned (the seabed's slope flown averaged over
#: this distance, its glide angle fed forward: terrain_following's figures)
TERRAIN_SLOPE_DISTANCE = 10.0

HELP = "lawn-mower waypoint lines over an area for a swath, an altitude and an overlap (a scenario fragment)"


def line_spacing(altitude: float, half_angle: float, max_range: float, overlap: float) -> float:
    """The distance between neighbouring lines (m) (see the module)."""
    return 2.0 * float(swath_half_width(altitude, half_angle, max_range)) * (1.0 - overlap)


def plan_lines(polygon, spacing: float, direction_deg: float = 0.0) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The lines ((north, east) start, (north, east) end), alternately forth and back, across a
    convex polygon of (north, east) vertices (see the module)."""
    a = math.radians(direction_deg)
    along = np.array([math.cos(a), math.sin(a)])        # (north, east) of the line direction
    across = np.array([-math.sin(a), math.cos(a)])
    p = np.asarray(polygon, float)
    u, v = p @ along, p @ across
    count = max(int(math.ceil((v.max() - v.min()) / spacing)), 1)
    first = 0.5 * (v.min() + v.max()) - 0.5 * (count - 1) * spacing
    lines = []
    for k in range(count):
        vk = first + k * spacing
        crossings = []
        for i in range(len(p)):
            j = (i + 1) % len(p)
            if (v[i] - vk) * (v[j] - vk) <= 0.0 and v[i] != v[j]:
                crossings.append(u[i] + (vk - v[i]) * (u[j] - u[i]) / (v[j] - v[i]))
        if not crossings:          # the outer line of a pointed end: its nearest vertex
            vk_clip = min(max(vk, v.min()), v.max())
            crossings = [u[np.argmin(abs(v - vk_clip))]]
        u0, u1 = min(crossings), max(crossings)
        if k % 2:
            u0, u1 = u1, u0
        lines.append((tuple(u0 * along + vk * across), tuple(u1 * along + vk * across)))
    return lines


def fragment(lines, altitude: float, start_depth: float, comment: str) -> str:
    """The scenario fragment (YAML text) of the lines."""
    points = [p for line in lines for p in line]
    waypoints = ";\n        ".join(f"{n:.2f},{e:.2f},{start_depth:g}" for n, e in points)
    return (f"# {comment}\n# include: this file from a scenario of the survey AUV (it sets the control's mission)\n"
            f"instances:\n  control:\n    parameters:\n      GuidanceMode: mission\n      DiveMode: altitude\n"
            f"      TargetAltitude: {altitude:g}\n      TerrainSlopeDistance: {TERRAIN_SLOPE_DISTANCE:g}\n"
            f"      Waypoints: >-\n        {waypoints}\n")


def cmd_plan(args) -> int:
    from auv_cosim.master import output_target, write_whole
    from .coverage_cli import check_swath

    try:
        polygon = parse_polygon(args.area, "--area")
        check_swath(args.half_angle, args.range, 1.0, 0.0)
        if not (0.0 <= args.overlap < 1.0):
            raise ScenarioError("--overlap", str(args.overlap), "must be in [0, 1): a fraction of a swath")
        if not (0.0 < args.altitude < args.range):
            raise ScenarioError("--altitude", str(args.altitude), f"must be in (0, --range = {args.range:g}) m")
        target = None if args.out is None else output_target(args.out, option="--out", force=args.force)
    except ScenarioError as e:
        print(f"error: plan refused, nothing was written:\n{e}", file=sys.stderr)
        return 2
    spacing = line_spacing(args.altitude, args.half_angle, args.range, args.overlap)
    lines = plan_lines(polygon, spacing, args.direction)
    length = sum(math.dist(a, b) for a, b in lines)
    comment = (f"auv-cosim plan-survey: {len(lines)} lines {spacing:.2f} m apart ({100 * args.overlap:g} % overlap of a "
               f"{spacing / (1 - args.overlap):.2f} m swath at {args.altitude:g} m altitude), {length:.0f} m of lines")
    text = fragment(lines, args.altitude, args.start_depth, comment)
    if target is None:
        print(text, end="")
    else:
        write_whole(target, text)
        print(comment)
        print(f"written: {target}")
    return 0


def add_plan_parser(sub) -> argparse.ArgumentParser:
    c = sub.add_parser("plan-survey", help=HELP, description=HELP + ". " + (__doc__ or "").split("\n\n")[1])
    c.add_argument("--area", metavar="'N,E; N,E; ...'", required=True, help="the area, a convex polygon in NED metres")
    c.add_argument("--altitude", metavar="M", type=float, required=True, help="the altitude to fly, m")
    c.add_argument("--half-angle", metavar="DEG", type=float, required=True, help="the swath's half-angle, degrees")
    c.add_argument("--range", metavar="M", type=float, required=True, help="the sonar's slant range, m")
    c.add_argument("--overlap", metavar="F", type=float, default=0.2, help="overlap of neighbouring swaths, a fraction "
                                                                          "(default %(default)s)")
    c.add_argument("--direction", metavar="DEG", type=float, default=0.0, help="the lines' direction from north "
                                                                                "(default %(default)s)")
    c.add_argument("--start-depth", metavar="M", type=float, default=5.0,
                   help="the waypoints' depth, where the altitude mode starts from (default %(default)s)")
    c.add_argument("--out", "-o", metavar="FILE", help="write the fragment here (default: print it)")
    c.add_argument("--force", action="store_true", help="replace an existing --out")
    c.set_defaults(func=cmd_plan)
    return c
