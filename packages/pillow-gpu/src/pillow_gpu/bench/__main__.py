"""``python -m pillow_gpu.bench``: the benchmark (same options as ``pillow-gpu bench``)."""

import sys

from pillow_gpu.bench._cli import main

if __name__ == "__main__":
    sys.exit(main())
