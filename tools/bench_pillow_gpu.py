#!/usr/bin/env python3
"""Run the pillow-gpu benchmark (same options as ``pillow-gpu bench``; see --help).

Example (the recorded lavapipe run, with the pillow-rs venv made on request; see
packages/pillow-gpu/docs/validation.md):
    .venv/bin/python tools/bench_pillow_gpu.py \
        --cases=invert_median3:L:256:64,invert_median3:RGB:1024:8,invert_median3:RGBA:256:64,\
gaussian_blur2:RGB:512:16,chops_invert:L:256:64,gaussian_blur2:L:512:16,\
grayscale_invert:RGB:512:16,multiply:RGB:256:64,multiply:L:256:64,thumbnail_bicubic:RGB:1024:16 \
        --repeats=5 --min-seconds=3 --sweep-max-jobs= --pillow-rs-venv=.bench/pillow-rs-venv \
        --output packages/pillow-gpu/docs/bench-lavapipe-2core
"""

import sys

from pillow_gpu.bench._cli import main

if __name__ == "__main__":
    sys.exit(main())
