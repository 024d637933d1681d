#!/usr/bin/env python3
"""Write the synthetic seabed of the terrain-following scenario: ridges, a canyon and sand waves
(references/synthetic_seabed.py has the shapes and their reasons).

    .venv/bin/python tools/synthetic_seabed.py [OUT.npz]    # default: the AUV unit's scenarios/seabeds/ridges_canyon.npz
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from references.synthetic_seabed import DEFAULT, main  # noqa: E402

if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT))
