"""The package reads from the environment only the switches docs/development.md lists, and every
switch listed there is read somewhere: one place says what each is for."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_switch_the_package_reads_is_in_the_one_table_and_only_those():
    read = set()
    for source in (ROOT / "auv_cosim").rglob("*.py"):
        read.update(re.findall(r"environ(?:\.get\(|\.setdefault\(|\[)\s*[\"'](AUV_[A-Z_]+)", source.read_text()))
    text = (ROOT / "docs" / "development.md").read_text()
    table = text[text.index("## Environment switches"):]
    table = table[:table.index("\n## ", 1)]
    listed = set(re.findall(r"^\| `(AUV_[A-Z_]+)", table, flags=re.M))
    assert read, "no switch found: the pattern no longer matches the code"
    assert read == listed, (sorted(read - listed), sorted(listed - read))
