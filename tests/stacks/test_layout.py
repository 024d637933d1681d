"""Every registered vehicle's stack has the same shape: the files every stack has, and the
optional ones only under the names auv_cosim/stacks/__init__.py lists (a new job gets a name
there first). The stacks are found through the registry (auv_cosim/units.py): a unit whose
folder has a ``stack/`` package."""
from pathlib import Path

import auv_cosim.stacks as stacks
from auv_cosim import units

EVERY_STACK = {"__init__.py", "instruments.py", "instruments_slave.py", "guidance.py", "control.py",
               "control_kernel.py", "control_slave.py", "warm_up.py"}
WHERE_THE_VEHICLE_HAS_THE_JOB = {"navigation.py", "allocation.py", "belief.py", "frames.py", "stack.py",
                                 "instruments_kernel.py", "closed_loop.py", "terrain.py"}


def _stack_packages() -> dict[str, Path]:
    """unit name -> its stack's folder, for every registered unit that has one."""
    return {name: unit.folder / "stack" for name, unit in units.units().items()
            if (unit.folder / "stack" / "__init__.py").is_file()}


def test_both_vehicles_have_a_stack_and_each_has_the_same_core_files():
    packages = _stack_packages()
    assert {"auv", "h100"} <= set(packages)
    for name, package in packages.items():
        files = {p.name for p in package.glob("*.py")}
        assert EVERY_STACK <= files, f"{name} lacks {sorted(EVERY_STACK - files)}"
        assert files <= EVERY_STACK | WHERE_THE_VEHICLE_HAS_THE_JOB, \
            f"{name} has files of no listed job: {sorted(files - EVERY_STACK - WHERE_THE_VEHICLE_HAS_THE_JOB)}"


def test_each_stacks_fmus_are_declared_by_its_unit():
    """The instruments' and the control's slaves are FMUs the unit builds (Unit.fmus)."""
    for name, package in _stack_packages().items():
        slaves = {fmu.slave for fmu in units.units()[name].fmus}
        assert {"stack/instruments_slave.py", "stack/control_slave.py"} <= slaves, name


def test_the_listed_jobs_are_the_documented_ones():
    text = stacks.__doc__
    for name in EVERY_STACK - {"__init__.py"} | WHERE_THE_VEHICLE_HAS_THE_JOB:
        assert name in text, name
