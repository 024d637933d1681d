"""Campaigns: one scenario run many times over varied parameters and noise seeds, in parallel
on Dask's distributed scheduler (``auv-cosim sweep``, docs/campaigns.md).

A client of the master like any other: it uses only the master's public API (the names
exported by ``master``), never its modules. Dask is an optional extra of the project
(``pip install -e ".[campaign]"``; ``./build.sh`` installs it): the master runs without it.

    from auv_cosim.campaigns import sweep
    table = sweep("survey", vary={"vehicle.CurrentVelocity[2]": [0.0, 0.2, 0.4]}, seeds=3, workers=2)

Modules: ``spec`` (the campaign file, the command-line values, the product of the runs, run
ids and hashes), ``sweep`` (plan, resume, execute on Dask, collect), ``worker`` (one run on a
Dask worker), ``store`` (run folders, campaign.csv, the lock), ``plots`` (figures against the
varied values), ``cli`` (the ``sweep`` command).
"""

from .spec import CampaignError, parse_set_option, parse_set_options
from .store import CampaignTable
from .sweep import CampaignPlan, build_campaign, execute, sweep

__all__ = ["sweep", "build_campaign", "CampaignPlan", "execute", "CampaignTable", "CampaignError", "parse_set_option",
           "parse_set_options"]
