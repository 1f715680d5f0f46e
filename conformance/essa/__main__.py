"""``python -m conformance.essa --impl KVMGmap``: see :func:`conformance.essa.protocol.main`."""

import sys

from .protocol import main

sys.exit(main())
