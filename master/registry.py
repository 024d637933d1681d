"""What the master finds rather than imports: the packages installed beside it declare Python
entry points (``[project.entry-points."GROUP"]`` in their pyproject.toml), and the master loads
them by group, never a package by name.

- ``master.commands``: subcommands of ``python -m master``; each entry point is a function
  ``add_parser(subparsers)`` that adds its subparser and sets ``func`` (``sweep``: campaigns).
"""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

COMMANDS = "master.commands"


def _load(group: str, names: set[str] | None = None) -> list[tuple[str, object]]:
    """(name, loaded object) of every entry point of ``group`` (or of those in ``names``), by
    name. One that cannot be loaded (its package broken or half installed) is reported on stderr
    and left out: the rest of the master still works."""
    out = []
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        if names is not None and ep.name not in names:
            continue  # not loaded at all: its package is not imported
        try:
            out.append((ep.name, ep.load()))
        except Exception as e:
            print(f"master: ignoring the {group} entry point '{ep.name}' ({ep.value}): "
                  f"{type(e).__name__}: {e}", file=sys.stderr)
    return out


def commands(command: str | None = None) -> list:
    """The ``add_parser(subparsers)`` functions of the extra subcommands: only ``command``'s
    when it is one of them (its package alone is imported), else all (help, or an unknown
    command whose error lists them)."""
    names = {ep.name for ep in entry_points(group=COMMANDS)}
    return [fn for _, fn in _load(COMMANDS, {command} if command in names else None)]
