"""``python -m pillow_gpu.bench.files``: a folder of photos through sequential Pillow, Pillow on
every core, and the executor with and without worker decoding (see ``bench._files``).

Every lane's results must equal sequential Pillow's byte for byte; a lane that differs is not
timed and the command exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pillow_gpu.bench._files import FilesBenchConfig, render_files_table, run_files_benchmark

__all__ = ["main"]


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.partition("x")
    try:
        return int(width), int(height)
    except ValueError as error:
        msg = f"a size is WIDTHxHEIGHT, e.g. 2048x1536; got {text!r}"
        raise argparse.ArgumentTypeError(msg) from error


def main(argv: list[str] | None = None) -> int:
    """Run the files benchmark; print its table; write ``PREFIX.json``/``.md`` if asked."""
    parser = argparse.ArgumentParser(prog="python -m pillow_gpu.bench.files", description=__doc__)
    defaults = FilesBenchConfig()
    parser.add_argument("--chain", default=defaults.chain, help="an apply chain")
    parser.add_argument("--inputs", default="", help="a folder of image files (default: generate)")
    parser.add_argument("--files", type=int, default=defaults.files, help="generated files")
    parser.add_argument(
        "--size", type=_size, default=defaults.size, help="generated size, e.g. 2048x1536"
    )
    parser.add_argument("--repeats", type=int, default=defaults.repeats, help="timed windows")
    parser.add_argument("--output", help="writes PREFIX.json and PREFIX.md")
    args = parser.parse_args(argv)
    try:
        config = FilesBenchConfig(
            chain=args.chain,
            inputs=args.inputs,
            files=args.files,
            size=args.size,
            repeats=args.repeats,
        )
    except ValueError as error:
        parser.error(str(error))
    result = run_files_benchmark(config, log=lambda message: print(message, file=sys.stderr))
    table = render_files_table(result)
    print(table)
    if args.output:
        Path(f"{args.output}.json").write_text(json.dumps(result, indent=2) + "\n")
        Path(f"{args.output}.md").write_text("# pillow-gpu files benchmark\n\n" + table)
    return 0 if all(lane["parity"] == "exact" for lane in result["lanes"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
