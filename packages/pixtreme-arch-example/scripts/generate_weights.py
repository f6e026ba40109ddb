"""Regenerate the shipped safetensors weights of pixtreme-arch-example, byte for byte.

Usage: python packages/pixtreme-arch-example/scripts/generate_weights.py [--check]

The weights are computed from the recipe constants in pixtreme.infer.example._networks, so the
committed files are reproducible. --check writes nothing and exits 1 when a committed file
differs from what this script would write.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pixtreme.infer.example._weights import all_networks, serialize_weights

WEIGHTS_DIR = (
    Path(__file__).resolve().parents[1] / "src" / "pixtreme" / "infer" / "example" / "weights"
)


def main(argv: list[str] | None = None) -> int:
    """Write (or check) every network's weight file; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only, write nothing")
    parser.add_argument("--output-dir", type=Path, default=WEIGHTS_DIR)
    args = parser.parse_args(argv)
    status = 0
    for spec in all_networks():
        path = args.output_dir / spec.weights_file
        data = serialize_weights(spec)
        if args.check:
            same = path.is_file() and path.read_bytes() == data
            print(f"{path}: {'up to date' if same else 'DIFFERS'}")
            status |= 0 if same else 1
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"{path}: wrote {len(data)} bytes")
    return status


if __name__ == "__main__":
    sys.exit(main())
