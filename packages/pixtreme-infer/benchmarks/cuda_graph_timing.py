"""Measurements of the CUDA Graph components with CUDA events (for benchmarks, not for tests).

Used by ``benchmarks/cuda_graph_bench.py`` and the opt-in performance tests. Every figure is
measured on the caller's explicit non-default stream; nothing here applies a threshold.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from pixtreme.infer._cuda_graph._buffers import _frame_class
from pixtreme.infer._cuda_graph._context import _cupy
from pixtreme.infer.cuda_graph import CudaGraphBuffers, CudaGraphSession

VIDEO_SIZES: dict[str, tuple[int, int]] = {"1080p": (1080, 1920), "4K": (2160, 3840)}
"""Video frame sizes (height, width) measured by the copy benchmarks."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencySummary:
    """Median and 90th percentile of per-call latencies in milliseconds."""

    samples: int
    median_ms: float
    p90_ms: float
    min_ms: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CopyMeasurement:
    """copy_inputs and copy_output latency for one frame size and dtype, against a raw copy.

    Latencies are single calls between two events; ``*_sustained`` are per call over
    back-to-back batches, from which the bandwidths and the share of the raw copy derive.
    """

    size: str
    height: int
    width: int
    dtype: str
    nbytes: int
    copy_inputs: LatencySummary
    copy_output: LatencySummary
    raw_copy: LatencySummary
    copy_inputs_sustained: LatencySummary
    raw_copy_sustained: LatencySummary
    copy_inputs_bandwidth_gbps: float
    raw_copy_bandwidth_gbps: float
    copy_inputs_share_of_raw: float

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayMeasurement:
    """One replay of a captured multi-kernel operation against launching the same kernels."""

    kernels: int
    elements: int
    replay: LatencySummary
    normal: LatencySummary
    replay_sustained: LatencySummary
    normal_sustained: LatencySummary
    speedup: float
    sustained_speedup: float

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


def _summary(values: list[float]) -> LatencySummary:
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(0.9 * (len(ordered) - 1))))
    return LatencySummary(
        samples=len(ordered),
        median_ms=statistics.median(ordered),
        p90_ms=ordered[index],
        min_ms=ordered[0],
    )


def time_on_stream(call: Callable[[], object], *, warmup: int, samples: int) -> LatencySummary:
    """Time ``call`` per sample between two CUDA events on the current stream."""
    cupy = _cupy()
    stream = cupy.cuda.get_current_stream()
    for _ in range(warmup):
        call()
    stream.synchronize()
    values = []
    for _ in range(samples):
        start = cupy.cuda.Event()
        end = cupy.cuda.Event()
        start.record(stream)
        call()
        end.record(stream)
        end.synchronize()
        values.append(float(cupy.cuda.get_elapsed_time(start, end)))
    return _summary(values)


def time_batch_on_stream(
    call: Callable[[], object], *, repeats: int, rounds: int
) -> LatencySummary:
    """Time ``repeats`` back-to-back calls between two CUDA events, per call, over ``rounds``.

    Back-to-back calls let host work overlap device work, so this is the sustained cost.
    """
    cupy = _cupy()
    stream = cupy.cuda.get_current_stream()
    call()
    stream.synchronize()
    values = []
    for _ in range(rounds):
        start = cupy.cuda.Event()
        end = cupy.cuda.Event()
        start.record(stream)
        for _ in range(repeats):
            call()
        end.record(stream)
        end.synchronize()
        values.append(float(cupy.cuda.get_elapsed_time(start, end)) / repeats)
    return _summary(values)


def _frame(array: Any) -> Any:
    return _frame_class()(data=array, colorspace="sRGB", gamma="sRGB", channels="RGB")


def measure_copies(size: str, dtype: str, *, warmup: int = 5, samples: int = 50) -> CopyMeasurement:
    """Measure copy_inputs / copy_output of one RGB frame against a raw device copy.

    Call inside an explicit non-default stream.
    """
    cupy = _cupy()
    height, width = VIDEO_SIZES[size]
    shape = (height, width, 3)
    values = cupy.arange(height * width * 3, dtype=cupy.uint32) % 251
    source = _frame(values.astype(dtype).reshape(shape))
    fixed_in = _frame(cupy.empty(shape, dtype=dtype))
    fixed_out = _frame(cupy.empty(shape, dtype=dtype))
    raw_destination = cupy.empty(shape, dtype=dtype)
    nbytes = int(raw_destination.nbytes)
    outputs: list[Any] = []
    with CudaGraphBuffers(fixed_in, fixed_out) as buffers:
        inputs = time_on_stream(lambda: buffers.copy_inputs(source), warmup=warmup, samples=samples)

        def copy_output() -> None:
            outputs.append(
                buffers.copy_output(channels="RGB", colorspace="sRGB", gamma="sRGB", matrix=None)
            )
            if len(outputs) > 2:
                outputs.pop(0)

        output = time_on_stream(copy_output, warmup=warmup, samples=samples)

        def raw_copy() -> None:
            raw_destination.data.copy_from_device_async(
                source.data.data, nbytes, cupy.cuda.get_current_stream()
            )

        raw = time_on_stream(raw_copy, warmup=warmup, samples=samples)
        rounds = max(3, samples // 10)
        inputs_sustained = time_batch_on_stream(
            lambda: buffers.copy_inputs(source), repeats=20, rounds=rounds
        )
        raw_sustained = time_batch_on_stream(raw_copy, repeats=20, rounds=rounds)
        cupy.cuda.get_current_stream().synchronize()
        if not bool((buffers.input_array == source.data).all()):
            raise RuntimeError("copy_inputs produced different bytes than its source")
    if not bool((raw_destination == source.data).all()):
        raise RuntimeError("the raw reference copy produced different bytes")

    def gbps(summary: LatencySummary) -> float:
        return nbytes / (summary.median_ms * 1e-3) / 1e9

    return CopyMeasurement(
        size=size,
        height=height,
        width=width,
        dtype=dtype,
        nbytes=nbytes,
        copy_inputs=inputs,
        copy_output=output,
        raw_copy=raw,
        copy_inputs_sustained=inputs_sustained,
        raw_copy_sustained=raw_sustained,
        copy_inputs_bandwidth_gbps=gbps(inputs_sustained),
        raw_copy_bandwidth_gbps=gbps(raw_sustained),
        copy_inputs_share_of_raw=raw_sustained.median_ms / inputs_sustained.median_ms,
    )


def measure_replay(
    *, kernels: int = 16, elements: int = 64 * 64, warmup: int = 5, samples: int = 200
) -> ReplayMeasurement:
    """Time one replay of ``kernels`` small elementwise kernels against launching them normally.

    Call inside an explicit non-default stream.
    """
    cupy = _cupy()
    step = cupy.ElementwiseKernel(
        "float32 x", "float32 y", "y = x * 0.5f + 1.0f", "pixtreme_infer_bench_step"
    )
    arrays = [cupy.zeros(elements, dtype=cupy.float32) for _ in range(kernels + 1)]

    def launch() -> None:
        for index in range(kernels):
            step(arrays[index], arrays[index + 1])

    with CudaGraphSession({"chain": launch}, resources=tuple(arrays)) as session:
        replay = time_on_stream(lambda: session.replay("chain"), warmup=warmup, samples=samples)
        normal = time_on_stream(launch, warmup=warmup, samples=samples)
        rounds = max(3, samples // 20)
        replay_sustained = time_batch_on_stream(
            lambda: session.replay("chain"), repeats=50, rounds=rounds
        )
        normal_sustained = time_batch_on_stream(launch, repeats=50, rounds=rounds)
        cupy.cuda.get_current_stream().synchronize()
    return ReplayMeasurement(
        kernels=kernels,
        elements=elements,
        replay=replay,
        normal=normal,
        replay_sustained=replay_sustained,
        normal_sustained=normal_sustained,
        speedup=normal.median_ms / replay.median_ms,
        sustained_speedup=normal_sustained.median_ms / replay_sustained.median_ms,
    )


def host_seconds(call: Callable[[], object], repeats: int) -> float:
    """Host wall time of ``repeats`` calls divided by ``repeats`` (no device wait)."""
    start = time.perf_counter()
    for _ in range(repeats):
        call()
    return (time.perf_counter() - start) / repeats
