"""Shader work: the per-dispatch estimate every kernel states, and the per-submission bound.

A shader-work *unit* is about one four-byte sample step of a kernel's inner loop: one storage
read of a pixel word with its per-byte arithmetic (a rank filter's compare-exchange step on
four byte lanes counts as one unit too, and each of its window samples as 1, 2 or 4 word
loads). A dispatch's work is its invocations times (:data:`INVOCATION_OVERHEAD` + the kernel's
inner-loop units per invocation); each kernel states the latter where it records its dispatch
(``Program.dispatch(invocation_work=...)``).
The planner rejects a graph whose work exceeds the bound as ``Unsupported`` before anything is
decoded or allocated, and the batch executor closes a submission before the job that would
take it over the bound.

Reference figures (measured for this bound): lavapipe (llvmpipe 15, 256-bit, 2 CPU cores,
otherwise idle), one 2048x2048 RGBA graph per kernel family, GPU time per unit: copy (lut)
0.9 ns, rotate (remap) 1.0 ns, multiply (chops) 1.5 ns, SMOOTH 3x3 / SMOOTH_MORE 5x5
convolution 1.7/2.0 ns (the worst); the rank kernels (selection networks, separable min/max,
radix select) 0.5-1.3 ns; the running-sum box blur counts 5 units per output step, calibrated
against the lookup kernel. Any hardware GPU is far faster.
"""

from __future__ import annotations

from pillow_gpu._graph import Node
from pillow_gpu.errors import Unsupported

__all__ = ["INVOCATION_OVERHEAD", "MAX_SUBMISSION_WORK", "RAISE_BOUND", "over_bound"]

#: Units every invocation costs besides its inner loop (index math, bounds check, the store).
#: Measured: straight-line kernels (lut, remap) take 8-9 ns per invocation on lavapipe.
INVOCATION_OVERHEAD = 8

#: Most shader-work units one GPU submission (and so one graph) may record.
#:
#: Why this value: one submission must finish well inside GPU watchdog timeouts (Windows TDR
#: resets the device after ~2 s). On the slowest adapter measured here, lavapipe on 2 CPU
#: cores, the worst kernel family costs 2.0 ns per unit (see the module docstring), so a full
#: submission takes at most ~4 s there. Hardware adapters, even slow integrated GPUs, are
#: assumed (not measured here) to be an order of magnitude faster than 2-core llvmpipe (a few
#: tens of GFLOP/s against several hundred), i.e. ~0.4 s or less. The bound still admits the
#: heaviest common 4096x4096 graphs (invert + MedianFilter(3): 0.8e9 units) and rejects e.g.
#: MedianFilter(7) above ~1.6 Mpixels (RGBA) or MedianFilter(5) on 4096x4096.
MAX_SUBMISSION_WORK = 2_000_000_000


#: How :func:`over_bound`'s fix names the setting (the command line names its option instead).
RAISE_BOUND = "GpuBatchExecutor(max_submission_work=...)"


def over_bound(root: Node, work: int, bound: int) -> Unsupported:
    """The admission error for a graph whose shader work ``work`` exceeds ``bound``."""
    width, height = root.size
    return Unsupported(
        "the graph's shader work exceeds the per-submission bound (GPU watchdog safety)",
        observed=f"{work} shader-work units for a {root.mode} {width}x{height} graph; "
        f"bound {bound}",
        fix="use a smaller image (or tiles), a smaller filter/radius or fewer operations, "
        f"or raise {RAISE_BOUND} on a fast GPU",
        stage="admission",
    )
