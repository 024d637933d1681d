#!/usr/bin/env python3
"""Build the project's FMUs into fmus/ (a clone's build; ./build.sh calls it): the package's
build (auv_cosim/build/, also `auv-cosim build`), with the clone's fmus/ as the destination.

    python tools/build_fmus.py                 # build what changed
    python tools/build_fmus.py Auv AuvSensors  # only these (./build.sh run: --survey)
    python tools/build_fmus.py --force Auv     # rebuild one FMU
    python tools/build_fmus.py --list          # the names of every FMU the units declare

Its names (FmuSpec, build_all, FMUS, ROOT, ...) are the package's, for the tools and tests that
build FMUs of their own (tools/build_noop_fmus.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the clone's package, also uninstalled

from auv_cosim.build.description import complete_model_description, rewrite_zip_member  # noqa: E402,F401
from auv_cosim.build.driver import build_all, build_group_cache, build_one, main  # noqa: E402,F401
from auv_cosim.build.shipping import (add_bytecode, add_requirements, bytecode_member, requirements_text,  # noqa: E402,F401
                                      validate)
from auv_cosim.build.specs import ROOT, FmuSpec, registered_specs, source_digest  # noqa: E402,F401

DEFAULT_DEST = ROOT / "fmus"
#: every FMU of the registered units
FMUS = registered_specs()

if __name__ == "__main__":
    argv = sys.argv[1:]
    sys.exit(main(argv if "--dest" in argv or any(a.startswith("--dest=") for a in argv)
                  else [*argv, "--dest", str(DEFAULT_DEST)], prog="build_fmus.py"))
