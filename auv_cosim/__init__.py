"""auv-cosim: FMI 2.0 co-simulation of underwater vehicles.

The survey AUV of the seeds (`auv_cosim.vehicles.auv`) and the H100 ROV
(`auv_cosim.vehicles.h100`), their instruments and control stacks (`auv_cosim.stacks`), each an
FMU built with pythonfmu (`auv_cosim.fmu`), flown by an fmpy-driven master
(`auv_cosim.master`) from scenario files; campaigns, analyses and identification on top. The
command is `auv-cosim` (the same as `python -m auv_cosim`); docs/architecture.md draws the
packages and which way their imports go.

The floors every FMU carries (`compiled`, `fmu`, `vehicles`, `stacks`) import each other
relatively: an FMU carries them under a package name of its own build, so that it runs the code
it was built with whatever else its host has imported.
"""

__version__ = "0.1.0"
