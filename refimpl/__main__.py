"""``python -m refimpl``: see :mod:`refimpl.cli`."""

import sys

from .cli import main

sys.exit(main())
