"""The modelDescription.xml pythonfmu 0.7.0 writes, completed: <UnitDefinitions> with SI
base-unit exponents (auv_cosim/fmu/units.py), `unit` on every Real that has one, a legal
variability on every variable, <ModelStructure> with <Outputs> (dependencies where the slave
declared them) and <InitialUnknowns>, and the capability flags the slave declares."""
from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple
from xml.etree import ElementTree as ET


def _indent(element: ET.Element) -> None:
    ET.indent(element, space="  ")


def _variability(var: ET.Element, type_name: str) -> Optional[str]:
    """A legal variability for a variable that has none or an illegal one."""
    causality = var.get("causality", "local")
    variability = var.get("variability")
    if causality in ("parameter", "calculatedParameter", "structuralParameter"):
        return variability if variability in ("fixed", "tunable") else "fixed"
    if variability in (None, "continuous") and type_name != "Real":
        return "discrete"
    return variability


def declare_range(type_element: ET.Element, meta_entry: dict) -> None:
    """`min` / `max` on a <Real> whose slave declared them (FmuSlave.add_real's minimum /
    maximum: where the model clamps or refuses), written as repr() writes the double."""
    for attribute in ("min", "max"):
        if meta_entry.get(attribute) is not None:
            type_element.set(attribute, repr(float(meta_entry[attribute])))


def complete_model_description(xml_text: bytes, meta: Dict[str, dict],
                               capabilities: Dict[str, bool], exchanges: Sequence = (),
                               drawing: Optional[dict] = None) -> Tuple[bytes, List[str]]:
    """Return the completed modelDescription.xml and a list of warnings (e.g. no description).
    `exchanges`: the row exchanges the slave takes part in, and `drawing`: how a viewer draws
    it (its unit's ``Drawing.attributes()``), written as the vendor annotation of
    auv_cosim.fmu.exchanges."""
    from auv_cosim.fmu.exchanges import annotate, annotate_drawing
    from auv_cosim.fmu.units import base_unit_exponents, display_unit

    warnings: List[str] = []
    root = ET.fromstring(xml_text)
    cosim = root.find("CoSimulation")
    if cosim is None:
        raise ValueError("no <CoSimulation> element: not a pythonfmu co-simulation FMU")
    for flag, value in capabilities.items():
        cosim.set(flag, "true" if value else "false")

    variables = root.find("ModelVariables")
    used_units: List[str] = []
    index_of: Dict[str, int] = {}
    for index, var in enumerate(variables.findall("ScalarVariable"), start=1):
        name = var.get("name")
        index_of[name] = index
        type_element = var[0]
        type_name = type_element.tag
        variability = _variability(var, type_name)
        if variability is not None and variability != var.get("variability"):
            var.set("variability", variability)
        if not var.get("description"):
            warnings.append(f"{name}: no description")
        if type_name != "Real":
            continue
        unit = (meta.get(name) or {}).get("unit")
        if unit:
            base_unit_exponents(unit)  # raises on an unknown unit
            type_element.set("unit", unit)
            if display_unit(unit):   # angles: a tool shows degrees by default
                type_element.set("displayUnit", display_unit(unit)[0])
            if unit not in used_units:
                used_units.append(unit)
        else:
            warnings.append(f"{name}: no unit")
        declare_range(type_element, meta.get(name) or {})
        # pythonfmu writes start="nan" for a NaN start value; keep it (legal xs:double).

    # <UnitDefinitions> right after <CoSimulation> (schema order: ModelExchange?, CoSimulation?,
    # UnitDefinitions?, TypeDefinitions?, LogCategories?, DefaultExperiment?, ...).
    old = root.find("UnitDefinitions")
    if old is not None:
        root.remove(old)
    if used_units:
        definitions = ET.Element("UnitDefinitions")
        for unit in sorted(used_units):
            unit_element = ET.SubElement(definitions, "Unit", {"name": unit})
            base = {k: str(v) for k, v in base_unit_exponents(unit).items()}
            from auv_cosim.fmu.units import UNIT_FACTORS   # degrees of latitude and longitude: pi/180 rad
            if unit in UNIT_FACTORS:
                base["factor"] = repr(UNIT_FACTORS[unit])
            ET.SubElement(unit_element, "BaseUnit", base)
            if display_unit(unit):
                shown, factor = display_unit(unit)
                ET.SubElement(unit_element, "DisplayUnit", {"name": shown, "factor": repr(factor)})
        root.insert(list(root).index(cosim) + 1, definitions)

    annotate(root, exchanges)
    annotate_drawing(root, drawing)

    # <ModelStructure>: rebuilt from the variables.
    old = root.find("ModelStructure")
    if old is not None:
        root.remove(old)
    structure = ET.SubElement(root, "ModelStructure")
    outputs, initial_unknowns = [], []
    for index, var in enumerate(variables.findall("ScalarVariable"), start=1):
        causality = var.get("causality", "local")
        variability = var.get("variability", "continuous")
        initial = var.get("initial")
        if causality == "output":
            outputs.append((index, var))
            if initial is None:
                initial = "exact" if variability == "constant" else "calculated"
            if initial in ("calculated", "approx"):
                initial_unknowns.append(index)
        elif causality == "calculatedParameter":
            initial_unknowns.append(index)
    if outputs:
        node = ET.SubElement(structure, "Outputs")
        for index, var in outputs:
            attributes = {"index": str(index)}
            depends_on = (meta.get(var.get("name")) or {}).get("depends_on")
            if depends_on is not None:
                try:
                    attributes["dependencies"] = " ".join(str(index_of[d]) for d in depends_on)
                except KeyError as error:
                    raise ValueError(f"output {var.get('name')} depends on unknown variable {error}")
            ET.SubElement(node, "Unknown", attributes)
    if initial_unknowns:
        # No `dependencies`: an initial unknown may depend on any parameter or input.
        node = ET.SubElement(structure, "InitialUnknowns")
        for index in initial_unknowns:
            ET.SubElement(node, "Unknown", {"index": str(index)})

    _indent(root)
    text = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    return text, warnings


def rewrite_zip_member(fmu: Path, member: str, data: bytes) -> None:
    """Replace (or add) one member of a zip file, in place."""
    temporary = fmu.with_name(fmu.name + ".rewrite")
    with zipfile.ZipFile(fmu) as source, zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename != member:
                target.writestr(info, source.read(info.filename))
        target.writestr(member, data)
    os.replace(temporary, fmu)

