"""``python -m auv_cosim.build``: the build's command line (driver.main), as the build's own
children run it."""
import sys

from .driver import main

sys.exit(main())
