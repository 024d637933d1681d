#!/usr/bin/env bash
# Fly fmus/Auv.fmu in a co-simulation tool that is not this project's master: Ecos
# (pip package `ecospy`), once through its Python API and once through its C++ command line
# (`ecos simulate`, a host with no Python of its own). The recipe of docs/using_auv_fmu.md.
#
#   tools/try_auv_in_ecos.sh [WORKDIR]      (default WORKDIR: /tmp/auv-ecos)
#
# Creates WORKDIR/venv (Python 3.11 from $PYTHON, default python3.11) with ecospy, numpy, scipy
# and numba from PyPI: none of the project's own packages. The command line runs in an empty
# environment but FMU_PYTHON_EXECUTABLE, which points the FMU at that venv's interpreter. Ecos needs the TBB runtime
# (Debian/Ubuntu: apt-get install libtbb12).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FMU="$ROOT/fmus/Auv.fmu"
WORK=${1:-/tmp/auv-ecos}
PYTHON=${PYTHON:-python3.11}
[ -f "$FMU" ] || { echo "build the FMU first: ./build.sh" >&2; exit 2; }
mkdir -p "$WORK"
cd "$WORK"

if [ ! -x venv/bin/python ]; then
    "$PYTHON" -m venv venv
    venv/bin/pip install --quiet ecospy numpy scipy numba
fi
echo "== 1. ecospy Python API (the FMU runs in the host's own interpreter)"
cat > ecos_auv.py <<'EOF'
import sys, time
from ecospy import EcosLib, EcosSimulationStructure, EcosSimulation
EcosLib.set_log_level("warn")
t0 = time.time()
with EcosSimulationStructure() as ss:
    ss.add_model("auv", sys.argv[1])
    ss.add_parameter_set("cruise", {"auv::Pos0[3]": 10.0, "auv::AverageDensity": 1025.0,
                                    "auv::LocalVel0[1]": 1.3, "auv::ThrustPower": 30.0})
    with EcosSimulation(structure=ss, step_size=0.1) as sim:
        sim.add_csv_writer("auv_api.csv", identifiers=["auv::Speed", "auv::Depth", "auv::Pos[1]", "auv::Battery"])
        sim.init(parameter_set="cruise")
        sim.step_until(120.0)
        print(f"t={sim.get_time():.1f} s  Speed={sim.get_real('auv::Speed'):.4f} m/s  "
              f"Depth={sim.get_real('auv::Depth'):.3f} m  North={sim.get_real('auv::Pos[1]'):.2f} m  "
              f"Battery={sim.get_real('auv::Battery'):.0f} J  (wall {time.time() - t0:.1f} s)")
        sim.terminate()
EOF
venv/bin/python ecos_auv.py "$FMU"

echo "== 2. ecos command line: a C++ host without Python; no LD_PRELOAD, the FMU starts Python itself"
ECOS=$(venv/bin/python -c 'import ecospy, os; print(os.path.join(os.path.dirname(ecospy.__file__), "binaries", "ecos"))')
chmod +x "$ECOS"
# the interpreter of this throwaway venv, not the one the FMU was built in (docs/using_auv_fmu.md)
set +e
env -i PATH="$PATH" HOME="$HOME" FMU_PYTHON_EXECUTABLE="$WORK/venv/bin/python" \
    "$ECOS" simulate --path "$FMU" --stepSize 0.1 --stopTime 10 --logLevel warn
status=$?
set -e
echo "ecos exit status: $status"
venv/bin/python - <<'EOF'
import csv
rows = list(csv.reader(open("Auv.csv")))
head = [c.strip() for c in rows[0]]
for name in ("instance::Battery[REAL]", "instance::Altitude[REAL]"):
    i = head.index(name)
    print(f"{name}: {rows[1][i].strip()} -> {rows[-1][i].strip()}")
EOF
