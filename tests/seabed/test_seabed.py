"""The seabed library (auv_cosim/seabed): grids read from files the libraries write, the C1 interpolation, the
geodesy against pyproj, and the named errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

from auv_cosim.seabed import OffGridError, SeabedError, geodetic_of, load_seabed
from auv_cosim.seabed.interpolation import bicubic
from auv_cosim.seabed.terrain import seabed_depth

from . import grids

rasterio = pytest.importorskip("rasterio", reason="the seabed extra (rasterio) is not installed")
pytest.importorskip("xarray", reason="the seabed extra (xarray) is not installed")
pyproj = pytest.importorskip("pyproj", reason="the seabed extra (pyproj) is not installed")


@pytest.fixture(scope="module")
def utm_tif(tmp_path_factory):
    return grids.write_utm_geotiff(tmp_path_factory.mktemp("seabed") / "utm.tif")


@pytest.fixture(scope="module")
def utm_seabed(utm_tif):
    return load_seabed(utm_tif, *grids.ORIGIN)


def _points(count, reach=1200.0, seed=3):
    return np.random.default_rng(seed).uniform(-reach, reach, (count, 2))


# ---- interpolation

def test_catmull_rom_reproduces_a_quadratic_and_its_gradient():
    """Exact on a quadratic (its error term is third order), gradient included."""
    i, j = np.meshgrid(np.arange(8.0), np.arange(9.0), indexing="ij")
    f = 3.0 + 0.5 * i - 0.25 * j + 0.125 * i * i - 0.0625 * i * j + 0.03125 * j * j
    for u, v in ((1.0, 1.0), (2.3, 4.7), (5.99, 6.5), (4.5, 1.01)):
        value, du, dv = bicubic(f, u, v)
        assert value == pytest.approx(3.0 + 0.5 * u - 0.25 * v + 0.125 * u * u - 0.0625 * u * v + 0.03125 * v * v, abs=1e-12)
        assert du == pytest.approx(0.5 + 0.25 * u - 0.0625 * v, abs=1e-12)
        assert dv == pytest.approx(-0.25 - 0.0625 * u + 0.0625 * v, abs=1e-12)


def test_the_surface_has_no_kink_at_cell_edges():
    """C1: the slope just left and just right of a node agree (bilinear would jump), and the
    gradient is the derivative of the value (finite differences)."""
    rng = np.random.default_rng(0)
    f = rng.normal(size=(7, 7))
    eps = 1e-9
    for u in (2.0, 3.0, 4.0):
        left = bicubic(f, u - eps, 3.4)[1]
        right = bicubic(f, u + eps, 3.4)[1]
        assert abs(left - right) < 1e-6
    h = 1e-6
    for u, v in ((2.2, 3.7), (3.9, 1.5)):
        value, du, dv = bicubic(f, u, v)
        assert du == pytest.approx((bicubic(f, u + h, v)[0] - bicubic(f, u - h, v)[0]) / (2 * h), abs=1e-6)
        assert dv == pytest.approx((bicubic(f, u, v + h)[0] - bicubic(f, u, v - h)[0]) / (2 * h), abs=1e-6)


def test_off_the_stencil_and_next_to_a_hole_is_nan():
    f = np.ones((6, 6))
    assert np.isnan(bicubic(f, 0.5, 2.0)[0])      # the outer ring has no outer neighbour
    assert np.isnan(bicubic(f, 2.0, 4.2)[0])
    assert bicubic(f, 2.0, 3.9)[0] == pytest.approx(1.0)
    f[3, 3] = np.nan
    assert np.isnan(bicubic(f, 2.5, 2.5)[0])
    assert np.isnan(bicubic(f, np.nan, 2.5)[0])


# ---- geodesy

def test_vincenty_matches_pyproj_geodesic_to_a_millimetre():
    geod = pyproj.Geod(ellps="WGS84")
    rng = np.random.default_rng(1)
    for _ in range(500):
        lat0, lon0 = rng.uniform(-80, 80), rng.uniform(-180, 180)
        n, e = rng.uniform(-100e3, 100e3, 2)
        lat, lon = geodetic_of(n, e, lat0, lon0)
        lon2, lat2, _ = geod.fwd(lon0, lat0, math.degrees(math.atan2(e, n)), math.hypot(n, e))
        assert geod.inv(lon, lat, lon2, lat2)[2] < 1e-3
    assert geodetic_of(0.0, 0.0, 12.5, -3.25) == (12.5, -3.25)


# ---- files

def test_utm_geotiff_depth_within_5_cm_of_the_analytic_surface(utm_seabed):
    x0, y0 = grids.utm_origin()
    worst = 0.0
    for n, e in _points(400):
        (x, y), _ = grids.place(n, e, grids.UTM)
        worst = max(worst, abs(utm_seabed.depth_at(n, e) + grids.utm_surface(x, y, x0, y0)))
    assert worst < 0.05
    assert utm_seabed.cell == pytest.approx(grids.CELL, rel=2e-3)   # the UTM scale factor at the origin


def test_the_gradient_is_the_slope_of_the_analytic_surface(utm_seabed):
    """d depth / d north and east against central differences of the analytic surface (2 m)."""
    x0, y0 = grids.utm_origin()
    analytic = lambda n, e: -grids.utm_surface(*grids.place(n, e, grids.UTM)[0], x0, y0)
    for n, e in _points(20, seed=5):
        _, dn, de = utm_seabed.lookup(n, e)
        assert dn == pytest.approx((analytic(n + 1, e) - analytic(n - 1, e)) / 2, abs=2e-3)
        assert de == pytest.approx((analytic(n, e + 1) - analytic(n, e - 1)) / 2, abs=2e-3)


def test_netcdf_with_a_cf_grid_mapping(tmp_path, utm_seabed):
    seabed = load_seabed(grids.write_utm_netcdf(tmp_path / "utm.nc"), *grids.ORIGIN)
    x0, y0 = grids.utm_origin()
    for n, e in _points(200, seed=7):
        (x, y), _ = grids.place(n, e, grids.UTM)
        assert seabed.depth_at(n, e) == pytest.approx(-grids.utm_surface(x, y, x0, y0), abs=0.05)


def test_netcdf_latlon_without_grid_mapping_is_wgs84(tmp_path):
    """GEBCO's form: CF lat/lon coordinates, no grid mapping: WGS 84."""
    seabed = load_seabed(grids.write_latlon_netcdf(tmp_path / "gebco_like.nc"), *grids.ORIGIN)
    for n, e in _points(200, reach=1100.0, seed=9):
        _, (lat, lon) = grids.place(n, e, "EPSG:4326")
        assert seabed.depth_at(n, e) == pytest.approx(-grids.geographic_surface(lon, lat), abs=0.05)


def test_npz_and_xyz_in_a_projected_crs(tmp_path, utm_seabed):
    x0, y0 = grids.utm_origin()
    xs = math.floor(x0) - 600.0 + 10.0 * np.arange(121)
    ys = math.floor(y0) - 600.0 + 10.0 * np.arange(121)
    z = grids.utm_surface(*np.meshgrid(xs, ys), x0, y0)
    np.savez(tmp_path / "g.npz", elevation=z, x=xs, y=ys, crs=grids.UTM)
    X, Y = np.meshgrid(xs, ys)
    np.savetxt(tmp_path / "g.xyz", np.column_stack([X.ravel(), Y.ravel(), z.ravel()]), header=f"crs: {grids.UTM}",
               comments="# ")
    for name in ("g.npz", "g.xyz"):
        seabed = load_seabed(tmp_path / name, *grids.ORIGIN)
        for n, e in _points(50, reach=450.0, seed=11):
            # 10 m cells: the same seabed within a few centimetres of the 5 m GeoTIFF's
            assert seabed.depth_at(n, e) == pytest.approx(utm_seabed.depth_at(n, e), abs=0.1), name


def test_matplotlib_topobathy_sample_is_a_real_seabed():
    """matplotlib's topography and bathymetry sample (longitudes 234..238 east): the Strait of
    Juan de Fuca region; off Vancouver Island's coast the sea is about 100-2500 m deep."""
    from matplotlib import cbook
    path = cbook.get_sample_data("topobathy.npz", asfileobj=False)
    seabed = load_seabed(path, 48.5, -125.5)
    depth = seabed.depth_at(0.0, 0.0)
    assert 50.0 < depth < 2500.0
    with np.load(path) as data:   # the nearest node of the file agrees in sign and size
        i = int(np.argmin(abs(data["latitude"] - 48.5)))
        j = int(np.argmin(abs(data["longitude"] - 234.5)))
        assert -data["topo"][i, j] == pytest.approx(depth, rel=0.5)


# ---- errors

def test_off_the_grid_and_holes_are_named_errors(tmp_path, utm_seabed):
    with pytest.raises(OffGridError, match=r"north 2000\.00 m, east 0\.00 m.*utm.tif|utm.tif.*north 2000\.00 m"):
        utm_seabed.depth_at(2000.0, 0.0)
    holed = load_seabed(grids.write_utm_geotiff(tmp_path / "holed.tif", nodata_hole=True), *grids.ORIGIN)
    hits = [holed.depths(n, e) for n in np.arange(-40.0, 40.0, 2.0) for e in np.arange(150.0, 300.0, 2.0)]
    assert np.isnan(hits).any() and np.isfinite(hits).any()
    n, e = next((n, e) for n in np.arange(-40.0, 40.0, 2.0) for e in np.arange(150.0, 300.0, 2.0)
                if np.isnan(holed.depths(n, e)))
    with pytest.raises(OffGridError, match="nodata"):
        holed.depth_at(n, e)
    assert np.isnan(seabed_depth(holed.depth, holed.north0, holed.east0, holed.cell, n, e)[0])


def test_bad_files_are_refused_naming_the_file_and_the_problem(tmp_path):
    import xarray as xr

    def refused(name, match):
        with pytest.raises(SeabedError, match=match) as e:
            load_seabed(tmp_path / name, *grids.ORIGIN)
        assert name in str(e.value)

    refused("missing.tif", "no such file")
    (tmp_path / "g.csv").write_text("1,2,3\n")
    refused("g.csv", "unknown format")
    with rasterio.open(tmp_path / "nocrs.tif", "w", driver="GTiff", width=8, height=8, count=1, dtype="float32") as ds:
        ds.write(np.zeros((8, 8), "float32"), 1)
    refused("nocrs.tif", "no CRS")
    xr.Dataset({"z": (("y", "x"), np.zeros((5, 5)))}, coords={"x": np.arange(5.0), "y": np.arange(5.0)}).to_netcdf(
        tmp_path / "nomap.nc")
    refused("nomap.nc", "CRS is unknown")
    xr.Dataset({"a": (("y", "x"), np.zeros((5, 5))), "b": (("y", "x"), np.zeros((5, 5)))}).to_netcdf(tmp_path / "two.nc")
    refused("two.nc", "cannot tell the elevation")
    np.savez(tmp_path / "unsorted.npz", elevation=np.zeros((5, 5)), x=[0, 1, 2, 1.5, 5.0], y=np.arange(5.0), crs=grids.UTM)
    refused("unsorted.npz", "not strictly monotonic")
    np.savez(tmp_path / "nocrs.npz", elevation=np.zeros((5, 5)), x=np.arange(5.0), y=np.arange(5.0))
    refused("nocrs.npz", "crs")
    (tmp_path / "g.xyz").write_text("0 0 -1\n1 0 -1\n")
    refused("g.xyz", "# crs:")
    (tmp_path / "far.xyz").write_text("# crs: EPSG:32632\n" + "".join(
        f"{x} {y} -10\n" for x in range(0, 50, 10) for y in range(0, 50, 10)))
    with pytest.raises(SeabedError, match="far.xyz"):
        load_seabed(tmp_path / "far.xyz", *grids.ORIGIN).depth_at(0.0, 0.0)
    with pytest.raises(ValueError, match="OriginLatitude"):
        load_seabed(tmp_path / "far.xyz", 95.0, 0.0)
