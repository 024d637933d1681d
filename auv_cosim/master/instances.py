"""The life of a run's FMU instances around the loop: loaded (from the extraction cache),
instantiated, set up with their parameters, initialised in the plan's initialisation order, and
at the end terminated and freed as the FMI state machine allows.

Every FMI call here goes through ``fmi_log.guarded_call``: a failure becomes a ``RunFailure``
naming the instance, the function and the time.
"""

from __future__ import annotations

from fmpy.fmi2 import FMU2Slave

from .fmi_log import MessageLog, RunFailure, guarded_call
from .fmu_cache import extract_fmu
from .plan import Plan
from .scenario import display_path
from .stepper import Instance, Stepper


def load(name: str, ip, plan: Plan, log: MessageLog, instances: dict[str, Instance]) -> Instance:
    """Load, instantiate and set up one instance, set its parameters and enter initialisation
    mode (the instance is in ``instances`` as soon as it exists, for the teardown)."""
    try:
        unzip = extract_fmu(ip.fmu_path)
        fmu = FMU2Slave(guid=ip.md.guid, unzipDirectory=unzip,
                        modelIdentifier=ip.md.coSimulation.modelIdentifier, instanceName=name)
    except Exception as e:  # a damaged FMU file, a library that does not load: fmpy raises plain exceptions
        raise RunFailure(f"{name}: cannot load the FMU {display_path(ip.fmu_path)}: {e}", instance=name,
                         file=display_path(ip.fmu_path), function="load", time=plan.start_time) from None
    inst = Instance(name, fmu, ip.md)
    instances[name] = inst
    t0 = plan.start_time
    guarded_call(inst, 0.0, "fmi2Instantiate", lambda: fmu.instantiate(callbacks=log.callbacks, loggingOn=True), log)
    guarded_call(inst, t0, "fmi2SetupExperiment",
                 lambda: fmu.setupExperiment(tolerance=plan.tolerance, startTime=t0, stopTime=plan.stop_time), log)
    by_type: dict[str, list] = {"Real": [], "Integer": [], "Boolean": [], "String": []}
    for var, val in ip.params:
        by_type["Integer" if var.type == "Enumeration" else var.type].append((var.vr, val, var.name))
    setters = {"Real": fmu.setReal, "Integer": fmu.setInteger, "Boolean": fmu.setBoolean, "String": fmu.setString}
    for typ, items in by_type.items():
        if not items:
            continue
        vrs = [i[0] for i in items]
        vals = [i[1] for i in items]
        setter = setters[typ]
        guarded_call(inst, t0, f"fmi2Set{typ}", lambda: setter(vrs, vals), log,
                     variable=", ".join(i[2] for i in items) if len(items) < 4 else None)
    guarded_call(inst, t0, "fmi2EnterInitializationMode", fmu.enterInitializationMode, log)
    return inst


def initialise(plan: Plan, instances: dict[str, Instance], steppers: dict[str, Stepper], log: MessageLog) -> None:
    """Each instance, in the plan's initialisation order, given its inputs, out of
    initialisation mode, its outputs read into the row."""
    for name in plan.init_order:
        rt = instances[name]
        guarded_call(rt, plan.start_time, "fmi2Set*", steppers[name].set_inputs, log)
        guarded_call(rt, plan.start_time, "fmi2ExitInitializationMode", rt.fmu.exitInitializationMode, log)
        rt.state = "initialised"
        guarded_call(rt, plan.start_time, "fmi2Get*", steppers[name].read_outputs, log)


def teardown(instances: dict[str, Instance]):
    """Terminate and free every instance the FMI state machine allows us to: after an error
    only fmi2FreeInstance, after a fatal error nothing at all. The shared libraries stay loaded
    (unloading a pythonfmu library inside a Python process is not safe)."""
    fatal_models = {i.md.coSimulation.modelIdentifier for i in instances.values() if i.state == "fatal"}
    for inst in instances.values():
        if inst.fmu.component is None or inst.md.coSimulation.modelIdentifier in fatal_models:
            continue
        try:
            if inst.state == "initialised":
                inst.fmu.terminate()
        except Exception:
            pass
        try:
            inst.fmu.fmi2FreeInstance(inst.fmu.component)
        except Exception:
            pass
        inst.fmu.component = None
        inst.state = "terminated"
