"""The command ``auv-cosim`` (the same as ``python -m auv_cosim``): auv_cosim/cli.py.

The process ends with ``os._exit`` once everything is written and flushed. The FMUs run their
Python code inside this interpreter; pythonfmu 0.7.0's native binary (which the FMUs keep when
they were built without a C compiler) tears itself down twice at exit and has been seen to abort
the process now and then ("corrupted double-linked list") after a perfectly good run. The
project's own wrapper does not, but nothing is left to do at that point either way, so the
command skips the finalisation and keeps its exit status honest.
"""
import os
import sys


def main() -> None:
    from auv_cosim.master.threads import single_threaded_blas

    single_threaded_blas()   # before anything imports numpy
    from auv_cosim.cli import main as run_command

    try:
        code = run_command()
    except SystemExit as e:  # argparse (--help, usage errors)
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        code = 130
    finally:
        try:
            from auv_cosim.master.fmu_cache import cleanup_temporary

            cleanup_temporary()
        except Exception:
            pass
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
