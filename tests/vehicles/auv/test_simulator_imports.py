"""What the vehicle library imports of SciPy (auv_cosim/compiled/scipy_internals.py): the module of `ode`
(DOPRI5) without the rest of scipy.integrate (quadratures, BVP, solve_ivp, and scipy.special,
optimize and sparse behind them), and the BLAS module numba's compiled matrix products call
without the rest of scipy.linalg: together about half of an FMU's start-up (issue 15). A later
`import scipy.integrate` / `scipy.linalg` still gets the whole package, with the same modules.
Checked in fresh interpreters."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("scipy.integrate", "scipy.linalg", "scipy.special", "scipy.optimize", "scipy.sparse")


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), capture_output=True, text=True,
                          check=True).stdout


def test_a_step_and_a_linearisation_load_neither_package():
    out = _run("import sys\nfrom auv_cosim.vehicles import VehicleSimulator\nfrom auv_cosim.vehicles.auv import AuvModel, inputs\n"
               "m = AuvModel()\nx = m.cruise_state(1.5)\nu = inputs(m.cruise_power(1.5))\n"
               "s = VehicleSimulator(m, x)\ns.advance(0.0, 0.1, u)\n"
               "a, b = m.linearize(x, u)\n"   # the analytic Jacobians: numba's `@`, through BLAS
               f"print(' '.join(p for p in {HEAVY!r} if p in sys.modules) or '-')\n"
               "print(s.state[0] > 0.1, a.shape, type(s._solver).__module__)")
    loaded, result = out.splitlines()
    assert loaded == "-"
    assert result == "True (14, 14) scipy.integrate._ode"


def test_a_later_import_of_the_packages_is_the_whole_package_with_the_same_modules():
    out = _run("import auv_cosim.vehicles.simulator as s\nimport scipy.linalg.cython_blas as blas\n"
               "import scipy.integrate, scipy.linalg\nfrom scipy.integrate import quad, solve_ivp\n"
               "print(scipy.integrate.ode is s.ode, scipy.linalg.cython_blas is blas,"
               " round(quad(lambda x: x * x, 0.0, 3.0)[0], 9), float(scipy.linalg.det([[2.0, 0.0], [0.0, 3.0]])))")
    assert out.split() == ["True", "True", "9.0", "6.0"]


def test_a_host_that_imported_scipy_integrate_first_shares_it():
    out = _run("import scipy.integrate\nimport auv_cosim.vehicles.simulator as s\nprint(scipy.integrate.ode is s.ode)")
    assert out.split() == ["True"]
