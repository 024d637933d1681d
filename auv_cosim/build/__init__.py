"""The FMU build: every FMU the registered units declare, built with pythonfmu 0.7.0 and its
modelDescription completed, from a clone or from an installed package alike.

    auv-cosim build --all                      # every FMU, into units.fmu_folder() (fmus/ in a clone)
    auv-cosim build Auv --out DIR              # one FMU where a user wants it
    python tools/build_fmus.py                 # a clone's build (build.sh calls this): fmus/
    python tools/build_fmus.py --force Auv     # rebuild one FMU
    python tools/build_fmus.py --jobs 1        # one FMU at a time (default: one per core, at most 2)
    python tools/build_fmus.py --no-check      # skip fmpy validate / fmutool -check

Its modules: ``specs`` (what is built from what, the sources' hash, the staging), ``carry``
(what an FMU carries of the package, under its build's name), ``description`` (the completed
modelDescription.xml), ``shipping`` (caches, bytecode, requirements, validation),
``native_wrapper`` (the project's FMI binary, compiled from ``auv_cosim/build/native/``), ``driver`` (the
children, the stamps, the command line), ``command`` (``auv-cosim build``).

For each FMU the registered units declare (`Unit.fmus`, auv_cosim/units.py) the build
1. hashes its sources (the FMU floors of auv_cosim, its slave script, its vehicle files, the
   build's modules, pythonfmu's version) and skips the FMU when DEST/.build-stamp-NAME holds that hash and
   DEST/NAME.fmu exists;
2. stages the package under the name the FMUs of these sources carry it under
   (carry.py: `_auv_cosim_<hash>`, never `auv_cosim`, whatever a host has imported)
   and the slave script written for it, and runs pythonfmu's builder on the modules the slave
   imports, in a child process so that every FMU is built from a fresh interpreter;
3. completes modelDescription.xml, which pythonfmu 0.7.0 leaves incomplete: <UnitDefinitions>
   with SI base-unit exponents (auv_cosim/fmu/units.py), `unit` on every Real that has one, a
   legal variability on every variable, <ModelStructure> with <Outputs> (dependencies where the
   slave declared them) and <InitialUnknowns>, and the capability flags the slave declares
   (`fmu_capabilities`, e.g. canGetAndSetFMUstate / canSerializeFMUstate);
4. ships numba's cache of the carried modules (compiled by a step of the slave and the spec's
   warm-ups) and the bytecode of every carried source (`add_bytecode`: checked against the
   source's hash, so that a fresh extraction does not compile what it imports), the vehicle
   file prepared by its unit (`prepare_vehicle_file`: the H100's resolved file, the FMU reads no YAML) and `resources/requirements.txt`
   (`add_requirements`: the packages the slave imports and a run loads, pinned);
5. checks the result with fmpy's validator and `fmutool -input X -check`, and only then moves
   it into DEST (atomically) and writes the stamp.

Compiled caches shared by several FMUs are compiled once per build. The FMUs of a cache group
(`FmuSpec.cache_group`: the AUV's instruments and control, which call each other's kernels in
one host; the four H100 FMUs, which share the vehicle library) get numba's cache from one
child that stages the package once, steps every member's slave and runs every member's
warm-ups (`build_group_cache`), into `<dest>/.compiled/<group>-<hash>/` (kept for the next
build of a member; the hash is that of every member's sources). Each member then ships the
cache files of the modules it carries from there, so a member is the same whether it is built
alone, with the others, one at a time or in parallel (tests/test_build_fmus.py). The FMUs that
are stale and the group caches they need are built `--jobs` at a time (one child each).

Units, descriptions and output dependencies come from the slave itself: slaves derived from
`auv_cosim.fmu.FmuSlave` record them when they register a variable (`self.fmu_meta`), and so
do the ranges (`min` / `max`).

Layout of an FMU: resources/<vendor>_<NAME>.py (the slave script, a top-level module),
resources/<vendor>/ (the modules of auv_cosim it carries, with numba's cache of them),
resources/vehicles/ for a vehicle built from a file, resources/pythonfmu/, and beside every
source its bytecode in __pycache__.

A slave script that does not exist yet is skipped with a note. Exit status: 0 when every
existing FMU is built and valid, 1 otherwise.
"""
