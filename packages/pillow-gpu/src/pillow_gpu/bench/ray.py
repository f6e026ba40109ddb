"""``python -m pillow_gpu.bench.ray``: Ray Data with N actors against the single-process
executor and sequential Pillow, on the same files (see ``docs/ray.md``).

Every output is checked byte-equal to Pillow's; a mismatch fails the run (exit status 1).
Needs Ray Data: ``pip install 'pillow-gpu[ray]'``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pillow_gpu.bench._ray import DEFAULT_CHAIN, RayBenchConfig, run_ray_benchmark
from pillow_gpu.bench._ray_report import (
    failed_lanes,
    render_ray_markdown,
    render_ray_table,
    write_ray_results,
)

__all__ = [
    "DEFAULT_CHAIN",
    "RayBenchConfig",
    "failed_lanes",
    "main",
    "render_ray_markdown",
    "render_ray_table",
    "run_ray_benchmark",
    "write_ray_results",
]


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        msg = f"expected comma-separated integers such as 1,2; got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


def _sizes(text: str) -> tuple[tuple[int, int], ...]:
    found = []
    for part in (part.strip() for part in text.split(",")):
        width, _, height = part.lower().partition("x")
        if not (width.isdigit() and height.isdigit()):
            msg = f"a size is WIDTHxHEIGHT, e.g. 512x384; got {part!r}"
            raise argparse.ArgumentTypeError(msg)
        found.append((int(width), int(height)))
    return tuple(found)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pillow_gpu.bench.ray",
        description="Time the same files through sequential Pillow, the single-process "
        "GpuBatchExecutor and Ray Data with N PillowGpuMapper actors; every output must "
        "equal Pillow's byte for byte.",
    )
    add = parser.add_argument
    add("--chain", default=DEFAULT_CHAIN, help=f"an apply chain (default {DEFAULT_CHAIN})")
    add("--inputs", default="", help="a folder of image files (default: generate --files)")
    add("--files", type=int, default=64, help="generated files (default 64)")
    add("--sizes", type=_sizes, default=((512, 384),), help="generated sizes, e.g. 512x384,640x480")
    add(
        "--input-format",
        default="JPEG",
        choices=("JPEG", "PNG"),
        type=str.upper,
        help="generated files' format (JPEG, with every fourth file EXIF-rotated; or PNG)",
    )
    add("--format", dest="output_format", default="PNG", help="output format (default PNG)")
    add("--actors", type=_ints, default=(1, 2), help="Ray lanes' actor counts (default 1,2)")
    add("--batch-size", type=int, default=16, help="map_batches batch_size (default 16)")
    add("--repeats", type=int, default=3, help="timed windows per lane (default 3)")
    add("--num-cpus", type=int, default=0, help="local cluster CPUs (default: cores, >= N+1)")
    add("--address", default="", help="an existing Ray cluster (default: start a local one)")
    add(
        "--gpus-per-actor",
        type=float,
        default=-1.0,
        help="num_gpus per actor (default 1 when the cluster has GPUs, else 0)",
    )
    add("--max-jobs", type=int, default=64, help="executor max_jobs (per actor)")
    add("--max-in-flight", type=int, default=2, help="executor max_in_flight (per actor)")
    add("--output", default="pillow-gpu-bench-ray", help="writes PREFIX.json and PREFIX.md")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the Ray benchmark; print the table; 1 when any lane is not exact."""
    args = _parser().parse_args(argv)
    try:
        config = RayBenchConfig(
            chain=args.chain,
            inputs=args.inputs,
            files=args.files,
            sizes=args.sizes,
            input_format=args.input_format,
            output_format=args.output_format,
            actors=args.actors,
            batch_size=args.batch_size,
            repeats=args.repeats,
            num_cpus=args.num_cpus,
            address=args.address,
            gpus_per_actor=args.gpus_per_actor,
            max_jobs=args.max_jobs,
            max_in_flight=args.max_in_flight,
        )
    except ValueError as error:
        print(f"pillow-gpu bench ray: error: {error}", file=sys.stderr)
        return 2
    # Under `uv run`, Ray would rebuild the project for every worker; a local cluster runs
    # this interpreter as it is (docs/ray.md). Ray reads this once, when first imported.
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    try:
        import ray.data  # noqa: F401
    except ImportError as error:
        print(
            "pillow-gpu bench ray: error: why: Ray Data is not installed; observed: "
            f"{error}; fix: pip install 'pillow-gpu[ray]'",
            file=sys.stderr,
        )
        return 2
    from pillow_gpu.cli._info import adapter_summary

    def log(message: str) -> None:
        print(f"pillow-gpu bench ray: {message}", file=sys.stderr, flush=True)

    result = run_ray_benchmark(config, adapter=adapter_summary(), log=log)
    print(render_ray_table(result), end="")
    for path in write_ray_results(result, Path(args.output)):
        print(f"wrote {path}")
    failed = failed_lanes(result)
    if failed:
        print(
            f"pillow-gpu bench ray: error: lanes {', '.join(failed)} did not match Pillow or "
            "did not run (see the parity column and the JSON's error fields)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
