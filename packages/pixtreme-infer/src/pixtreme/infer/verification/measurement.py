"""Request timing and device telemetry, independent of any architecture.

measure_requests times complete requests through a caller-supplied RequestTimer (the module
knows how to wait for its device work) and owns an optional telemetry sampling thread: one
sample before, periodic samples on a fixed grid, one after. Measurements describe speed only;
no verification status depends on them.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any, Protocol

from pixtreme.infer.dependencies import require_optional
from pixtreme.infer.verification._results import (
    VerificationExecutionError,
    VerificationInputError,
)

_TelemetryValue = int | float | str | None


def _number(value: object, name: str, *, allow_zero: bool) -> float:
    """A finite real (bool excluded) that is positive, or non-negative with ``allow_zero``."""
    wanted = "a nonnegative finite number" if allow_zero else "a positive finite number"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise VerificationInputError(f"{name} must be {wanted}; received {value!r}")
    try:
        number = float(value)
    except OverflowError as error:
        raise VerificationInputError(f"{name} must be {wanted}; received a huge int") from error
    if not math.isfinite(number) or number < 0 or (number == 0 and not allow_zero):
        raise VerificationInputError(f"{name} must be {wanted}; received {value!r}")
    return number


def _count(value: object, name: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        kind = "a positive integer" if minimum else "a nonnegative integer"
        raise VerificationInputError(f"{name} must be {kind}; received {value!r}")
    return value


def _samples(samples_ms: Sequence[float]) -> tuple[float, ...]:
    if not samples_ms:
        raise VerificationInputError("latency samples must be nonempty")
    return tuple(_number(value, "latency", allow_zero=False) for value in samples_ms)


def _mean(values: Sequence[float]) -> float:
    # Scaled by the largest value so that huge samples cannot overflow the sum.
    scale = max(values)
    return scale * (math.fsum(value / scale for value in values) / len(values))


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    half = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[half]
    low, high = ordered[half - 1], ordered[half]
    return low + (high - low) / 2.0


@dataclass(frozen=True)
class TimedRequest[T]:
    """The value one request returned and its positive elapsed time in milliseconds."""

    value: T
    elapsed_ms: float

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "elapsed_ms", _number(self.elapsed_ms, "elapsed_ms", allow_zero=False)
        )


@dataclass(frozen=True)
class LatencySummary:
    """Latency statistics in milliseconds; p95 is linearly interpolated, stdev is population."""

    count: int
    minimum_ms: float
    mean_ms: float
    median_ms: float
    p95_ms: float
    maximum_ms: float
    population_stdev_ms: float


@dataclass(frozen=True)
class DriftSummary:
    """Medians of the first and last disjoint windows and their absolute relative change (%)."""

    window_size: int
    first_median_ms: float
    last_median_ms: float
    absolute_percent: float


@dataclass(frozen=True)
class TelemetrySample:
    """One telemetry reading: when (UTC, and seconds since the first sample), from what, values."""

    timestamp_utc: datetime
    offset_seconds: float
    source: str
    device: str
    values: Mapping[str, _TelemetryValue]

    def __post_init__(self) -> None:
        stamp = self.timestamp_utc
        if not isinstance(stamp, datetime) or stamp.utcoffset() != timedelta(0):
            raise VerificationInputError("timestamp_utc must be timezone-aware UTC")
        offset = _number(self.offset_seconds, "offset_seconds", allow_zero=True)
        object.__setattr__(self, "offset_seconds", offset)
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))


@dataclass(frozen=True)
class TelemetryTrace:
    """The telemetry of one measurement: before, periodic samples, after."""

    interval_seconds: float
    before: TelemetrySample
    periodic: tuple[TelemetrySample, ...]
    after: TelemetrySample

    def __post_init__(self) -> None:
        interval = _number(self.interval_seconds, "interval_seconds", allow_zero=False)
        object.__setattr__(self, "interval_seconds", interval)


@dataclass(frozen=True)
class MeasurementRun[T]:
    """Everything measure_requests observed."""

    last_value: T
    latencies_ms: tuple[float, ...]
    latency: LatencySummary
    throughput_per_second: float
    drift: DriftSummary | None
    telemetry: TelemetryTrace | None


class RequestTimer(Protocol):
    """Times one complete request: call it exactly once and return its value and duration."""

    def measure[T](self, request: Callable[[], T]) -> TimedRequest[T]:
        """Run ``request`` once and return what it returned with the elapsed milliseconds."""
        ...


class TelemetrySource(Protocol):
    """A device reading sampled from a background thread; ``name`` and ``device`` label it."""

    name: str
    device: str

    def sample(self) -> Mapping[str, _TelemetryValue]:
        """Read the device now."""
        ...


def summarize_latency(samples_ms: Sequence[float], /) -> LatencySummary:
    """Summarize positive latency samples (milliseconds) with a linear 95th percentile."""
    ordered = sorted(_samples(samples_ms))
    rank = (len(ordered) - 1) * 0.95
    low, high = math.floor(rank), math.ceil(rank)
    p95 = ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
    return LatencySummary(
        count=len(ordered),
        minimum_ms=ordered[0],
        mean_ms=_mean(ordered),
        median_ms=_median(ordered),
        p95_ms=p95,
        maximum_ms=ordered[-1],
        population_stdev_ms=statistics.pstdev(ordered),
    )


def calculate_throughput(samples_ms: Sequence[float], /) -> float:
    """Completed requests per second of measured latency (1000 / mean latency in ms)."""
    return 1000.0 / _mean(_samples(samples_ms))


def evaluate_drift(samples_ms: Sequence[float], /, *, window_size: int) -> DriftSummary:
    """Compare the medians of the first and last disjoint windows; no threshold is applied."""
    size = _count(window_size, "window_size", minimum=1)
    values = _samples(samples_ms)
    if len(values) < 2 * size:
        raise VerificationInputError(
            f"drift needs two nonoverlapping windows of {size}; received {len(values)} samples"
        )
    first, last = _median(values[:size]), _median(values[-size:])
    return DriftSummary(size, first, last, abs(last - first) / first * 100.0)


def _timed[T](request: Callable[[], T], timer: RequestTimer) -> TimedRequest[T]:
    """One request through ``timer``, checking that the timer called it exactly once."""
    calls = 0

    def once() -> T:
        nonlocal calls
        calls += 1
        return request()

    result = timer.measure(once)
    if calls != 1:
        raise VerificationInputError(f"timer must call each request once; it called {calls}")
    if not isinstance(result, TimedRequest):
        raise VerificationInputError(
            f"timer must return TimedRequest; it returned {type(result).__name__}"
        )
    _number(result.elapsed_ms, "elapsed_ms", allow_zero=False)
    return result


def _read(source: TelemetrySource, origin: float | None) -> tuple[TelemetrySample, float]:
    values = source.sample()
    done = time.monotonic()
    sample = TelemetrySample(
        timestamp_utc=datetime.now(UTC),
        offset_seconds=0.0 if origin is None else max(0.0, done - origin),
        source=source.name,
        device=source.device,
        values=values,
    )
    return sample, done


def _telemetry_failure(phase: str, error: BaseException) -> VerificationExecutionError:
    failure = VerificationExecutionError(
        why="the telemetry source must answer every sample of a measurement",
        what=f"telemetry {phase} failed: {type(error).__name__}: {error}",
        how="check the device and its driver, or measure without telemetry (telemetry=None)",
    )
    failure.__cause__ = error
    return failure


class _Sampler:
    """The telemetry thread of one measurement, sampling on a grid anchored at ``origin``.

    The lock serializes a sample against the measurement's stop flag, so no periodic sample
    lands after the request loop has ended.
    """

    def __init__(self, source: TelemetrySource, origin: float, interval: float) -> None:
        self.samples: list[TelemetrySample] = []
        self.failures: list[VerificationExecutionError] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self._source, self._origin, self._interval = source, origin, interval
        self._thread: threading.Thread | None = None

    def _loop(self) -> None:
        due = self._origin + self._interval
        while not self.stop.wait(max(0.0, due - time.monotonic())):
            with self.lock:
                if self.stop.is_set():
                    return
                try:
                    self.samples.append(_read(self._source, self._origin)[0])
                except BaseException as error:
                    self.failures.append(_telemetry_failure("periodic sample", error))
                    self.stop.set()
                    return
            now = time.monotonic()
            due = now + self._interval - math.fmod(max(0.0, now - self._origin), self._interval)
            if due <= now:
                due = math.nextafter(now, math.inf)

    def start(self) -> None:
        thread = threading.Thread(target=self._loop, name="verification-telemetry")
        try:
            thread.start()
        except BaseException as error:
            self.failures.append(_telemetry_failure("sampling start", error))
            self.stop.set()
            return
        self._thread = thread

    def finish(self) -> None:
        with self.lock:
            self.stop.set()
        if self._thread is not None:
            try:
                self._thread.join()
            except BaseException as error:
                self.failures.append(_telemetry_failure("cleanup", error))


def measure_requests[T](
    request: Callable[[], T],
    *,
    timer: RequestTimer,
    warmup: int,
    samples: int,
    drift_window: int | None = None,
    telemetry: TelemetrySource | None = None,
    telemetry_interval_seconds: float = 1.0,
) -> MeasurementRun[T]:
    """Time ``samples`` complete requests after ``warmup`` untimed ones.

    With ``telemetry`` the source is sampled before the first timed request, every
    ``telemetry_interval_seconds`` while requests run, and after the last one. A request's
    exception propagates (grouped with telemetry failures in a BaseExceptionGroup when both
    occur); a telemetry failure stops the measurement with VerificationExecutionError.
    """
    warmups = _count(warmup, "warmup", minimum=0)
    count = _count(samples, "samples", minimum=1)
    window = None if drift_window is None else _count(drift_window, "drift_window", minimum=1)
    interval = _number(telemetry_interval_seconds, "telemetry_interval_seconds", allow_zero=False)
    if window is not None and count < 2 * window:
        raise VerificationInputError(
            f"samples must hold two drift windows: samples={count}, drift_window={window}"
        )
    for _ in range(warmups):
        _timed(request, timer)

    before: TelemetrySample | None = None
    sampler: _Sampler | None = None
    origin = 0.0
    if telemetry is not None:
        try:
            before, origin = _read(telemetry, None)
        except BaseException as error:
            raise _telemetry_failure("before sample", error) from error
        sampler = _Sampler(telemetry, origin, interval)
        sampler.start()

    latencies: list[float] = []
    last: list[T] = []
    request_error: BaseException | None = None
    after: TelemetrySample | None = None
    try:
        for _ in range(count):
            if sampler is not None:
                with sampler.lock:
                    if sampler.stop.is_set():
                        break
            timed = _timed(request, timer)
            latencies.append(timed.elapsed_ms)
            last[:] = [timed.value]
    except BaseException as error:
        request_error = error
    finally:
        if sampler is not None and telemetry is not None:
            sampler.finish()
            try:
                after = _read(telemetry, origin)[0]
            except BaseException as error:
                sampler.failures.append(_telemetry_failure("after sample", error))

    failures = [] if sampler is None else sampler.failures
    if request_error is not None:
        if failures:
            raise BaseExceptionGroup(
                "the measured request and its telemetry both failed", [request_error, *failures]
            )
        raise request_error
    if failures:
        raise failures[0]
    if len(latencies) != count:
        raise VerificationExecutionError("measurement stopped before collecting all requests")

    values = tuple(latencies)
    trace = None
    if sampler is not None and before is not None and after is not None:
        trace = TelemetryTrace(interval, before, tuple(sampler.samples), after)
    return MeasurementRun(
        last_value=last[0],
        latencies_ms=values,
        latency=summarize_latency(values),
        throughput_per_second=calculate_throughput(values),
        drift=None if window is None else evaluate_drift(values, window_size=window),
        telemetry=trace,
    )


class NvidiaTelemetrySource:
    """Reads one physical NVIDIA device through NVML (the ``verify`` extra, module pynvml).

    NVML is initialised for each read and shut down after it, so the source holds nothing
    open between samples.
    """

    name = "nvidia-nvml"

    def __init__(self, physical_device_index: int, /) -> None:
        self._index = _count(physical_device_index, "physical_device_index", minimum=0)
        self._nvml: Any = require_optional("pynvml", extra="verify")
        try:
            uuid = self._with_device(lambda nvml, handle: nvml.nvmlDeviceGetUUID(handle))
        except Exception as error:
            raise VerificationExecutionError(
                why="NVIDIA telemetry identifies its device through NVML",
                what=f"reading device {self._index} failed: {type(error).__name__}: {error}",
                how="run on a machine with an NVIDIA driver (check nvidia-smi -L) and pass the "
                "index of an installed GPU, or measure without telemetry",
            ) from error
        self.device = uuid.decode() if isinstance(uuid, bytes) else str(uuid)

    def _with_device(self, read: Callable[[Any, Any], Any]) -> Any:
        nvml = self._nvml
        nvml.nvmlInit()
        try:
            return read(nvml, nvml.nvmlDeviceGetHandleByIndex(self._index))
        finally:
            nvml.nvmlShutdown()

    def sample(self) -> Mapping[str, _TelemetryValue]:
        """Read temperature (C), SM and memory clocks (MHz) and power (W)."""

        def read(nvml: Any, handle: Any) -> dict[str, _TelemetryValue]:
            return {
                "temperature_c": nvml.nvmlDeviceGetTemperature(handle, nvml.NVML_TEMPERATURE_GPU),
                "sm_clock_mhz": nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM),
                "memory_clock_mhz": nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_MEM),
                "power_w": nvml.nvmlDeviceGetPowerUsage(handle) / 1000.0,
            }

        try:
            values: Mapping[str, _TelemetryValue] = self._with_device(read)
        except Exception as error:
            raise VerificationExecutionError(
                why="each telemetry sample reads every NVML field",
                what=f"device {self.device}: {type(error).__name__}: {error}",
                how="check the device and driver (nvidia-smi), or measure without telemetry",
            ) from error
        return values


__all__ = [
    "DriftSummary",
    "LatencySummary",
    "MeasurementRun",
    "NvidiaTelemetrySource",
    "RequestTimer",
    "TelemetrySample",
    "TelemetrySource",
    "TelemetryTrace",
    "TimedRequest",
    "calculate_throughput",
    "evaluate_drift",
    "measure_requests",
    "summarize_latency",
]
