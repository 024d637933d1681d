"""What the package is measured against: transcriptions and checks written independently of
auv_cosim's internals, kept in the clone and shared by the tests and the tools.

    wake_oracle         the wake field of docs/physics/environment.md#wake-field, transcribed
                        in plain Python and NumPy, without the vehicle library
    readers             a run's output files read back with the libraries' own readers
                        (mcap, rosbags, csv), not the writers'
    golden              the golden baselines of tests/baselines/: fly a case, reduce it, compare
                        it within the tolerance of tests/baselines/cases.yaml
    results_identical   every scenario's results.csv against the sha256 recorded in
                        tests/integration/results_sha256.json (bit-for-bit reproducibility)
    wake_pair           two Auv.fmu instances wired to each other's wake by fmpy alone, and the
                        same pair flown by the vehicle library alone
    ident_trial         identification trials nobody tuned the fit to: an FMU with perturbed
                        true parameters flown open loop through fmpy, noise added
    synthetic_seabed    the terrain-following scenario's seabed (ridges, a canyon, sand waves),
                        as the package ships it

Why a folder of its own: a test and a tool often need the same reference (the golden baselines
are compared by a test and refreshed by a tool; the results' hashes are checked by both), and
neither may import the other: tests check what the tools print and build, the tools are
commands a user runs. Both import from here; this package imports neither
(tests/test_references.py checks all three directions). It is not shipped: the wheel holds
auv_cosim alone, and nothing of auv_cosim imports it. It uses the package as a user does: its
command line, its FMUs through fmpy, and (for the library-only loops) its plain-Python vehicle
library.
"""
