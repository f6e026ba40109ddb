"""``python -m pillow_gpu.cli``: the ``pillow-gpu`` command."""

import sys

from pillow_gpu.cli import main

sys.exit(main())
