"""Tests and tools stop importing each other: what both need (the independent transcriptions and
checks the package is measured against) lives in references/, which imports neither.

    tests/                   may import references, never tools (nor load a file of tools/)
    tools/, benchmarks/      may import references, never tests (nor load a file of tests/)
    references/              imports neither
    auv_cosim/               imports none of them (tests/test_import_direction.py)

A test checks a tool by running its command line in a child process, as a user does
(tests/test_build_fmus.py); that is not an import. Every import statement is read (those inside
functions too), and every line that puts a folder on sys.path or loads a file by its path
(importlib, runpy), also inside the scripts a test writes for a child process."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SELF = Path(__file__).resolve()

#: each folder and the top-level folders its files must not reach
FORBIDDEN = {"tests": ("tools", "benchmarks"), "tools": ("tests",), "benchmarks": ("tests",),
             "references": ("tests", "tools", "benchmarks")}
#: a line that puts a folder on sys.path or loads a module from a file
LOADER = re.compile(r"sys\.path\.(insert|append|extend)|spec_from_file_location|SourceFileLoader|run_path|"
                    r"import_module|PYTHONPATH")


def _imported(tree: ast.AST) -> list[str]:
    """The absolute module names of every import of a parsed file (relative ones stay inside
    their own folder and are skipped)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


def crossings(root: Path, folder: str) -> list[str]:
    """Every import of `folder`'s Python files into a forbidden folder, and every line that
    loads a file of one, as "path:line: what"."""
    found = []
    forbidden = FORBIDDEN[folder]
    own = {p.stem for p in (root / folder).rglob("*.py")}
    stems = {p.stem for name in forbidden for p in (root / name).rglob("*.py")} - own - {"__init__", "conftest"}
    mentions = re.compile(r"(?<![\w.])(" + "|".join(forbidden) + r")(?![\w])")
    bare = re.compile(r"(?:^|[\"';]|\\n)\s*(?:from\s+(\w+)\s+import|import\s+(\w+))")
    for path in sorted((root / folder).rglob("*.py")):
        if path == SELF:
            continue            # this file: the crossings it plants in a tree of its own
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        for module in _imported(ast.parse(text, rel)):
            if module.split(".")[0] in forbidden:
                found.append(f"{rel}: imports {module}")
        for n, line in enumerate(text.splitlines(), 1):
            if LOADER.search(line) and mentions.search(line):
                found.append(f"{rel}:{n}: loads from {mentions.search(line).group(1)}/: {line.strip()}")
            # a module of a forbidden folder imported by its bare name (after a sys.path line),
            # also in the text of a script written for a child process
            for match in bare.finditer(line):
                name = match.group(1) or match.group(2)
                if name in stems:
                    found.append(f"{rel}:{n}: imports {name} (a module of {'/'.join(forbidden)})")
    return found


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_folder_reaches_one_it_must_not(folder):
    assert crossings(ROOT, folder) == []


def test_references_is_a_package_the_wheel_leaves_out():
    """An importable package (its own __init__), left out of the distribution: the package's
    find rule takes auv_cosim alone."""
    import tomllib

    assert (ROOT / "references" / "__init__.py").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["tool"]["setuptools"]["packages"]["find"]["include"] == ["auv_cosim*"]


def test_the_rule_catches_each_way_across(tmp_path):
    """The check itself, on a tree of its own: a test that imports a tool (at the top, inside a
    function, by path, by its bare name after a sys.path line, in a script for a child process),
    a tool that imports a test module, a reference that imports a tool; and what stays allowed
    (a test importing references, a tool running a test's data file, a test running a tool's
    command line)."""
    files = {
        "tools/wake_pair.py": "",
        "tools/golden.py": "",
        "tools/outputs_figures.py": "from tests.outputs.readers import results_table\n",
        "tools/fine.py": "from references.wake_pair import starts\nHASHES = 'tests/integration/x.json'\n",
        "tests/outputs/readers.py": "",
        "tests/test_a.py": "from tools.wake_pair import starts\n",
        "tests/test_b.py": "def f():\n    import tools.golden\n",
        "tests/test_c.py": ("import importlib.util\n"
                            "spec = importlib.util.spec_from_file_location('w', ROOT / 'tools' / 'wake_pair.py')\n"),
        "tests/test_d.py": "import sys\nsys.path.insert(0, str(ROOT / 'tools'))\nfrom golden import compare\n",
        "tests/test_e.py": "script.write_text('import sys\\nimport golden\\n')\n",
        "tests/test_fine.py": ("import subprocess, sys\nfrom references.golden import compare\n"
                               "subprocess.run([sys.executable, str(ROOT / 'tools' / 'golden.py')])\n"),
        "references/golden.py": "from tools.golden import compare\n",
        "benchmarks/bench.py": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert crossings(tmp_path, "tests") == [
        "tests/test_a.py: imports tools.wake_pair",
        "tests/test_b.py: imports tools.golden",
        "tests/test_c.py:2: loads from tools/: spec = importlib.util.spec_from_file_location('w', "
        "ROOT / 'tools' / 'wake_pair.py')",
        "tests/test_d.py:2: loads from tools/: sys.path.insert(0, str(ROOT / 'tools'))",
        "tests/test_d.py:3: imports golden (a module of tools/benchmarks)",
        "tests/test_e.py:1: imports golden (a module of tools/benchmarks)",
    ]
    assert crossings(tmp_path, "tools") == ["tools/outputs_figures.py: imports tests.outputs.readers"]
    assert crossings(tmp_path, "references") == ["references/golden.py: imports tools.golden"]
    assert crossings(tmp_path, "benchmarks") == []
