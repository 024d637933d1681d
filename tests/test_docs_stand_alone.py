"""The docs stand alone: a clone carries the physics it implements (docs/physics/), the code and
the docs point there and nowhere outside the repository, and no pointer can rot (every cited
`docs/...md#anchor` and every relative link between the docs names a file and a heading that
exist)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Where the project's own text lives: the code, the docs, the tools, the references and the
#: benchmarks, the data files that carry comments (scenarios, vehicle files, wherever they are kept).
SCOPE = ("auv_cosim", "docs", "README.md", "tools", "references", "benchmarks", "scenarios", "vehicles",
         "examples")
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".c", ".h", ".json", ".ssp", ".xml"}

#: Pointers to what a clone does not have: the specification and the seeds outside the
#: repository, by path or by section number.
OUTSIDE = re.compile(r"\.\./shared|/work/shared|SPEC\.md|\bSPEC\b|\bseeds/")

#: A citation of a doc from anywhere: docs/<path>.md, optionally with #anchor and more anchors of
#: the same page after it on the line ("docs/physics/auv.md#axial-drag, #hull-lift").
CITED = re.compile(r"(?<![\w/.-])(docs/[\w/.-]+?\.md)((?:#[\w-]+)(?:(?:,\s*(?:and\s+)?|\s+and\s+)#[\w-]+)*)?")
#: A relative Markdown link: [text](target)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def _tracked(*paths: str) -> list:
    listed = subprocess.run(["git", "ls-files", "--", *paths], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.stdout.split() if (ROOT / name).suffix in TEXT_SUFFIXES
            or name == "README.md"]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (letters, digits, spaces,
    hyphens and underscores kept), spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)      # a link's text only
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(markdown: Path) -> set:
    """Every heading anchor of a Markdown file, duplicates numbered as GitHub does (-1, -2)."""
    seen: dict = {}
    found = set()
    fenced = False
    for line in markdown.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    for explicit in re.findall(r'<a (?:id|name)="([^"]+)"', markdown.read_text()):
        found.add(explicit)
    return found


def test_slug_follows_github():
    assert slug("Damping") == "damping"
    assert slug("The H100 ROV: its equations") == "the-h100-rov-its-equations"
    assert slug("Auv (`Auv.fmu`)") == "auv-auvfmu"
    assert slug("Seed 004") == "seed-004"


def test_the_physics_pages_exist_and_cite_the_published_references():
    physics = ROOT / "docs" / "physics"
    text = {name: (physics / name).read_text() for name in ("README.md", "auv.md", "h100.md", "environment.md")}
    assert "Fossen" in text["README.md"] and "Handbook of Marine Craft Hydrodynamics" in text["README.md"]
    assert "von Benzon" in text["README.md"] and "BlueROV2" in text["README.md"]
    assert "FhSim" in text["README.md"]
    for page, needed in {"auv.md": ("mass-properties", "cross-flow-strip-theory", "hull-lift", "fins", "battery"),
                         "h100.md": ("rigid-body", "added-mass", "damping", "thrusters", "allocation"),
                         "environment.md": ("current", "regular-waves", "jonswap-sea", "wake-field")}.items():
        assert set(needed) <= anchors(physics / page), page


def _broken_citations(paths, root: Path = ROOT) -> list:
    broken = []
    for path in paths:
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for target, cited in CITED.findall(line):
                doc = root / target
                where = f"{path.relative_to(root)}:{n}"
                if not doc.is_file():
                    broken.append(f"{where}: {target} does not exist")
                    continue
                for anchor in re.findall(r"#([\w-]+)", cited):
                    if anchor not in anchors(doc):
                        broken.append(f"{where}: {target} has no heading #{anchor}")
    return broken


def test_every_cited_doc_and_anchor_exists():
    """`docs/physics/h100.md#damping` in a docstring names a file and a heading that exist."""
    broken = _broken_citations(_tracked(*SCOPE))
    assert broken == [], "\n".join(broken[:40])


def test_a_rotten_citation_is_found(tmp_path):
    """The checker itself: a missing heading and a missing file are reported, a good one is not."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n## Damping\n\n```\n## Not a heading\n```\n")
    source = tmp_path / "x.py"
    source.write_text('"""docs/a.md#damping, docs/a.md#not-a-heading, docs/a.md and docs/b.md#x"""\n'
                      "# docs/a.md#damping, #a and #nope\n")
    assert _broken_citations([source], tmp_path) == [
        "x.py:1: docs/a.md has no heading #not-a-heading", "x.py:1: docs/b.md does not exist",
        "x.py:2: docs/a.md has no heading #nope"]


def test_every_relative_link_of_the_docs_resolves():
    broken = []
    for path in _tracked("docs", "README.md"):
        if path.suffix != ".md":
            continue
        fenced = False
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if FENCE.match(line):
                fenced = not fenced
            if fenced:
                continue
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue                         # http:, https:, mailto:
                file_part, _, anchor = target.partition("#")
                doc = (path.parent / file_part).resolve() if file_part else path
                if not doc.exists():
                    broken.append(f"{path.relative_to(ROOT)}:{n}: {target}: no such file")
                elif anchor and doc.suffix == ".md" and anchor not in anchors(doc):
                    broken.append(f"{path.relative_to(ROOT)}:{n}: {target}: no heading #{anchor}")
    assert broken == [], "\n".join(broken[:40])


def test_nothing_points_outside_the_clone():
    """No file of the project's own text names the specification or the seeds outside the
    repository (by path or by section number), nor finds its files from the checkout's root (an
    installed package has none): the issue's grep, over every tracked text file in scope."""
    rooted = re.compile(r"REPO_ROOT|parents\[2\]")
    found = []
    for path in _tracked(*SCOPE):
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line) or (path.parts[len(ROOT.parts)] in ("auv_cosim", "docs", "README.md") and rooted.search(line)):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert found == [], "\n".join(found[:40])


def test_the_outside_pattern_finds_what_it_should():
    for text in ("see ../shared/SPEC.md", "SPEC 7.3", "(SPEC 9)", "/work/shared/seeds/000", "seeds/004"):
        assert OUTSIDE.search(text), text
    for text in ("docs/physics/h100.md#parameters", "Y_SPECIFIC_FORCE", "the specification of its FMUs"):
        assert not OUTSIDE.search(text), text
