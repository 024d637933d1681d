"""``export-osp SCENARIO OUT_DIR``: a scenario's stack as an Open Simulation Platform system
structure, ``OUT_DIR/OspSystemStructure.xml``, beside a copy of each FMU it names (their file
names; two different FMUs of one name are told apart by a suffix), which libcosim loads
(``cosim_osp_config_execution_create``, libcosimpy's ``CosimExecution.from_osp_config_file``)
and runs.

What it carries: every instance (``Simulator``, its FMU, the scenario's step), the start values
the scenario sets (``InitialValues``: Reals as the shortest text that reads back as the same
double), every connection (``VariableConnection``), the start time and the base step. libcosim's
``fixedStep`` algorithm steps every simulator from the same communication point and exchanges
values after the step: the master's ``algorithm: jacobi``; a Gauss-Seidel scenario is exported
all the same and the note says that libcosim will step it Jacobi. What the OSP format does not
carry is noted, not exported: input signals (OSP has none), the stop time and stop conditions
(the program that runs the structure gives them), the analyses.

The OSP interface specification's OspModelDescription files (variable groups for semantic
connections) are not written: every connection here is one variable to one variable, which
the structure holds as it is.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from ..master.files import same_file, write_whole
from ..master.plan import Plan
from ..master.scenario import ScenarioError, display_path
from ..master.ssp import unique_fmu_names, value_text

OSP_NS = "http://opensimulationplatform.com/MSMI/OSPSystemStructure"
OSP_FILE = "OspSystemStructure.xml"


def osp_document(plan: Plan, names: dict[Path, str]) -> bytes:
    ET.register_namespace("", OSP_NS)
    q = lambda tag: f"{{{OSP_NS}}}{tag}"   # noqa: E731
    root = ET.Element(q("OspSystemStructure"), {"version": "0.1"})
    ET.SubElement(root, q("StartTime")).text = repr(float(plan.start_time))
    ET.SubElement(root, q("BaseStepSize")).text = repr(float(plan.step))
    ET.SubElement(root, q("Algorithm")).text = "fixedStep"
    simulators = ET.SubElement(root, q("Simulators"))
    for name, ip in plan.instances.items():
        sim = ET.SubElement(simulators, q("Simulator"), {"name": name, "source": names[ip.fmu_path],
                                                          "stepSize": repr(float(plan.step))})
        if ip.params:
            values = ET.SubElement(sim, q("InitialValues"))
            for var, value in ip.params:
                if var.type not in ("Real", "Integer", "Boolean", "String"):
                    raise ScenarioError(display_path(ip.fmu_path), var.name,
                                        f"a {var.type} variable cannot be exported to OSP by this tool")
                iv = ET.SubElement(values, q("InitialValue"), {"variable": var.name})
                ET.SubElement(iv, q(var.type), {"value": value_text(var.type, value)})
    if plan.connections:
        connections = ET.SubElement(root, q("Connections"))
        for c in plan.connections:
            vc = ET.SubElement(connections, q("VariableConnection"))
            ET.SubElement(vc, q("Variable"), {"simulator": c.src, "name": c.src_var.name})
            ET.SubElement(vc, q("Variable"), {"simulator": c.dst, "name": c.dst_var.name})
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


def _copy(src: Path, f) -> None:
    with open(src, "rb") as source:
        shutil.copyfileobj(source, f)


def _write_together(out_dir: Path, files: dict) -> None:
    """Write every file (name: what ``write_whole`` takes) into a temporary folder inside
    ``out_dir`` and rename them into place once all are complete: a failed write (a full disk)
    leaves the folder as it was, and a folder this made is removed again."""
    import shutil
    import tempfile

    made = [p for p in [out_dir, *out_dir.parents] if not p.exists()]
    out_dir.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(dir=out_dir, prefix=".export.", suffix=".partial"))
    try:
        for name, content in files.items():
            write_whole(stage / name, content)
        for name in files:
            (stage / name).replace(out_dir / name)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        for folder in made:
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    shutil.rmtree(stage, ignore_errors=True)


def export_osp(plan: Plan, out_dir: Path, force: bool = False) -> list[str]:
    """Write OUT_DIR/OspSystemStructure.xml and the FMUs beside it; notes on what is not carried.
    An existing structure or FMU file is replaced only with ``force``; OUT_DIR may exist (empty
    or not) but must be a folder; nothing the plan reads is written over."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ScenarioError("OUT_DIR", display_path(out_dir), "exists and is not a folder")
    names = unique_fmu_names(plan)
    targets = [out_dir / OSP_FILE] + [out_dir / n for n in names.values()]
    for path, name in names.items():
        if (out_dir / name).exists() and same_file(out_dir / name, path):
            raise ScenarioError("OUT_DIR", display_path(out_dir / name),
                                "is the FMU the scenario names (an export copies it there); choose another folder")
    existing = [t for t in targets if t.exists()]
    if existing and not force:
        raise ScenarioError("OUT_DIR", display_path(existing[0]), "exists; not replaced without --force")
    document = osp_document(plan, names)
    _write_together(out_dir, {**{name: (lambda f, src=path: _copy(src, f)) for path, name in names.items()},
                              OSP_FILE: document})
    notes = []
    if plan.algorithm != "jacobi":
        notes.append(f"the scenario steps {plan.algorithm}; libcosim's fixedStep steps every simulator from the same "
                     f"point (Jacobi): run the master with algorithm: jacobi to compare")
    if plan.signals:
        notes.append("not exported (OSP has no input signals): " + ", ".join(s.target for s in plan.signals))
    if plan.stops:
        notes.append("not exported: the stop conditions (" + ", ".join(s.text for s in plan.stops) + ")")
    if plan.model.analysis:
        notes.append("not exported: the analyses (" + ", ".join(plan.model.analysis) + ")")
    return notes
