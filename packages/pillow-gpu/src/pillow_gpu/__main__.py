"""``python -m pillow_gpu``: the ``pillow-gpu`` command (see :mod:`pillow_gpu.cli`)."""

import sys

from pillow_gpu.cli import main

sys.exit(main())
