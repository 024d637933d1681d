"""The package reads in one sitting: no function longer than about a screenful and a half
(120 lines), no module longer than 800 lines. A longer one does several jobs: split it where
the jobs part (named phases, one helper per concern), as the loader, the plan, the stepper and
the 3-D view are."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "auv_cosim"
#: the clone's tools (the FMU build's wrapper, the checks and demos) and the references they and
#: the tests share are held to the same measure
TOOLS = PACKAGE.parent / "tools"
REFERENCES = PACKAGE.parent / "references"
MAX_FUNCTION_LINES = 120
MAX_MODULE_LINES = 800


def too_long(root: Path = PACKAGE) -> list[str]:
    """The functions (methods and nested ones included) over MAX_FUNCTION_LINES and the modules
    over MAX_MODULE_LINES below `root`, each with its length."""
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        where = path.relative_to(root.parent)
        if len(text.splitlines()) > MAX_MODULE_LINES:
            found.append(f"{where} ({len(text.splitlines())} lines)")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    found.append(f"{where}: {node.name} ({n} lines)")
    return found


def test_no_function_over_120_lines_and_no_module_over_800():
    assert too_long() == []


def test_the_tools_too():
    assert sorted(TOOLS.glob("*.py")) and too_long(TOOLS) == []


def test_the_references_too():
    assert sorted(REFERENCES.glob("*.py")) and too_long(REFERENCES) == []


def test_the_build_is_measured_as_part_of_the_package():
    assert (PACKAGE / "build" / "driver.py").is_file()   # auv_cosim/build/ is below PACKAGE: too_long() reads it


def test_the_measure_sees_a_long_method_and_a_long_module(tmp_path):
    root = tmp_path / "pkg"
    root.mkdir()
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (root / "a.py").write_text(f"class A:\n    def long(self):\n{body}\n")
    (root / "b.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    (root / "c.py").write_text("def short():\n    return 1\n")
    assert too_long(root) == [f"pkg/a.py: long ({MAX_FUNCTION_LINES + 1} lines)", f"pkg/b.py ({MAX_MODULE_LINES + 1} lines)"]
