"""Compile the project's native FMI 2.0 wrapper (native/*.c and native/wrapper.h beside this
module: package data, so that an installed package builds FMUs too) and put it into an FMU.

The build (auv_cosim/build/driver.py) calls `install(fmu, model_identifier)` on every FMU it builds: the Linux
binary pythonfmu 0.7.0 wrote (binaries/linux64/<id>.so) is replaced by the project's wrapper,
compiled here with the system C compiler, and resources/python_environment.txt records the
interpreter the FMU was built with (read by the wrapper only when the host has no Python of
its own; see native/python_fmu.c and docs/using_auv_fmu.md). The Windows binary stays
pythonfmu's.

The compiler is $CC when set, else the first of cc, gcc, clang on the PATH. With none (or $CC
naming a program that does not exist) the FMU keeps pythonfmu's stock binary and a note says
what that costs (docs/development.md, "Without a C compiler"); a compiler that exists but fails is an error.

    python -m auv_cosim.build.native_wrapper   # say which compiler would be used, build once
"""
from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import List

from auv_cosim.master.native_loop import find_compiler  # the master's C loop uses the same one

NATIVE = Path(__file__).resolve().parent / "native"
#: the wrapper's C files, compiled together into one shared library (auv_cosim/build/native/wrapper.h: its parts)
SOURCES = tuple(sorted(NATIVE.glob("*.c")))
ENVIRONMENT_FILE = "resources/python_environment.txt"
#: first line of ENVIRONMENT_FILE: how tests and tools tell the project's wrapper from pythonfmu's
MARKER = "# auv-cosim native FMI 2.0 wrapper"
CFLAGS = ("-std=c99", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra",
          "-Werror")
LIBS = ("-ldl", "-lpthread")

NO_COMPILER_COST = ("pythonfmu's stock binary is kept: a host without Python of its own needs "
                    "LD_PRELOAD of libpython, the process may crash at exit, and a bad parameter "
                    "gives fmi2Fatal (see docs/development.md, 'Without a C compiler')")


class CompileError(RuntimeError):
    """The compiler exists but could not build the wrapper."""


def python_environment() -> str:
    """The text of resources/python_environment.txt: the interpreter the FMU was built with,
    the wrapper's second candidate in a host without Python (it asks the interpreter itself for
    its libpython)."""
    lines = [
        MARKER,
        "# Read by binaries/linux64/*.so only when it has to start Python itself (a host without",
        "# Python): its second candidate, after FMU_PYTHON_EXECUTABLE and before python3 on PATH,",
        "# used when it still exists and has what requirements.txt lists (docs/using_auv_fmu.md).",
        f"executable={sys.executable}",
    ]
    return "\n".join(lines) + "\n"


def digest_text() -> str:
    """What of the wrapper goes into an FMU, for the build's up-to-date check."""
    compiler = find_compiler()
    parts = [path.read_bytes() for path in (*SOURCES, *sorted(NATIVE.glob("*.h")), Path(__file__))]
    digest = hashlib.sha256(b"".join(parts)).hexdigest()
    return f"native wrapper {digest} compiler {compiler} {python_environment()}"


def compile_wrapper(output: Path, compiler: List[str]) -> Path:
    """Compile the wrapper's C files (SOURCES) into the shared library `output`."""
    command = [*compiler, *CFLAGS, "-o", str(output), *map(str, SOURCES), *LIBS]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise CompileError(f"{shlex.join(command)} failed:\n{result.stdout}{result.stderr}")
    return output


def install(fmu: Path, model_identifier: str) -> bool:
    """Put the compiled wrapper into `fmu` (in place). False when no compiler was found and the
    stock binary was kept (a note is printed)."""
    compiler = find_compiler()
    if compiler is None:
        print(f"  note: no C compiler (CC={os.environ.get('CC', '')!r}, cc, gcc, clang): "
              f"{fmu.name}: {NO_COMPILER_COST}", flush=True)
        return False
    member = f"binaries/linux64/{model_identifier}.so"
    with tempfile.TemporaryDirectory(prefix="native-wrapper-") as folder:
        library = compile_wrapper(Path(folder) / f"{model_identifier}.so", compiler)
        replaced = fmu.with_name(fmu.name + ".native")
        with zipfile.ZipFile(fmu) as source, \
                zipfile.ZipFile(replaced, "w", zipfile.ZIP_DEFLATED) as target:
            names = source.namelist()
            if member not in names:
                raise FileNotFoundError(f"{fmu}: no {member} to replace")
            for info in source.infolist():
                if info.filename not in (member, ENVIRONMENT_FILE):
                    target.writestr(info, source.read(info.filename))
            target.write(library, member)
            target.writestr(ENVIRONMENT_FILE, python_environment())
        os.replace(replaced, fmu)
    return True


def has_native_wrapper(fmu: Path) -> bool:
    """Whether `fmu` carries the project's wrapper (else pythonfmu's stock binary)."""
    with zipfile.ZipFile(fmu) as archive:
        try:
            return archive.read(ENVIRONMENT_FILE).decode().startswith(MARKER)
        except KeyError:
            return False


def main() -> int:
    compiler = find_compiler()
    if compiler is None:
        print(f"no C compiler: {NO_COMPILER_COST}")
        return 1
    with tempfile.TemporaryDirectory() as folder:
        compile_wrapper(Path(folder) / "python_fmu.so", compiler)
    print(f"compiled {', '.join(s.name for s in SOURCES)} with {shlex.join(compiler)}")
    print(python_environment(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
