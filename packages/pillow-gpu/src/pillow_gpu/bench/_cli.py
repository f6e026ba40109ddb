"""Arguments of ``pillow-gpu bench`` (also ``python -m pillow_gpu.bench``)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from pillow_gpu.bench._report import render_markdown, write_json, write_plot
from pillow_gpu.bench._runner import ALL_LANES, BenchConfig, default_config, run_benchmark
from pillow_gpu.bench._workloads import WORKLOADS

__all__ = ["add_bench_arguments", "config_from_args", "run_from_args"]


def _names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in _names(text))


def _cases(text: str) -> tuple[tuple[str, str, int, int], ...]:
    found = []
    for part in _names(text):
        fields = part.split(":")
        if len(fields) != 4:
            msg = f"a case is WORKLOAD:MODE:SIZE:BATCH, e.g. invert_median3:L:256:64; got {part!r}"
            raise argparse.ArgumentTypeError(msg)
        found.append((fields[0], fields[1], int(fields[2]), int(fields[3])))
    return tuple(found)


def add_bench_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the benchmark's options to ``parser``."""
    add = parser.add_argument
    add(
        "--quick",
        action="store_true",
        help="a small subset: invert_median3, L and RGB, 256^2, batches 1 and 16",
    )
    add("--workloads", type=_names, help=f"comma-separated, from: {', '.join(WORKLOADS)}")
    add("--modes", type=_names, help="comma-separated modes (default L,RGB,RGBA)")
    add("--sizes", type=_ints, help="comma-separated square edges, e.g. 256,1024,4096")
    add("--batches", type=_ints, help="comma-separated batch sizes, e.g. 1,64")
    add(
        "--cases",
        type=_cases,
        help="explicit cases WORKLOAD:MODE:SIZE:BATCH,... (replace the workload x mode x size "
        "x batch matrix)",
    )
    add("--repeats", type=int, help="timed windows per lane")
    add(
        "--min-seconds",
        type=float,
        help="keep timing rounds of a case until they took this long (at most 64 rounds)",
    )
    add("--lanes", type=_names, help=f"comma-separated, from: {', '.join(ALL_LANES)}")
    add("--max-jobs", type=int, help="executor max_jobs of the queued/resident lanes")
    add("--max-in-flight", type=int, help="executor max_in_flight of those lanes")
    add("--sweep-max-jobs", type=_ints, help="max_jobs values of the sweep ('' to skip)")
    add("--sweep-max-in-flight", type=_ints, help="max_in_flight values of the sweep")
    add("--gpu-mib", type=int, help="executor gpu_bytes (and ceiling buffer budget) in MiB")
    add("--host-mib", type=int, help="executor host_bytes in MiB")
    add("--window-pixels", type=int, help="skip cases whose batch x pixels exceed this")
    add("--processes", type=int, help="workers of the multi-core Pillow baseline (all cores)")
    add(
        "--pillow-rs-venv",
        help="venv of the pillow_rs lane (pillow-rs 12.2.3 + numpy); created with uv if missing",
    )
    add(
        "--no-host-cost",
        dest="host_cost",
        action="store_false",
        default=None,
        help="skip the untimed per-job host-cost batch of the executor lanes",
    )
    add(
        "--output",
        default="pillow-gpu-bench",
        help="path prefix of the results: PREFIX.json, PREFIX.md, PREFIX.png",
    )
    add("--no-plot", dest="plot", action="store_false", help="do not draw PREFIX.png")


_FIELDS: dict[str, tuple[str, Any]] = {
    "workloads": ("workloads", None),
    "modes": ("modes", None),
    "sizes": ("sizes", None),
    "batches": ("batches", None),
    "repeats": ("repeats", None),
    "min_seconds": ("min_seconds", None),
    "lanes": ("lanes", None),
    "max_jobs": ("max_jobs", None),
    "max_in_flight": ("max_in_flight", None),
    "sweep_max_jobs": ("sweep_max_jobs", None),
    "sweep_max_in_flight": ("sweep_max_in_flight", None),
    "gpu_mib": ("gpu_bytes", 1 << 20),
    "host_mib": ("host_bytes", 1 << 20),
    "window_pixels": ("window_pixels", None),
    "processes": ("processes", None),
    "cases": ("cases", None),
    "pillow_rs_venv": ("pillow_rs_venv", None),
    "host_cost": ("host_cost", None),
}


def config_from_args(args: argparse.Namespace, *, adapter_type: str) -> BenchConfig:
    """The default matrix for the adapter (or ``--quick``) with the explicit options applied."""
    config = default_config(adapter_type=adapter_type, quick=args.quick)
    changes: dict[str, Any] = {}
    for option, (field, scale) in _FIELDS.items():
        value = getattr(args, option, None)
        if value is not None:
            changes[field] = value * scale if scale else value
    if changes.get("pillow_rs_venv"):
        changes["create_pillow_rs_venv"] = True  # the command line makes the venv on request
    return dataclasses.replace(config, **changes)


def run_from_args(args: argparse.Namespace) -> int:
    """Run the benchmark from parsed arguments; write JSON, Markdown and (optionally) PNG."""
    from pillow_gpu.cli._info import adapter_summary

    adapter = adapter_summary()
    try:
        config = config_from_args(args, adapter_type=str(adapter.get("adapter_type", "")))
    except ValueError as error:
        print(f"pillow-gpu bench: error: {error}", file=sys.stderr)
        return 2
    result = run_benchmark(config, adapter=adapter)
    prefix = Path(args.output)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    outputs = [prefix.with_name(prefix.name + ".json"), prefix.with_name(prefix.name + ".md")]
    write_json(result, outputs[0])
    outputs[1].write_text(render_markdown(result), encoding="utf-8")
    if args.plot:
        outputs.append(prefix.with_name(prefix.name + ".png"))
        write_plot(result, outputs[-1])
    for path in outputs:
        print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m pillow_gpu.bench`` / ``tools/bench_pillow_gpu.py``."""
    parser = argparse.ArgumentParser(prog="pillow-gpu bench", description=__doc__)
    add_bench_arguments(parser)
    return run_from_args(parser.parse_args(argv))
