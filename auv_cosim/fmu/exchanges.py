"""Row exchanges: how an FMU declares that a vector output of one instance feeds a row of a
matrix input of another, element by element (the wakes between vehicles are one).

An exchange is declared by the FMU, in its modelDescription.xml, as a vendor annotation that
`tools/build_fmus.py` writes from what the slave declares (`FmuSlave.fmu_exchanges`)::

    <VendorAnnotations>
      <Tool name="auv_cosim">
        <Exchange name="wakes" output="WakeSource" input="WakeSources" enable="CastWake"
                  ports="WakeSource WakeSources WakeVelocity" agree="Rho"/>
      </Tool>
    </VendorAnnotations>

* ``name``: what the exchange is called; a scenario's line ``A -> B`` under the key of that
  name (``wakes:``) wires A's output into a row of B's input.
* ``output``: a vector output ``X[1..n]`` (absent: the FMU sends nothing, it only receives).
* ``input``: a matrix input ``Y[k,1..n]``, one row per other instance (absent: it receives
  nothing). Element j of a row takes element j of one source's output, and a row wired at all
  is wired whole.
* ``enable``: a Boolean parameter that switches the output on; a scenario line that wires the
  output sets it true unless the scenario sets it.
* ``ports``: the variables of the exchange, left alone (not read, not recorded) by a run that
  wires none of them, so that an instance alone runs as it would without them.
* ``agree``: parameters that instances wired together are expected to share (a run with
  different values goes on, warned).

The values of an exchange are handed over at each communication point before any instance
steps from it: they order nothing and never make a loop.

A tool of its own, ``auv_cosim.drawing``, carries how a viewer draws the FMU (``<Drawing
shape="cylinder" position="Pos" attitude="Quater" length="Length" .../>``: the fields of
``auv_cosim.units.Drawing``), written by ``annotate_drawing`` and read by
``auv_cosim.master.drawing``. The master reads this annotation
(`auv_cosim.master.exchanges`); this module is the writing side and imports nothing of the
project.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence, Tuple

#: the vendor annotation's tool name
TOOL = "auv_cosim"
#: the tool name of the drawing's annotation (FMI 2.0 allows one element in a tool)
DRAWING_TOOL = "auv_cosim.drawing"


@dataclass(frozen=True)
class Exchange:
    """One exchange an FMU takes part in (see the module documentation)."""

    name: str
    output: Optional[str] = None
    input: Optional[str] = None
    enable: Optional[str] = None
    ports: Tuple[str, ...] = ()
    agree: Tuple[str, ...] = ()

    def keeping(self, names: Iterable[str]) -> Optional["Exchange"]:
        """This exchange as an FMU that registers the variables `names` takes part in it: the
        output, input, switch and ports it does not register dropped (a vehicle that casts no
        wake keeps the input alone); None when it takes no part."""
        names = set(names)
        bases = {n.split("[", 1)[0] for n in names}
        output = self.output if self.output and f"{self.output}[1]" in names else None
        input_ = self.input if self.input and f"{self.input}[1,1]" in names else None
        if output is None and input_ is None:
            return None
        return Exchange(self.name, output, input_, self.enable if output and self.enable in names else None,
                        tuple(p for p in self.ports if p in bases),
                        tuple(a for a in self.agree if a in names))


def exchange_from(declared) -> Exchange:
    """An `Exchange` from a plain declaration (a mapping of the same fields, as a vehicle
    declares it without importing this package)."""
    if isinstance(declared, Exchange):
        return declared
    fields = dict(declared)
    return Exchange(fields.pop("name"), fields.pop("output", None), fields.pop("input", None),
                    fields.pop("enable", None), tuple(fields.pop("ports", ())), tuple(fields.pop("agree", ())),
                    **fields)


def _tool(root: ET.Element, name: str, needed: bool) -> Optional[ET.Element]:
    """The vendor annotation of the tool ``name`` in the modelDescription ``root``, made anew
    (one already there removed) when ``needed``, in its place in the schema's order: after
    DefaultExperiment, before ModelVariables; None, and an emptied VendorAnnotations removed,
    when not."""
    annotations = root.find("VendorAnnotations")
    if annotations is not None:
        for tool in annotations.findall("Tool"):
            if tool.get("name") == name:
                annotations.remove(tool)
    if not needed:
        if annotations is not None and not len(annotations):
            root.remove(annotations)
        return None
    if annotations is None:
        annotations = ET.Element("VendorAnnotations")
        root.insert(list(root).index(root.find("ModelVariables")), annotations)
    return ET.SubElement(annotations, "Tool", {"name": name})


def annotate(root: ET.Element, exchanges: Sequence[Exchange]) -> None:
    """Write `exchanges` into the modelDescription `root` as the tool's vendor annotation
    (replacing one already there)."""
    tool = _tool(root, TOOL, bool(exchanges))
    for exchange in exchanges:
        attributes = {"name": exchange.name}
        for key in ("output", "input", "enable"):
            if getattr(exchange, key):
                attributes[key] = getattr(exchange, key)
        for key in ("ports", "agree"):
            if getattr(exchange, key):
                attributes[key] = " ".join(getattr(exchange, key))
        ET.SubElement(tool, "Exchange", attributes)


def annotate_drawing(root: ET.Element, attributes: Optional[dict]) -> None:
    """Write ``<Drawing .../>`` with ``attributes`` (names of the FMU's variables and a shape) as
    the vendor annotation of the tool ``DRAWING_TOOL`` (replacing one already there). A tool of
    FMI 2.0's annotations holds one element, hence a tool of its own beside the exchanges'."""
    tool = _tool(root, DRAWING_TOOL, bool(attributes))
    if tool is not None:
        ET.SubElement(tool, "Drawing", {k: str(v) for k, v in attributes.items()})
