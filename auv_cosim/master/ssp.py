"""SSP 1.0 archives of a scenario's system, so that other SSP tools run the same co-simulation.

    auv-cosim export-ssp SCENARIO OUT.ssp     # write the archive
    auv-cosim run OUT.ssp                     # the master runs an SSP file too

An archive holds `SystemStructure.ssd` and `resources/<file>.fmu` for every FMU the scenario
uses. The .ssd carries what SSP 1.0 can say:

- one `ssd:Component` per instance (its FMU, every input, output and parameter as a
  connector, so that tools which check connectors, e.g. libcosim, find them);
- one `ssd:Connection` per scalar connection of the scenario (vectors already expanded);
- each instance's parameter and input start values as an inline parameter set, named after the
  scenario: Ecos applies a set only when it is named (`ecos simulate --parameterSet NAME`,
  `EcosSimulation.init(parameter_set=NAME)`); libcosim applies an instance's first set;
- `ssd:DefaultExperiment` (start and stop time) with the step in the Open Simulation
  Platform's annotation (`osp:FixedStepAlgorithm baseStepSize`, read by libcosim), and the
  master's own settings (algorithm, calling order, stop condition) in an annotation of this
  project, which other tools ignore.

SSP has no input signals and no analyses: a scenario that drives inputs with `signals` is
exported without them, and export_ssp says so. The document is checked against the SSP 1.0
schema shipped with fmpy (lxml) before the archive is written.

Reading an archive back (`scenario_from_ssp`) gives the master's scenario mapping: instances,
parameters of the chosen set (default: each component's first, as libcosim), connections, step
and stop time, and the master's annotation when present (else Gauss-Seidel in document order).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Iterator
from xml.etree import ElementTree as ET

from .files import output_target, write_whole
from .plan import Plan
from .scenario import ScenarioError, display_path

SSD = "http://ssp-standard.org/SSP1/SystemStructureDescription"
SSC = "http://ssp-standard.org/SSP1/SystemStructureCommon"
SSV = "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
OSP = "http://opensimulationplatform.com/SSP/OSPAnnotations"
MASTER = "urn:auv-cosim:master"
OSP_TYPE = "com.opensimulationplatform"
MASTER_TYPE = "org.auv-cosim.master"
SSD_NAME = "SystemStructure.ssd"
FMU_MIME = "application/x-fmu-sharedlibrary"

for _prefix, _uri in (("ssd", SSD), ("ssc", SSC), ("ssv", SSV), ("osp", OSP), ("master", MASTER)):
    ET.register_namespace(_prefix, _uri)

_KINDS = {"input": "input", "output": "output", "parameter": "parameter",
          "calculatedParameter": "calculatedParameter", "structuralParameter": "parameter"}


def _q(namespace: str, tag: str) -> str:
    return f"{{{namespace}}}{tag}"


def value_text(var_type: str, value: Any) -> str:
    """A start value as text, as SSP and OSP write it: Reals exactly (repr round-trips every
    double)."""
    if var_type == "Real":
        return repr(float(value))
    if var_type == "Boolean":
        return "true" if value else "false"
    if var_type == "Integer":
        return str(int(value))
    return str(value)


# --------------------------------------------------------------------------------------------
# export
# --------------------------------------------------------------------------------------------


def unique_fmu_names(plan: Plan, folder: str = "") -> dict[Path, str]:
    """FMU file -> its name in an export (`folder` + its file name, made unique with _2, _3 ...
    when two FMU files share a name): the SSP archive's resources/, OSP's output folder."""
    names: dict[Path, str] = {}
    for ip in plan.instances.values():
        if ip.fmu_path in names:
            continue
        stem, suffix = ip.fmu_path.stem, ip.fmu_path.suffix
        candidate, k = f"{folder}{stem}{suffix}", 2
        while candidate in names.values():
            candidate, k = f"{folder}{stem}_{k}{suffix}", k + 1
        names[ip.fmu_path] = candidate
    return names


def ssd_document(plan: Plan, sources: dict[Path, str]) -> bytes:
    """The SystemStructure.ssd of the plan's system (see the module documentation)."""
    root = ET.Element(_q(SSD, "SystemStructureDescription"), {"version": "1.0", "name": plan.name})
    system = ET.SubElement(root, _q(SSD, "System"), {"name": plan.name})
    if plan.model.description:
        system.set("description", plan.model.description)
    elements = ET.SubElement(system, _q(SSD, "Elements"))
    for name, ip in plan.instances.items():
        component = ET.SubElement(elements, _q(SSD, "Component"), {
            "name": name, "type": FMU_MIME, "source": sources[ip.fmu_path],
            "implementation": "CoSimulation"})
        connectors = ET.SubElement(component, _q(SSD, "Connectors"))
        for var in ip.vars.values():
            kind = _KINDS.get(var.causality)
            if kind is None:
                continue
            if var.type not in ("Real", "Integer", "Boolean", "String"):
                raise ScenarioError(display_path(ip.fmu_path), var.name,
                                    f"a {var.type} variable cannot be exported to SSP by this tool")
            connector = ET.SubElement(connectors, _q(SSD, "Connector"), {"name": var.name, "kind": kind})
            ET.SubElement(connector, _q(SSC, var.type))
        if ip.params:
            bindings = ET.SubElement(component, _q(SSD, "ParameterBindings"))
            binding = ET.SubElement(bindings, _q(SSD, "ParameterBinding"))
            values = ET.SubElement(binding, _q(SSD, "ParameterValues"))
            parameter_set = ET.SubElement(values, _q(SSV, "ParameterSet"), {"version": "1.0", "name": plan.name})
            parameters = ET.SubElement(parameter_set, _q(SSV, "Parameters"))
            for var, value in ip.params:
                parameter = ET.SubElement(parameters, _q(SSV, "Parameter"), {"name": var.name})
                ET.SubElement(parameter, _q(SSV, var.type), {"value": value_text(var.type, value)})
    if plan.connections:
        connections = ET.SubElement(system, _q(SSD, "Connections"))
        for c in plan.connections:
            ET.SubElement(connections, _q(SSD, "Connection"), {
                "startElement": c.src, "startConnector": c.src_var.name,
                "endElement": c.dst, "endConnector": c.dst_var.name})

    experiment = ET.SubElement(root, _q(SSD, "DefaultExperiment"), {
        "startTime": repr(float(plan.start_time)), "stopTime": repr(float(plan.stop_time))})
    annotations = ET.SubElement(experiment, _q(SSD, "Annotations"))
    osp = ET.SubElement(annotations, _q(SSC, "Annotation"), {"type": OSP_TYPE})
    algorithm = ET.SubElement(osp, _q(OSP, "Algorithm"))
    ET.SubElement(algorithm, _q(OSP, "FixedStepAlgorithm"), {"baseStepSize": repr(float(plan.step))})
    own = ET.SubElement(annotations, _q(SSC, "Annotation"), {"type": MASTER_TYPE})
    settings = {"algorithm": plan.algorithm, "order": " ".join(plan.order), "step": repr(float(plan.step))}
    stop_when = plan.model.model_dump(mode="json")["stop_when"]
    if stop_when is not None:
        settings["stopWhen"] = json.dumps(stop_when)
    ET.SubElement(own, _q(MASTER, "Run"), settings)
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def schema_problems(document: bytes) -> list[str]:
    """Where `document` breaks the SSP 1.0 SystemStructureDescription schema (empty: valid)."""
    from lxml import etree
    import fmpy

    schema_file = Path(fmpy.__file__).parent / "ssp" / "schema" / "SystemStructureDescription.xsd"
    schema = etree.XMLSchema(etree.parse(str(schema_file)))
    if schema.validate(etree.fromstring(document)):
        return []
    return [f"line {e.line}: {e.message}" for e in schema.error_log]


def export_ssp(plan: Plan, out: Path, force: bool = False) -> list[str]:
    """Write the plan's system as the SSP archive `out`; returns notes on what SSP cannot
    carry (e.g. input signals). Raises ScenarioError, with nothing written, if the document is
    not schema-valid, if `out` is a folder or one of the export's inputs (a scenario file, an
    FMU), or if it exists and `force` is not given."""
    target = output_target(out, option="OUT", inputs=plan.input_files, force=force)
    sources = unique_fmu_names(plan, "resources/")
    document = ssd_document(plan, sources)
    problems = schema_problems(document)
    if problems:
        raise ScenarioError(str(out), SSD_NAME, "not valid SSP 1.0: " + "; ".join(problems[:5]))
    notes = []
    if plan.signals:
        notes.append("not exported (SSP has no input signals): " + ", ".join(s.target for s in plan.signals))
    if plan.model.analysis:
        notes.append("not exported: the analyses (" + ", ".join(plan.model.analysis) + ")")

    def pack(f) -> None:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(SSD_NAME, document)
            for path, member in sources.items():
                archive.write(path, member)

    write_whole(target, pack)
    return notes


# --------------------------------------------------------------------------------------------
# import
# --------------------------------------------------------------------------------------------


def _value(kind: str, text: str, where: str) -> Any:
    try:
        if kind == "Real":
            value = float(text)
            if not math.isfinite(value):
                raise ValueError("not finite")
            return value
        if kind == "Integer":
            return int(text)
        if kind == "Boolean":
            if text not in ("true", "false", "1", "0"):
                raise ValueError("expected true or false")
            return text in ("true", "1")
        return text
    except ValueError as e:
        raise ScenarioError(where, "", f"bad {kind} value {text!r}: {e}") from None


def _parameter_set(node: ET.Element, where: str) -> tuple[str, dict[str, Any]]:
    values: dict[str, Any] = {}
    for parameter in node.iterfind(f"{_q(SSV, 'Parameters')}/{_q(SSV, 'Parameter')}"):
        name = parameter.get("name")
        typed = next(iter(parameter), None)
        if typed is None or typed.tag.split("}")[-1] not in ("Real", "Integer", "Boolean", "String"):
            raise ScenarioError(where, f"parameter {name}", "only Real, Integer, Boolean and String values are read")
        values[name] = _value(typed.tag.split("}")[-1], typed.get("value", ""), f"{where}: parameter {name}")
    return node.get("name", ""), values


def scenario_from_ssp(path: Path, folder: Path, parameter_set: str | None = None) -> dict:
    """The master's scenario mapping of the SSP archive `path`, its FMUs extracted to `folder`."""
    path = Path(path)
    shown = display_path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            archive.extractall(folder)
    except (OSError, zipfile.BadZipFile) as e:
        raise ScenarioError(shown, "", f"cannot read the SSP archive: {e}") from None
    ssd_file = folder / SSD_NAME
    if not ssd_file.is_file():
        raise ScenarioError(shown, "", f"no {SSD_NAME} in the archive")
    try:
        root = ET.parse(ssd_file).getroot()
    except ET.ParseError as e:
        raise ScenarioError(shown, SSD_NAME, f"not XML: {e}") from None
    system = root.find(_q(SSD, "System"))
    if root.tag != _q(SSD, "SystemStructureDescription") or system is None:
        raise ScenarioError(shown, SSD_NAME, "not an SSP 1.0 system structure description")

    instances: dict[str, dict] = {}
    for element in system.iterfind(f"{_q(SSD, 'Elements')}/*"):
        name = element.get("name", "")
        if element.tag != _q(SSD, "Component") or element.get("type", FMU_MIME) != FMU_MIME:
            raise ScenarioError(shown, f"Elements/{name}", "only FMU components are supported (no sub-systems)")
        fmu = (folder / element.get("source", "")).resolve()
        if not fmu.is_file() or folder.resolve() not in fmu.parents:
            raise ScenarioError(shown, f"Elements/{name}", f"FMU {element.get('source')!r} is not in the archive")
        sets: list[tuple[str, dict]] = []
        for binding in element.iterfind(f"{_q(SSD, 'ParameterBindings')}/{_q(SSD, 'ParameterBinding')}"):
            if binding.get("source"):
                ssv_file = folder / binding.get("source")
                try:
                    node = ET.parse(ssv_file).getroot()
                except (OSError, ET.ParseError) as e:
                    raise ScenarioError(shown, f"Elements/{name}", f"parameter file {binding.get('source')}: {e}") from None
            else:
                node = binding.find(f"{_q(SSD, 'ParameterValues')}/{_q(SSV, 'ParameterSet')}")
            if node is not None:
                sets.append(_parameter_set(node, f"{shown}: {name}"))
        chosen: dict[str, Any] = {}
        if parameter_set is None:
            chosen = sets[0][1] if sets else {}
        else:
            for set_name, values in sets:
                if set_name == parameter_set:
                    chosen = values
        instances[name] = {"fmu": str(fmu), "parameters": chosen}

    connections = []
    for c in system.iterfind(f"{_q(SSD, 'Connections')}/{_q(SSD, 'Connection')}"):
        if len(c):
            raise ScenarioError(shown, "Connections", "connections with a transformation are not supported")
        connections.append(f"{c.get('startElement')}.{c.get('startConnector')} -> "
                           f"{c.get('endElement')}.{c.get('endConnector')}")

    scenario: dict[str, Any] = {
        "name": re.sub(r"[^A-Za-z0-9_.-]", "_", root.get("name") or path.stem),
        "description": system.get("description", f"SSP system {root.get('name', '')}"),
        "instances": instances,
        "connections": connections,
    }
    experiment = root.find(_q(SSD, "DefaultExperiment"))
    if experiment is not None:
        if experiment.get("startTime"):
            scenario["start_time"] = float(experiment.get("startTime"))
        if experiment.get("stopTime"):
            scenario["stop_time"] = float(experiment.get("stopTime"))
        for annotation in experiment.iterfind(f"{_q(SSD, 'Annotations')}/{_q(SSC, 'Annotation')}"):
            fixed = annotation.find(f"{_q(OSP, 'Algorithm')}/{_q(OSP, 'FixedStepAlgorithm')}")
            if annotation.get("type") == OSP_TYPE and fixed is not None:
                scenario["step"] = float(fixed.get("baseStepSize"))
            own = annotation.find(_q(MASTER, "Run"))
            if annotation.get("type") == MASTER_TYPE and own is not None:
                scenario["algorithm"] = own.get("algorithm", "gauss-seidel")
                if own.get("order"):
                    scenario["order"] = own.get("order").split()
                if own.get("stopWhen"):
                    scenario["stop_when"] = json.loads(own.get("stopWhen"))
    return scenario


@contextlib.contextmanager
def scenario_source(scenario: str, parameter_set: str | None = None) -> Iterator[Any]:
    """What `auv_cosim.master.runner.run` takes for `scenario`: itself, or for an .ssp file the scenario
    mapping read from it (its FMUs extracted to a temporary folder, removed afterwards)."""
    if not str(scenario).lower().endswith(".ssp"):
        yield scenario
        return
    folder = Path(tempfile.mkdtemp(prefix="ssp-"))
    try:
        yield scenario_from_ssp(Path(scenario), folder, parameter_set)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
