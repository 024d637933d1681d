"""``auv-cosim coverage RESULTS_DIR`` and the scenario analysis ``coverage``: the seabed a finished
run's swath covered (the model in `auv_cosim.analyses.coverage`).

The command reads the run's results.csv (time and the vehicle's Pos, Heading, Altitude) and,
when the run flew over a bathymetry grid (its vehicle's BathymetryFile, OriginLatitude and
OriginLongitude in scenario.resolved.yaml, or --bathymetry and --origin), lets the swath's
edges follow that grid. It writes into RESULTS_DIR:

- coverage.json: area_m2, with --polygon the fraction of the polygon covered, the gaps of more
  than one cell (area, centre), and what it was computed from;
- coverage.png: the pass counts over the bathymetry (when there is one), the track, the polygon;
- coverage_passes.tif: how many passes covered each cell, a GeoTIFF in the NED plane's
  azimuthal equidistant CRS about the origin (no CRS when the run has no place on Earth).

A run's folder is the command's to write these three files in (they are replaced); anything
missing (a column, the results, rasterio for the GeoTIFF) is refused before anything is written.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StrictStr, StringConstraints

from auv_cosim.master import RunData, ScenarioError, display_path, rounded
from auv_cosim.master.registry import Analysis

from .coverage import coverage_figures, rasterise, swath_corners, swath_half_width, terrain_half_widths

HELP = "the seabed a finished run's swath covered: coverage.json, coverage.png and coverage_passes.tif in RESULTS_DIR"
FILES = ("coverage.json", "coverage.png", "coverage_passes.tif")
COLUMNS = ("Pos[1]", "Pos[2]", "Pos[3]", "Heading", "Altitude")


def parse_polygon(text: str, option: str = "--polygon") -> list[tuple[float, float]]:
    """'n,e; n,e; ...' (m, at least three vertices) as (north, east) pairs; ScenarioError naming the option."""
    points = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        try:
            n, e = (float(x) for x in part.split(","))
        except ValueError:
            raise ScenarioError(option, text, f"vertex {part!r} is not 'north,east' in metres") from None
        if not (math.isfinite(n) and math.isfinite(e)):
            raise ScenarioError(option, text, f"vertex {part!r} is not finite")
        points.append((n, e))
    if len(points) < 3:
        raise ScenarioError(option, text, "a polygon needs at least three vertices 'n,e; n,e; n,e'")
    return points


def check_swath(half_angle: float, max_range: float, cell: float, revisit: float) -> None:
    for option, value, ok, what in (("--half-angle", half_angle, 0.0 < half_angle < 90.0, "in (0, 90) degrees"),
                                    ("--range", max_range, max_range > 0.0, "positive (m)"),
                                    ("--cell", cell, cell > 0.0, "positive (m)"),
                                    ("--revisit", revisit, revisit >= 0.0, "zero or positive (s)")):
        if not (math.isfinite(value) and ok):
            raise ScenarioError(option, str(value), f"must be {what}")


def compute(track: dict, half_angle: float, max_range: float, cell: float = 1.0, polygon=None,
            revisit: float = 60.0, seabed=None):
    """(figures, raster) of a track (arrays t, north, east, depth, heading, altitude)."""
    if seabed is None:
        w = swath_half_width(track["altitude"], half_angle, max_range)
        port = starboard = w
    else:
        port, starboard = terrain_half_widths(track["north"], track["east"], track["depth"], track["heading"],
                                              half_angle, max_range, seabed)
    raster = rasterise(track["t"], track["north"], track["east"], track["heading"], port, starboard, cell, revisit)
    figures = coverage_figures(raster, polygon)
    figures.update({"half_angle_deg": half_angle, "range_m": max_range, "revisit_s": revisit,
                    "seabed": "flat" if seabed is None else seabed.path})
    return figures, raster, (port, starboard)


# ------------------------------------------------------------------------------ the command

def read_track(results_dir: Path, vehicle: str) -> dict:
    """The vehicle's columns of results.csv; ScenarioError naming the file and the column."""
    results = results_dir / "results.csv"
    if not results.is_file():
        raise ScenarioError("RESULTS_DIR", display_path(results_dir), "has no results.csv: not a run's folder")
    with open(results, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    wanted = ["time"] + [f"{vehicle}.{c}" for c in COLUMNS]
    missing = [w for w in wanted if w not in header]
    if missing:
        raise ScenarioError(display_path(results), ", ".join(missing),
                            f"column(s) missing: the coverage needs {', '.join(wanted)}")
    data = np.loadtxt(results, delimiter=",", skiprows=1, usecols=[header.index(w) for w in wanted], ndmin=2)
    if len(data) < 2:
        raise ScenarioError(display_path(results), "", "fewer than two rows: no swath was swept")
    return dict(zip(("t", "north", "east", "depth", "heading", "altitude"), data.T))


def seabed_of(results_dir: Path, vehicle: str, bathymetry: Optional[str], origin: Optional[str]):
    """(seabed or None, (latitude, longitude) or None): from the options, else from the run's
    vehicle parameters in scenario.resolved.yaml."""
    params = {}
    resolved = results_dir / "scenario.resolved.yaml"
    if resolved.is_file():
        from auv_cosim.master import load_yaml

        with open(resolved, encoding="utf-8") as f:
            scenario = load_yaml(f) or {}
        params = ((scenario.get("instances") or {}).get(vehicle) or {}).get("parameters") or {}
    where = None
    if origin is not None:
        try:
            where = tuple(float(x) for x in origin.split(","))
            assert len(where) == 2
        except (ValueError, AssertionError):
            raise ScenarioError("--origin", origin, "expected LATITUDE,LONGITUDE in degrees") from None
    elif "OriginLatitude" in params and "OriginLongitude" in params:
        where = (float(params["OriginLatitude"]), float(params["OriginLongitude"]))
    path = bathymetry if bathymetry is not None else (params.get("BathymetryFile") or None)
    if path is None:
        return None, where
    if where is None:
        raise ScenarioError("--origin", "", f"the bathymetry {path} needs the origin of the NED plane (LAT,LON)")
    from auv_cosim.seabed import SeabedError, load_seabed

    try:
        return load_seabed(path, *where), where
    except (SeabedError, ValueError) as e:
        raise ScenarioError("--bathymetry" if bathymetry is not None else "BathymetryFile", str(path), str(e)) from None


def cmd_coverage(args) -> int:
    from auv_cosim.master import output_target, write_whole

    results_dir = Path(args.results_dir)
    try:
        check_swath(args.half_angle, args.range, args.cell, args.revisit)
        polygon = parse_polygon(args.polygon) if args.polygon else None
        try:
            import rasterio  # noqa: F401  (the GeoTIFF of the passes)
        except ImportError:
            raise ScenarioError("coverage_passes.tif", "", "writing the GeoTIFF needs rasterio: "
                                                          "pip install 'auv-cosim[seabed]'") from None
        track = read_track(results_dir, args.vehicle)
        seabed, origin = seabed_of(results_dir, args.vehicle, args.bathymetry, args.origin)
        targets = [output_target(results_dir / name, option=name, replaceable=True,
                                 inputs=[results_dir / "results.csv"]) for name in FILES]
    except ScenarioError as e:
        print(f"error: coverage refused, nothing was written:\n{e}", file=sys.stderr)
        return 2
    figures, raster, widths = compute(track, args.half_angle, args.range, args.cell, polygon, args.revisit, seabed)
    figures.update({"vehicle": args.vehicle, "rows": int(len(track["t"])),
                    "origin": None if origin is None else {"latitude": origin[0], "longitude": origin[1]},
                    "polygon": polygon})
    write_whole(targets[0], json.dumps(figures, indent=2) + "\n")
    write_whole(targets[1], lambda f: draw_map(f, raster, track, widths, polygon, seabed, figures))
    write_whole(targets[2], lambda f: f.write(passes_geotiff(raster, origin)))
    print(describe(figures))
    print("files: " + ", ".join(display_path(t) for t in targets))
    return 0


def passes_geotiff(raster, origin) -> bytes:
    """The pass counts as GeoTIFF bytes: north up, x east, y north in metres of the NED plane,
    whose CRS is the azimuthal equidistant projection about the origin (none without one)."""
    from rasterio.io import MemoryFile
    from rasterio.transform import from_origin

    counts = np.flipud(raster.counts).astype("uint16")
    crs = None
    if origin is not None:
        from auv_cosim.seabed.geodesy import local_crs

        crs = local_crs(*origin).to_wkt()
    with MemoryFile() as memory:
        with memory.open(driver="GTiff", width=counts.shape[1], height=counts.shape[0], count=1, dtype="uint16",
                         crs=crs, transform=from_origin(raster.east0, raster.north0 + counts.shape[0] * raster.cell,
                                                        raster.cell, raster.cell)) as ds:
            ds.write(counts, 1)
            ds.update_tags(1, units="passes")
        return memory.read()


def draw_map(f, raster, track, widths, polygon, seabed, figures) -> None:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 8))
    n0, e0, cell = raster.north0, raster.east0, raster.cell
    extent = (e0, e0 + raster.counts.shape[1] * cell, n0, n0 + raster.counts.shape[0] * cell)
    if seabed is not None:
        cn, ce = raster.centres()
        depth = seabed.depths(cn, ce)
        shade = ax.imshow(depth, origin="lower", extent=extent, cmap="Blues", alpha=0.9)
        fig.colorbar(shade, ax=ax, label="seabed depth [m]", shrink=0.7)
    passes = np.ma.masked_equal(raster.counts, 0)
    image = ax.imshow(passes, origin="lower", extent=extent, cmap="viridis", alpha=0.6 if seabed is not None else 1.0,
                      interpolation="nearest")
    fig.colorbar(image, ax=ax, label="passes", shrink=0.7)
    ax.plot(track["east"], track["north"], "k-", lw=0.6, label="track")
    if polygon is not None:
        pn, pe = zip(*(polygon + polygon[:1]))
        ax.plot(pe, pn, "r--", lw=1.2, label="polygon")
    for gap in figures["gaps"][:20]:
        ax.plot(gap["east_m"], gap["north_m"], "rx", ms=6)
    ax.set_xlabel("east [m]")
    ax.set_ylabel("north [m]")
    ax.set_aspect("equal")
    title = f"coverage {figures['area_m2'] / 1e4:.2f} ha"
    if "fraction" in figures:
        title += f", {100 * figures['fraction']:.1f} % of the polygon"
    ax.set_title(title + f"; {figures['gap_count']} gap(s) > 1 cell")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(f, format="png", dpi=110)
    plt.close(fig)


def describe(figures: dict) -> str:
    text = f"coverage: {figures['area_m2']:.0f} m2"
    if figures.get("fraction") is not None:
        text += f", {100 * figures['fraction']:.2f} % of the polygon"
    return text + f", {figures['gap_count']} gap(s) larger than a cell, up to {figures['max_passes']} passes"


def add_coverage_parser(sub) -> argparse.ArgumentParser:
    c = sub.add_parser("coverage", help=HELP, description=HELP + ". " + (__doc__ or "").split("\n\n")[1])
    c.add_argument("results_dir", metavar="RESULTS_DIR", help="a finished run's folder (results.csv)")
    c.add_argument("--half-angle", metavar="DEG", type=float, required=True,
                   help="the swath's half-angle from vertical, degrees")
    c.add_argument("--range", metavar="M", type=float, required=True, help="the sonar's slant range, m")
    c.add_argument("--cell", metavar="M", type=float, default=1.0, help="the raster's cell, m (default %(default)s)")
    c.add_argument("--polygon", metavar="'N,E; N,E; ...'", help="the area to cover (NED metres): fraction and gaps in it")
    c.add_argument("--vehicle", default="vehicle", help="the vehicle's instance (default %(default)s)")
    c.add_argument("--revisit", metavar="S", type=float, default=60.0,
                   help="a cell seen again after this many seconds counts another pass (default %(default)s)")
    c.add_argument("--bathymetry", metavar="FILE", help="the seabed grid (default: the run's BathymetryFile)")
    c.add_argument("--origin", metavar="LAT,LON", help="the NED origin (default: the run's OriginLatitude/Longitude)")
    c.set_defaults(func=cmd_coverage)
    return c


# ------------------------------------------------------------------------------ the scenario analysis

Ident = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Positive = Annotated[float, Field(allow_inf_nan=False, gt=0)]


class CoverageOptions(BaseModel):
    """A scenario's ``analysis: coverage:`` options (the command's, flat seabed)."""
    model_config = ConfigDict(extra="forbid")
    vehicle: Ident = "vehicle"
    half_angle_deg: Annotated[float, Field(allow_inf_nan=False, gt=0, lt=90)]
    range_m: Positive
    cell_m: Positive = 1.0
    revisit_s: Annotated[float, Field(allow_inf_nan=False, ge=0)] = 60.0
    polygon: Optional[StrictStr] = None


def analyse(run: RunData, o: CoverageOptions) -> dict:
    columns = {k: run.get(f"{o.vehicle}.{c}") for k, c in zip(("north", "east", "depth", "heading", "altitude"), COLUMNS)}
    missing = [f"{o.vehicle}.{c}" for (k, v), c in zip(columns.items(), COLUMNS) if v is None]
    if missing:
        return {"error": f"the run has no {', '.join(missing)}"}
    polygon = parse_polygon(o.polygon, "analysis.coverage.polygon") if o.polygon else None
    figures, _, _ = compute({"t": run.t, **columns}, o.half_angle_deg, o.range_m, o.cell_m, polygon, o.revisit_s)
    figures["gaps"] = figures["gaps"][:10]
    return {k: (rounded(v) if isinstance(v, float) else v) for k, v in figures.items()}


def check(options, instances, signal_targets):
    if options.vehicle not in instances:
        return [("vehicle", f"unknown instance '{options.vehicle}' (instances: {', '.join(instances)})")]
    if options.polygon:
        try:
            parse_polygon(options.polygon, "polygon")
        except ScenarioError as e:
            return [("polygon", str(e))]
    return []


COVERAGE = Analysis(CoverageOptions, analyse, describe, check)
