"""How an instance is drawn (the 3-D view, the scene of the MCAP and of the live view), as its
FMU declares it: the ``<Drawing>`` of its vendor annotation (tool ``auv_cosim.drawing``), which
the build writes from the unit's declaration (``auv_cosim.units.Drawing``), in a tool of its
own (FMI 2.0 allows one element in a tool)::

    <Tool name="auv_cosim.drawing">
      <Drawing shape="cylinder" position="Pos" attitude="Quater" euler="Euler"
               length="Length" diameter="Diameter"/>
    </Tool>

The master reads names here, never a vehicle's: a body is drawn at ``<position>[1..3]`` (NED)
with the attitude ``<attitude>[1..4]`` (body to NED, scalar first) or else ``<euler>[1..3]``; a
``cylinder`` along body x of the parameters ``<length>`` and ``<diameter>``; a ``box`` spanning
the thrusters ``<thruster_positions>[k,1..2]`` and of height ``<height>``; a ``cable`` is a line
through the outputs ``<points>[1..3]``, ``{}`` in ``points`` counting 1, 2, ...

An FMU that declares none (built by another tool) is drawn by the conventional names, as
before the declaration existed: a body when it has ``Pos[1..3]`` outputs (``conventional``).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

#: the tool name of the drawing's vendor annotation (auv_cosim.fmu.exchanges.DRAWING_TOOL)
TOOL = "auv_cosim.drawing"

SHAPES = ("cylinder", "box", "cable")


@dataclass(frozen=True)
class Drawing:
    """What an FMU declares of its drawing (the fields of ``auv_cosim.units.Drawing``)."""

    shape: str = "box"
    position: str = "Pos"
    attitude: str = "Quater"
    euler: str = "Euler"
    length: str | None = None
    diameter: str | None = None
    thruster_positions: str | None = None
    height: str | None = None
    points: str | None = None
    declared: bool = True     # False: the conventional names of an FMU that declares none

    def point_names(self, names) -> list[str]:
        """A cable's point variables (``Node1Pos``, ``Node2Pos``...) that ``names`` holds whole
        (``X[1]``, ``X[2]``, ``X[3]``), counting from 1 while they exist."""
        out = []
        k = 1
        while self.points and all(f"{self.points.format(k)}[{i}]" in names for i in (1, 2, 3)):
            out.append(self.points.format(k))
            k += 1
        return out

    def as_dict(self) -> dict:
        """The declaration as summary.json keeps it (what the 3-D view reads back)."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def read_drawing(path: Path) -> Drawing | None:
    """The drawing an FMU declares in its modelDescription.xml; None when it declares none.
    Raises ValueError naming what is wrong with the declaration."""
    with zipfile.ZipFile(path) as archive:
        root = ET.fromstring(archive.read("modelDescription.xml"))
    found = [d for tool in root.findall("VendorAnnotations/Tool") if tool.get("name") == TOOL
             for d in tool.findall("Drawing")]
    if not found:
        return None
    if len(found) > 1:
        raise ValueError("its vendor annotation declares two drawings")
    return from_mapping(found[0].attrib)


def from_mapping(fields) -> Drawing:
    """A ``Drawing`` from its attributes (the annotation's, or summary.json's); ValueError for
    an unknown shape or field, or a cable without points."""
    fields = dict(fields)
    known = set(Drawing.__dataclass_fields__)
    unknown = sorted(set(fields) - known)
    if unknown:
        raise ValueError(f"its drawing has unknown fields {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    if "declared" in fields and not isinstance(fields["declared"], bool):
        fields["declared"] = str(fields["declared"]).lower() == "true"
    drawing = Drawing(**fields)
    if drawing.shape not in SHAPES:
        raise ValueError(f"its drawing's shape '{drawing.shape}' is none of {', '.join(SHAPES)}")
    if drawing.shape == "cable" and not (drawing.points and "{}" in drawing.points):
        raise ValueError("its drawing is a cable without points naming the counted outputs ('Node{}Pos')")
    return drawing


def conventional(names) -> Drawing | None:
    """The drawing of an FMU that declares none, from the conventional names its variables
    ``names`` have: a body with ``Pos[1..3]``, a cylinder when it has ``Length`` and
    ``Diameter``, else a box (of ``ThrusterPos`` and ``Height`` when it has them); None when it
    has no position."""
    names = set(names)
    if not all(f"Pos[{i}]" in names for i in (1, 2, 3)):
        return None
    if "Length" in names and "Diameter" in names:
        return Drawing("cylinder", length="Length", diameter="Diameter", declared=False)
    return Drawing("box", thruster_positions="ThrusterPos" if "ThrusterPos[1,1]" in names else None,
                   height="Height" if "Height" in names else None, declared=False)


def drawing_of(ip) -> Drawing | None:
    """How the planned instance ``ip`` is drawn: what its FMU declares, else the conventional
    names' drawing of its outputs (``conventional``)."""
    declared = getattr(ip, "drawing", None)
    return declared if declared is not None else conventional(n for n, v in ip.vars.items() if v.causality == "output")
