"""What `import master` and a run load: the lazy exports of auv_cosim/master/__init__.py and the CLI's
parser keep the campaign machinery and matplotlib out of a run that does not use them (their
import is a visible part of what a user waits for, issue 15). Checked in fresh interpreters."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
                         cwd=str(ROOT), capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_master_loads_none_of_its_parts():
    loaded = _modules_after("from auv_cosim import master")
    assert not {"auv_cosim.master.runner", "auv_cosim.campaigns", "numpy", "pydantic", "fmpy", "matplotlib"} & loaded


def test_the_exports_load_on_first_use():
    loaded = _modules_after("from auv_cosim import master\nassert callable(master.run) and master.EXIT_SCENARIO == 2\n"
                            "assert master.ScenarioError.__module__ == 'auv_cosim.master.scenario'")
    assert "auv_cosim.master.runner" in loaded
    assert not {"auv_cosim.campaigns", "matplotlib"} & loaded
    loaded = _modules_after("from auv_cosim.campaigns import sweep, CampaignTable")
    assert "auv_cosim.campaigns" in loaded


def test_unknown_attribute_is_an_attribute_error():
    out = subprocess.run([sys.executable, "-c", "from auv_cosim import master\nmaster.no_such_thing"], cwd=str(ROOT),
                         capture_output=True, text=True)
    assert out.returncode != 0 and "has no attribute 'no_such_thing'" in out.stderr


def test_the_cli_parser_of_run_leaves_the_campaign_out():
    loaded = _modules_after("from auv_cosim.cli import build_parser\n"
                            "a = build_parser('run').parse_args(['run', 'survey', '--no-plots'])\n"
                            "assert a.scenario == 'survey' and a.no_plots")
    assert "auv_cosim.campaigns" not in loaded
    loaded = _modules_after("from auv_cosim.cli import build_parser\n"
                            "a = build_parser('sweep').parse_args(['sweep', 'survey', '--dry-run'])\n"
                            "assert a.dry_run")
    assert "auv_cosim.campaigns" in loaded
