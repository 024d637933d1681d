"""Run an FMU or an SSP archive in another co-simulation host and print what it computed.

    python tests/hosts/host_runs.py HOST SOURCE --stop S --step H [--every N]
           [--set NAME=VALUE ...] [--parameter-set NAME] [--read INSTANCE.VARIABLE ...]

HOST is `libcosim` (libcosimpy, the Open Simulation Platform's engine), `ecos-api` (ecospy's
Python API) or `ecos-cli` (the `ecos` command line that ecospy's wheel carries, a C++ process
without Python: run with no environment but PATH and HOME). SOURCE is an .fmu (one instance
named `vehicle`, `--set` giving its start values), an .ssp archive (its parameter set:
`--parameter-set`, which Ecos needs and libcosim does not) or, for libcosim, an
OspSystemStructure.xml (`auv-cosim export-osp`). Prints one JSON object:
{"steps": [k, ...], "values": {"vehicle.Pos[1]": [...], ...}} with the values read every N
steps (k = N, 2N, ... up to round(S/H)), and exits with 0 when the host did (a host that
crashes at exit shows here as a non-zero status). Used by tests/integration/test_other_hosts.py and
tools/prove_hosts.py.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def _values(pairs):
    out = {}
    for item in pairs:
        name, value = item.split("=", 1)
        out[name] = float(value)
    return out


def run_libcosim(source: Path, args) -> dict:
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.WARNING)
    step_ns = int(round(args.step * 1e9))
    if source.suffix == ".ssp":
        execution = CosimExecution.from_ssp_file(str(source), step_ns)
    elif source.suffix == ".xml":   # an OspSystemStructure.xml (auv-cosim export-osp)
        execution = CosimExecution.from_osp_config_file(str(source))
    else:
        execution = CosimExecution.from_step_size(step_ns)
        slave = CosimLocalSlave(fmu_path=str(source), instance_name="vehicle")
        execution.add_local_slave(slave)
    observer = CosimObserver.create_last_value()
    execution.add_observer(observer)
    references = {}
    for target in args.read:
        instance, variable = target.split(".", 1)
        index = execution.slave_index_from_instance_name(instance)
        names = {(v.name.decode() if isinstance(v.name, bytes) else v.name): v.reference
                 for v in execution.slave_variables(index)}
        references[target] = (index, names[variable])
        if source.suffix not in (".ssp", ".xml"):
            for name, value in _values(args.set).items():
                execution.real_initial_value(index, names[name], value)
    n_steps = int(round(args.stop / args.step))
    result = {"steps": [], "values": {t: [] for t in args.read}}
    for k in range(args.every, n_steps + 1, args.every):
        execution.simulate_until(target_time=k * step_ns)
        result["steps"].append(k)
        for target, (index, reference) in references.items():
            result["values"][target].append(observer.last_real_values(index, [reference])[0])
    execution.stop()
    return result


def run_ecos_api(source: Path, args) -> dict:
    from ecospy import EcosLib, EcosSimulation, EcosSimulationStructure

    EcosLib.set_log_level("warn")
    structure = None
    parameter_set = args.parameter_set
    if source.suffix == ".ssp":
        simulation = EcosSimulation(step_size=args.step, ssp_path=str(source))
    else:
        structure = EcosSimulationStructure()
        structure.add_model("vehicle", str(source))
        parameter_set = "start"
        structure.add_parameter_set(parameter_set, {f"vehicle::{k}": v for k, v in _values(args.set).items()})
        simulation = EcosSimulation(structure=structure, step_size=args.step)
    simulation.init(parameter_set=parameter_set)
    n_steps = int(round(args.stop / args.step))
    result = {"steps": [], "values": {t: [] for t in args.read}}
    done = 0
    for k in range(args.every, n_steps + 1, args.every):
        simulation.step(k - done)   # whole steps: Ecos adds up its time, step_until(t) may stop one short
        done = k
        result["steps"].append(k)
        for target in args.read:
            result["values"][target].append(simulation.get_real(target.replace(".", "::", 1)))
    simulation.terminate()
    simulation.free()
    if structure is not None:
        structure.free()
    return result


def ecos_binary() -> Path:
    import ecospy

    binary = Path(ecospy.__file__).parent / "binaries" / "ecos"
    if not os.access(binary, os.X_OK):
        binary.chmod(0o755)
    return binary


def run_ecos_cli(source: Path, args) -> dict:
    """The ecos command line, in a clean environment, with its CSV limited to the values read
    (its default CSV breaks on string values with commas) and written with 6 decimals."""
    with tempfile.TemporaryDirectory(prefix="ecos-cli-") as folder:
        folder = Path(folder)
        config = folder / "csv.xml"
        # a lone FMU is the instance `instance` in Ecos; the results call it `vehicle`
        alias = {"vehicle": "instance"} if source.suffix != ".ssp" else {}
        by_instance: dict[str, list[str]] = {}
        for target in args.read:
            instance, variable = target.split(".", 1)
            instance = alias.get(instance, instance)
            by_instance.setdefault(instance, []).append(variable)
        config.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                          '<ecos:CsvConfig xmlns:ecos="urn:ecos:csv" decimationFactor="1"><ecos:components>'
                          + "".join(f'<ecos:component name="{i}">'
                                    + "".join(f'<ecos:variable name="{v}"/>' for v in vs)
                                    + "</ecos:component>" for i, vs in by_instance.items())
                          + "</ecos:components></ecos:CsvConfig>\n")
        if args.set:  # the command line takes no start values: they travel in an SSP's parameter set
            raise SystemExit("ecos-cli: no --set; give an .ssp archive with a parameter set instead")
        extra = ["--parameterSet", args.parameter_set] if args.parameter_set else []
        # stop half a step late: Ecos adds its step to its time and would stop one step short
        command = [str(ecos_binary()), "simulate", "--path", str(source), "--stepSize", repr(args.step),
                   "--stopTime", repr(args.stop + args.step / 2), "--csvConfig", str(config),
                   "--logLevel", "warn", *extra]
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(done.returncode)
        table = next(folder.glob("*.csv"))
        with open(table, newline="") as handle:
            rows = list(csv.reader(handle, skipinitialspace=True))
    header = rows[0]
    columns = {h.rsplit("[", 1)[0].replace("::", ".", 1): i for i, h in enumerate(header)}
    for own, theirs in alias.items():
        columns.update({f"{own}.{k.split('.', 1)[1]}": i for k, i in columns.items() if k.startswith(f"{theirs}.")})
    by_step = {int(r[0]): r for r in rows[1:]}
    n_steps = int(round(args.stop / args.step))
    result = {"steps": [], "values": {t: [] for t in args.read}}
    for k in range(args.every, n_steps + 1, args.every):
        result["steps"].append(k)
        for target in args.read:
            result["values"][target].append(float(by_step[k][columns[target]]))
    return result


HOSTS = {"libcosim": run_libcosim, "ecos-api": run_ecos_api, "ecos-cli": run_ecos_cli}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("host", choices=sorted(HOSTS))
    parser.add_argument("source", type=Path)
    parser.add_argument("--stop", type=float, required=True)
    parser.add_argument("--step", type=float, required=True)
    parser.add_argument("--every", type=int, default=10, help="read the values every N steps")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--parameter-set")
    parser.add_argument("--read", nargs="+", default=["vehicle.Pos[1]", "vehicle.Pos[2]", "vehicle.Pos[3]"])
    args = parser.parse_args(argv)
    result = HOSTS[args.host](args.source.resolve(), args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
