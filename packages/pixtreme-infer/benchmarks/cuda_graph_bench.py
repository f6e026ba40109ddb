"""Benchmark the CUDA Graph components on a CUDA GPU: print a table and write JSON.

Measures, on an explicit non-default stream with CUDA events:
  * copy_inputs / copy_output latency (median, p90) for 1080p and 4K RGB frames in uint8,
    float16 and float32, and copy_inputs' sustained bandwidth as a share of a raw
    device-to-device copy of the same bytes;
  * one replay of a captured small multi-kernel operation against launching the same kernels.

Targets from issue 7 are reported, never enforced: copy_inputs at 4K reaches at least 90 % of
the raw copy's bandwidth, and replay is at least 2x faster than launching normally.

Usage: python packages/pixtreme-infer/benchmarks/cuda_graph_bench.py [--output FILE]
Exits with status 2 and a message naming the reason when no CUDA GPU is usable.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from pathlib import Path
from typing import Any

COPY_SHARE_TARGET = 0.90
REPLAY_SPEEDUP_TARGET = 2.0


def _gpu_reason() -> str | None:
    try:
        import cupy
    except ImportError as error:
        return f"cupy does not import ({error}); install cupy-cuda12x or cupy-cuda13x"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:
        return f"the CUDA runtime reports {type(error).__name__}: {error}"
    return None if count > 0 else "the CUDA runtime reports 0 devices"


def _machine() -> dict[str, Any]:
    import cupy

    runtime = cupy.cuda.runtime
    device = runtime.getDevice()
    properties = runtime.getDeviceProperties(device)
    name = properties["name"]
    return {
        "gpu": name.decode() if isinstance(name, bytes) else str(name),
        "compute_capability": f"{properties['major']}.{properties['minor']}",
        "gpu_memory_bytes": int(properties["totalGlobalMem"]),
        "driver_version": runtime.driverGetVersion(),
        "runtime_version": runtime.runtimeGetVersion(),
        "cupy": cupy.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "measured_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def _row(*cells: object) -> str:
    widths = (6, 8, 9, 22, 22, 22, 12, 9)
    return "  ".join(str(cell).rjust(width) for cell, width in zip(cells, widths, strict=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=Path("cuda_graph_bench.json"))
    parser.add_argument("--samples", type=int, default=100, help="timed calls per case")
    parser.add_argument("--sizes", nargs="+", default=["1080p", "4K"], choices=["1080p", "4K"])
    parser.add_argument(
        "--dtypes", nargs="+", default=["uint8", "float16", "float32"],
        choices=["uint8", "float16", "float32"],
    )  # fmt: skip
    args = parser.parse_args(argv)

    reason = _gpu_reason()
    if reason is not None:
        print(f"cuda_graph_bench: needs a CUDA GPU: {reason}", file=sys.stderr)
        return 2

    import cupy

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cuda_graph_timing import measure_copies, measure_replay

    machine = _machine()
    print(f"# {machine['gpu']} (cc {machine['compute_capability']}), cupy {machine['cupy']}")
    copies = []
    print(_row("size", "dtype", "MB", "copy_inputs med/p90", "copy_output med/p90",
               "raw copy med/p90", "GB/s in/raw", "share"))  # fmt: skip
    with cupy.cuda.Stream(non_blocking=True):
        for size in args.sizes:
            for dtype in args.dtypes:
                result = measure_copies(size, dtype, samples=args.samples)
                copies.append(result.as_dict())
                print(
                    _row(
                        size,
                        dtype,
                        f"{result.nbytes / 1e6:.1f}",
                        f"{result.copy_inputs.median_ms:.4f}/{result.copy_inputs.p90_ms:.4f} ms",
                        f"{result.copy_output.median_ms:.4f}/{result.copy_output.p90_ms:.4f} ms",
                        f"{result.raw_copy.median_ms:.4f}/{result.raw_copy.p90_ms:.4f} ms",
                        f"{result.copy_inputs_bandwidth_gbps:.0f}/"
                        f"{result.raw_copy_bandwidth_gbps:.0f}",
                        f"{100 * result.copy_inputs_share_of_raw:.1f}%",
                    )
                )
        replay = measure_replay(samples=max(args.samples, 200))
    print(
        f"replay of {replay.kernels} kernels x {replay.elements} elements: "
        f"replay {replay.replay.median_ms:.4f}/{replay.replay.p90_ms:.4f} ms (median/p90), "
        f"normal {replay.normal.median_ms:.4f}/{replay.normal.p90_ms:.4f} ms; "
        f"speedup {replay.speedup:.2f}x per call, {replay.sustained_speedup:.2f}x sustained"
    )

    four_k = [item for item in copies if item["size"] == "4K"]
    targets: dict[str, dict[str, Any]] = {
        "copy_inputs_4k_share_of_raw": {
            "target": COPY_SHARE_TARGET,
            "observed_min": min(
                (item["copy_inputs_share_of_raw"] for item in four_k), default=None
            ),
        },
        "replay_speedup": {"target": REPLAY_SPEEDUP_TARGET, "observed": replay.speedup},
    }
    for name, target in targets.items():
        observed = target.get("observed", target.get("observed_min"))
        verdict = (
            "n/a" if observed is None else ("met" if observed >= target["target"] else "NOT met")
        )
        target["met"] = None if observed is None else observed >= target["target"]
        print(f"target {name}: >= {target['target']} -> {verdict} ({observed})")

    record = {"machine": machine, "copies": copies, "replay": replay.as_dict(), "targets": targets}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
