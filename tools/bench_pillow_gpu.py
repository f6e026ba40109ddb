#!/usr/bin/env python3
"""Run the pillow-gpu benchmark (same options as ``pillow-gpu bench``; see --help).

Example (the recorded lavapipe run):
    .venv/bin/python tools/bench_pillow_gpu.py \
        --output packages/pillow-gpu/docs/bench-lavapipe-2core
"""

import sys

from pillow_gpu.bench._cli import main

if __name__ == "__main__":
    sys.exit(main())
