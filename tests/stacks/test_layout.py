"""Both vehicles' stacks have the same shape: the files every stack has, and the optional ones
only under the names auv_cosim/stacks/__init__.py lists (a new job gets a name there first)."""
import ast
from pathlib import Path

import auv_cosim.stacks as stacks

ROOT = Path(stacks.__file__).parent
EVERY_STACK = {"__init__.py", "instruments.py", "instruments_slave.py", "guidance.py", "control.py",
               "control_kernel.py", "control_slave.py", "warm_up.py"}
WHERE_THE_VEHICLE_HAS_THE_JOB = {"navigation.py", "allocation.py", "belief.py", "frames.py", "stack.py",
                                 "instruments_kernel.py", "closed_loop.py"}


def _stack_packages():
    return sorted(p for p in ROOT.iterdir() if p.is_dir() and p.name not in ("shared", "__pycache__"))


def test_every_vehicle_has_a_stack_and_each_has_the_same_core_files():
    packages = _stack_packages()
    assert [p.name for p in packages] == ["auv", "h100"]
    for package in packages:
        files = {p.name for p in package.glob("*.py")}
        assert EVERY_STACK <= files, f"{package.name} lacks {sorted(EVERY_STACK - files)}"
        assert files <= EVERY_STACK | WHERE_THE_VEHICLE_HAS_THE_JOB, \
            f"{package.name} has files of no listed job: {sorted(files - EVERY_STACK - WHERE_THE_VEHICLE_HAS_THE_JOB)}"


def test_the_listed_jobs_are_the_documented_ones():
    text = stacks.__doc__
    for name in EVERY_STACK - {"__init__.py"} | WHERE_THE_VEHICLE_HAS_THE_JOB:
        assert name in text, name


def _imported(source: Path) -> set:
    """Every module an import statement of `source` names, relative ones resolved."""
    package = "auv_cosim.stacks." + source.parent.name
    names = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_a_stack_imports_no_other_vehicles_stack():
    for package in _stack_packages():
        others = [f"auv_cosim.stacks.{other.name}" for other in _stack_packages() if other != package]
        for source in package.glob("*.py"):
            for name in _imported(source):
                assert not any(name == o or name.startswith(o + ".") for o in others), \
                    f"{source.relative_to(ROOT)} imports {name}"


def test_the_import_check_sees_a_relative_import_of_the_other_stack(tmp_path):
    fake = tmp_path / "h100" / "guidance.py"
    fake.parent.mkdir()
    fake.write_text("from ..auv.guidance import parse_waypoints\n")
    assert "auv_cosim.stacks.auv.guidance" in _imported(fake)
