"""``python -m master.campaign ...`` = ``python -m master sweep ...``."""
import sys

from .cli import main

sys.exit(main())
