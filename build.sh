#!/usr/bin/env bash
# One entry point for a fresh clone:
#   ./build.sh          create .venv if missing, install the project with its extras, build every FMU into fmus/
#   ./build.sh test     ... then run the test suite (extra arguments go to pytest; two workers
#                       with pytest-xdist unless they say -n or -p no:xdist)
#   ./build.sh run      create .venv, install the project alone, build the survey's three FMUs
#                       and fly it (extra arguments go to `auv-cosim run`); the extras and the
#                       other FMUs come with ./build.sh (auv-cosim run builds an FMU a scenario
#                       needs that is missing, and says so)
# Idempotent: the install is redone only when pyproject.toml changes, an FMU only when its
# sources change. Each phase says how long it took.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

if [ ! -x "$PY" ]; then
    echo "build.sh: creating $VENV"
    t0=$(now)
    python3 -m venv "$VENV"
    echo "build.sh: created in $(since "$t0") s"
fi
COMMAND="${1:-}"

# `run` needs the project alone; everything else its extras too (campaigns, tests, other hosts,
# outputs, bathymetry files). One stamp per set: the full set stands for the project alone too.
EXTRAS="campaign,test,hosts,outputs,seabed"
hash=$( (cat pyproject.toml; "$PY" --version) | sha1sum | cut -c1-16)
full_stamp="$VENV/.installed-full-$hash"
core_stamp="$VENV/.installed-core-$hash"
if [ ! -f "$full_stamp" ] && { [ "$COMMAND" != run ] || [ ! -f "$core_stamp" ]; }; then
    t0=$(now)
    # pip from 21.3 installs a pyproject project editable; an older one is brought up to date
    "$PY" -c "import pip, sys; sys.exit(tuple(map(int, pip.__version__.split('.')[:2])) < (21, 3))" \
        || "$PY" -m pip install --quiet --upgrade pip
    if [ "$COMMAND" = run ]; then
        # without compiling every installed module's bytecode (half of pip's time): the run
        # compiles what it imports, and the full install below compiles the rest
        echo "build.sh: installing the project into $VENV (its extras come with ./build.sh)"
        "$PY" -m pip install --quiet --no-compile --disable-pip-version-check -e .
        rm -f "$VENV"/.installed-core-*
        touch "$core_stamp"
    else
        echo "build.sh: installing the project and its ${EXTRAS//,/, } extras into $VENV"
        "$PY" -m pip install --quiet --disable-pip-version-check -e ".[$EXTRAS]"
        # the bytecode of what an earlier `./build.sh run` installed without it
        "$PY" -m compileall -q -j 0 "$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
            >/dev/null 2>&1 || true
        rm -f "$VENV"/.installed-*
        touch "$full_stamp"
    fi
    echo "build.sh: installed in $(since "$t0") s"
fi

# Ecos (ecospy, in the hosts extra) needs the TBB runtime: install it where this can (root with
# apt-get); otherwise the tests that run Ecos skip and say why.
if [ "$COMMAND" != run ] && ! "$PY" -c "import ecospy" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "build.sh: installing libtbb12 (the TBB runtime of Ecos) with apt-get"
    { apt-get install -y -qq libtbb12 || { apt-get update -qq && apt-get install -y -qq libtbb12; }; } \
        >/dev/null 2>&1 || echo "build.sh: could not install libtbb12; the Ecos tests will skip"
fi

# The project's own bytecode, compiled ahead as pip compiles an installed package's: an editable
# install gets none, and a Python that may not write bytecode (PYTHONDONTWRITEBYTECODE=1, as on
# this project's CI machines) would otherwise compile auv_cosim from source at the start of every
# run (about 0.1 s of CPU before the first step). Only changed sources are compiled.
"$PY" -m compileall -q -j 0 auv_cosim >/dev/null

if [ -f tools/build_fmus.py ]; then
    t0=$(now)
    if [ "$COMMAND" = run ]; then
        "$PY" tools/build_fmus.py --survey -q
        echo "build.sh: the survey's FMUs ready in $(since "$t0") s (the others: ./build.sh)"
    else
        "$PY" tools/build_fmus.py -q
        echo "build.sh: FMUs ready in $(since "$t0") s"
    fi
fi
# the master's stepping loop in C (auv_cosim/master/native_loop.py), compiled ahead into the user's cache
"$PY" -m auv_cosim.master.native_loop

# The test of the 3-D view (tests/master/test_view.py) opens it in headless Chromium: Debian's
# `chromium`, installed here when missing and we may (root with apt-get); otherwise that test
# skips and says why.
ensure_chromium() {
    if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
        return 0
    fi
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "build.sh: installing chromium (headless browser check of the 3-D view)"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium) \
            >/dev/null 2>&1 || echo "build.sh: WARNING: could not install chromium; the browser check of the 3-D view will be skipped" >&2
    else
        echo "build.sh: WARNING: chromium missing (not root): the browser check of the 3-D view will be skipped" >&2
    fi
}

case "${1:-}" in
    test)
        shift
        ensure_chromium
        # two workers (pytest-xdist, the test extra) unless the arguments choose: the suite's
        # tests are independent and its shared fixtures are made once per worker
        workers=(-n 2)
        for arg in "$@"; do
            case "$arg" in -n|-n*|--numprocesses*|xdist|no:xdist) workers=() ;; esac
        done
        "$PY" -c "import xdist" 2>/dev/null || workers=()
        exec "$PY" -m pytest ${workers[@]+"${workers[@]}"} "$@"
        ;;
    run)
        shift
        echo "build.sh: flying the survey"
        t0=$(now)
        status=0
        "$VENV/bin/auv-cosim" run survey "$@" || status=$?
        echo "build.sh: flown in $(since "$t0") s"
        exit "$status"
        ;;
    "")
        ;;
    *)
        echo "build.sh: unknown command '$1' (use: test, run, or nothing)" >&2
        exit 2
        ;;
esac
