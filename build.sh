#!/usr/bin/env bash
# One entry point for a fresh clone:
#   ./build.sh          create .venv if missing, install the project, build the FMUs into fmus/
#   ./build.sh test     ... then run the test suite (extra arguments go to pytest)
#   ./build.sh run      ... then fly the default survey (extra arguments go to `auv-cosim run`)
# Idempotent: the install is redone only when pyproject.toml changes, an FMU only when its
# sources change.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

if [ ! -x "$PY" ]; then
    echo "build.sh: creating $VENV"
    python3 -m venv "$VENV"
fi

stamp="$VENV/.installed-$( (cat pyproject.toml; "$PY" --version) | sha1sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    echo "build.sh: installing the project and its campaign, test, hosts and outputs extras into $VENV"
    "$PY" -m pip install --quiet --upgrade pip
    "$PY" -m pip install --quiet -e ".[campaign,test,hosts,outputs]"
    rm -f "$VENV"/.installed-*
    touch "$stamp"
fi

# Ecos (ecospy, in the hosts extra) needs the TBB runtime: install it where this can (root with
# apt-get); otherwise the tests that run Ecos skip and say why.
if ! "$PY" -c "import ecospy" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
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
    "$PY" tools/build_fmus.py
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
        exec "$PY" -m pytest "$@"
        ;;
    run)
        shift
        exec "$VENV/bin/auv-cosim" run scenarios/survey.yaml "$@"
        ;;
    "")
        ;;
    *)
        echo "build.sh: unknown command '$1' (use: test, run, or nothing)" >&2
        exit 2
        ;;
esac
