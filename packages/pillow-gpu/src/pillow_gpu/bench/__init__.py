"""The pillow-gpu benchmark: Pillow baselines, GpuBatchExecutor lanes, a wgpu ceiling, and the
lanes against the world: pillow-rs (the peer), hand-written reference kernels, the transfer
bound and (when installed) pyvips.

Run it as ``pillow-gpu bench``, ``python -m pillow_gpu.bench`` or ``tools/bench_pillow_gpu.py``
(see ``docs/validation.md``). :func:`run_benchmark` returns the result document that
:func:`render_markdown`, :func:`write_json` and :func:`write_plot` write out.
"""

from pillow_gpu.bench._report import (
    render_markdown,
    render_summary,
    render_world,
    write_json,
    write_plot,
)
from pillow_gpu.bench._runner import ALL_LANES, BenchConfig, default_config, run_benchmark
from pillow_gpu.bench._workloads import WORKLOADS, Workload

__all__ = [
    "ALL_LANES",
    "WORKLOADS",
    "BenchConfig",
    "Workload",
    "default_config",
    "render_markdown",
    "render_summary",
    "render_world",
    "run_benchmark",
    "write_json",
    "write_plot",
]
