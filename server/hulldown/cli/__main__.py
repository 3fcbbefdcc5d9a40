"""``python -m hulldown.cli``: the same as the ``hulldown`` console script."""

import sys

from . import main

sys.exit(main())
