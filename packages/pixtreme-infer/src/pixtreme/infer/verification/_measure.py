"""Request measurement: latency, throughput and drift summaries with a telemetry thread.

Numbers from here describe speed only; they never decide a check's status.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pixtreme.infer import _validate as v
from pixtreme.infer.errors import ContractError
from pixtreme.infer.verification._telemetry import TelemetrySample, TelemetrySource

_SECONDS = "pass a duration in seconds measured with time.perf_counter()"


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencySummary:
    """Seconds per request: min, mean, median, p95, max and sample standard deviation."""

    min_s: float
    mean_s: float
    median_s: float
    p95_s: float
    max_s: float
    stdev_s: float

    def __post_init__(self) -> None:
        owner = "LatencySummary"
        values = {
            field: v.number(owner, field, getattr(self, field), minimum=0.0, how=_SECONDS)
            for field in ("min_s", "mean_s", "median_s", "p95_s", "max_s", "stdev_s")
        }
        for middle in ("mean_s", "median_s", "p95_s"):
            v.ordered(
                owner,
                (("min_s", values["min_s"]), (middle, values[middle]), ("max_s", values["max_s"])),
            )
        v.ordered(owner, (("median_s", values["median_s"]), ("p95_s", values["p95_s"])))


@dataclass(frozen=True, slots=True, kw_only=True)
class ThroughputSummary:
    """Requests completed over the measured wall time."""

    requests: int
    elapsed_s: float
    requests_per_s: float

    def __post_init__(self) -> None:
        owner = "ThroughputSummary"
        requests = v.positive_int(owner, "requests", self.requests)
        elapsed = v.number(owner, "elapsed_s", self.elapsed_s, minimum=0.0, how=_SECONDS)
        rate = v.number(owner, "requests_per_s", self.requests_per_s, minimum=0.0)
        if elapsed == 0.0 or not math.isclose(rate, requests / elapsed, rel_tol=1e-9):
            raise ContractError(
                why="ThroughputSummary needs elapsed_s > 0 and requests_per_s = requests / "
                "elapsed_s",
                what=f"received requests={requests}, elapsed_s={elapsed!r}, "
                f"requests_per_s={rate!r}",
                how="build it with summarize_throughput(requests, elapsed_s)",
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class DriftSummary:
    """Median latency of the first and last ``window`` samples and their relative change."""

    window: int
    first_median_s: float
    last_median_s: float
    relative_change: float

    def __post_init__(self) -> None:
        owner = "DriftSummary"
        v.positive_int(owner, "window", self.window)
        first = v.number(owner, "first_median_s", self.first_median_s, minimum=0.0, how=_SECONDS)
        last = v.number(owner, "last_median_s", self.last_median_s, minimum=0.0, how=_SECONDS)
        change = v.number(owner, "relative_change", self.relative_change, minimum=-1.0)
        expected = (last - first) / first if first > 0 else 0.0
        if not math.isclose(change, expected, rel_tol=1e-9, abs_tol=1e-12):
            raise ContractError(
                why="DriftSummary.relative_change is (last - first) / first (0 when first is 0)",
                what=f"received first_median_s={first!r}, last_median_s={last!r}, "
                f"relative_change={change!r}",
                how="build it with summarize_drift(latencies_s, window)",
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestMeasurement:
    """Everything measure_requests observed."""

    latencies_s: tuple[float, ...]
    latency: LatencySummary
    throughput: ThroughputSummary
    drift: DriftSummary
    telemetry: tuple[TelemetrySample, ...]
    telemetry_error: str | None

    def __post_init__(self) -> None:
        owner = "RequestMeasurement"
        latencies = self.latencies_s
        if not isinstance(latencies, tuple) or not latencies:
            v.fail(
                owner,
                "latencies_s",
                latencies,
                expected="a non-empty tuple of seconds",
                how="pass the measured latencies as a tuple (measure_requests does)",
            )
        for value in latencies:
            v.number(owner, "latencies_s", value, minimum=0.0, how=_SECONDS)
        v.instance_of(owner, "latency", self.latency, LatencySummary)
        v.instance_of(owner, "throughput", self.throughput, ThroughputSummary)
        v.instance_of(owner, "drift", self.drift, DriftSummary)
        if self.throughput.requests != len(latencies):
            v.fail(
                owner,
                "throughput",
                self.throughput,
                expected=f"requests == len(latencies_s) == {len(latencies)}",
                how="summarize the same samples: summarize_throughput(len(latencies_s), ...)",
            )
        if self.drift.window > len(latencies):
            v.fail(
                owner,
                "drift",
                self.drift,
                expected=f"window <= len(latencies_s) == {len(latencies)}",
                how="summarize the same samples with summarize_drift(latencies_s, window)",
            )
        if not isinstance(self.telemetry, tuple) or not all(
            isinstance(item, TelemetrySample) for item in self.telemetry
        ):
            v.fail(
                owner,
                "telemetry",
                self.telemetry,
                expected="a tuple of TelemetrySample",
                how="pass the samples a TelemetrySource returned, or ()",
            )
        v.text(owner, "telemetry_error", self.telemetry_error, optional=True)


def summarize_latency(latencies_s: tuple[float, ...]) -> LatencySummary:
    """Summarize latencies (seconds); needs at least one sample."""
    if not latencies_s:
        raise ContractError(
            why="a latency summary needs at least one sample",
            what="received no latencies",
            how="measure at least one request (samples >= 1)",
        )
    values = np.asarray(latencies_s, dtype=np.float64)
    return LatencySummary(
        min_s=float(values.min()),
        mean_s=float(values.mean()),
        median_s=float(np.median(values)),
        p95_s=float(np.percentile(values, 95)),
        max_s=float(values.max()),
        stdev_s=statistics.stdev(latencies_s) if len(latencies_s) > 1 else 0.0,
    )


def summarize_throughput(requests: int, elapsed_s: float) -> ThroughputSummary:
    """Requests per second over ``elapsed_s`` (which must be positive)."""
    v.positive_int("summarize_throughput", "requests", requests)
    if not elapsed_s > 0:
        v.fail(
            "summarize_throughput",
            "elapsed_s",
            elapsed_s,
            expected="a positive number of seconds",
            how="measure the wall time around the requests with time.perf_counter()",
        )
    return ThroughputSummary(
        requests=requests, elapsed_s=elapsed_s, requests_per_s=requests / elapsed_s
    )


def summarize_drift(latencies_s: tuple[float, ...], window: int) -> DriftSummary:
    """Compare the median of the first and last ``window`` latencies."""
    v.positive_int("summarize_drift", "window", window)
    if len(latencies_s) < window:
        raise ContractError(
            why="drift compares the first and last window of samples",
            what=f"received {len(latencies_s)} samples for window={window}",
            how="take at least `window` samples or shrink the window",
        )
    first = float(np.median(latencies_s[:window]))
    last = float(np.median(latencies_s[-window:]))
    change = (last - first) / first if first > 0 else 0.0
    return DriftSummary(
        window=window, first_median_s=first, last_median_s=last, relative_change=change
    )


class _TelemetryThread(threading.Thread):
    def __init__(self, source: TelemetrySource, interval_s: float) -> None:
        super().__init__(name="pixtreme-infer-telemetry", daemon=True)
        self._source = source
        self._interval_s = interval_s
        self._stop_event = threading.Event()
        self.samples: list[TelemetrySample] = []
        self.error: str | None = None

    def run(self) -> None:
        while True:
            try:
                self.samples.append(self._source.sample())
            except Exception as error:
                self.error = f"{type(error).__name__}: {error}"
                return
            if self._stop_event.wait(self._interval_s):
                return

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def measure_requests(
    request: Callable[[], object],
    *,
    samples: int,
    warmup: int = 1,
    synchronize: Callable[[], None] | None = None,
    drift_window: int | None = None,
    telemetry: TelemetrySource | None = None,
    telemetry_interval_s: float = 0.05,
) -> RequestMeasurement:
    """Time ``samples`` calls of ``request`` after ``warmup`` untimed ones.

    ``synchronize`` (for example a CUDA stream's synchronize) runs after each call inside the
    timed span so asynchronous work is counted. A telemetry source is sampled from a
    background thread during the timed calls; its first error stops it and is reported.
    """
    owner = "measure_requests"
    v.positive_int(owner, "samples", samples)
    v.positive_int(owner, "warmup", warmup, minimum=0)
    window = drift_window if drift_window is not None else max(1, samples // 5)
    v.positive_int(owner, "drift_window", window)
    if window > samples:
        v.fail(
            owner,
            "drift_window",
            window,
            expected=f"at most samples={samples}",
            how="shrink drift_window or take more samples",
        )
    if not telemetry_interval_s > 0:
        v.fail(
            owner,
            "telemetry_interval_s",
            telemetry_interval_s,
            expected="a positive number of seconds",
            how="pass telemetry_interval_s=0.05 or similar",
        )
    for _ in range(warmup):
        request()
        if synchronize is not None:
            synchronize()
    thread = _TelemetryThread(telemetry, telemetry_interval_s) if telemetry else None
    if thread is not None:
        thread.start()
    latencies: list[float] = []
    try:
        started = time.perf_counter()
        for _ in range(samples):
            begin = time.perf_counter()
            request()
            if synchronize is not None:
                synchronize()
            latencies.append(time.perf_counter() - begin)
        elapsed = time.perf_counter() - started
    finally:
        if thread is not None:
            thread.stop()
    timed = tuple(latencies)
    return RequestMeasurement(
        latencies_s=timed,
        latency=summarize_latency(timed),
        throughput=summarize_throughput(samples, max(elapsed, 1e-12)),
        drift=summarize_drift(timed, window),
        telemetry=tuple(thread.samples) if thread is not None else (),
        telemetry_error=thread.error if thread is not None else None,
    )
