"""Request measurement: summaries, call accounting and the telemetry thread (no speed asserts)."""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

import pytest
from pixtreme.infer.errors import ContractError
from pixtreme.infer.verification._measure import (
    measure_requests,
    summarize_drift,
    summarize_latency,
    summarize_throughput,
)
from pixtreme.infer.verification._telemetry import TelemetrySample

pytestmark = pytest.mark.req("issue6.measure")


def test_latency_summary_of_known_values() -> None:
    values = (0.004, 0.001, 0.003, 0.002, 0.010)
    summary = summarize_latency(values)
    assert (summary.min_s, summary.max_s, summary.median_s) == (0.001, 0.010, 0.003)
    assert summary.mean_s == pytest.approx(0.004)
    assert summary.p95_s == pytest.approx(0.0088)
    assert summary.stdev_s == pytest.approx(statistics.stdev(values))
    assert summarize_latency((0.5,)).stdev_s == 0.0


def test_throughput_and_drift() -> None:
    assert summarize_throughput(10, 2.0).requests_per_s == 5.0
    drift = summarize_drift((1.0, 1.0, 3.0, 2.0, 2.0), 2)
    assert (drift.first_median_s, drift.last_median_s, drift.relative_change) == (1.0, 2.0, 1.0)


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: summarize_latency(()), "needs at least one sample"),
        (lambda: summarize_throughput(0, 1.0), "requests must be an int >= 1"),
        (lambda: summarize_throughput(1, 0.0), "elapsed_s must be a positive"),
        (lambda: summarize_drift((1.0,), 2), "received 1 samples for window=2"),
        (lambda: summarize_drift((1.0,), 0), "window must be an int >= 1"),
    ],
    ids=["latency-empty", "requests", "elapsed", "drift-short", "drift-window"],
)
def test_summaries_reject(call: Any, pattern: str) -> None:
    with pytest.raises(ContractError, match=pattern):
        call()


class _CountingSource:
    """A telemetry source backed by a counter, to exercise the sampling thread."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.calls = 0
        self.threads: set[str] = set()
        self.fail_after = fail_after

    def sample(self) -> TelemetrySample:
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        if self.fail_after is not None and self.calls > self.fail_after:
            raise OSError("device gone")
        return TelemetrySample(
            timestamp_s=time.monotonic(),
            device_uuid="GPU-test",
            temperature_c=40.0,
            sm_clock_mhz=1000.0,
            memory_clock_mhz=2000.0,
            power_w=50.0,
        )


def test_measure_counts_calls_and_summarizes_its_own_latencies() -> None:
    calls: list[str] = []
    source = _CountingSource()
    result = measure_requests(
        lambda: calls.append("request"),
        samples=12,
        warmup=3,
        synchronize=lambda: calls.append("sync"),
        drift_window=4,
        telemetry=source,
        telemetry_interval_s=0.001,
    )
    assert calls == ["request", "sync"] * 15
    assert len(result.latencies_s) == 12
    assert result.latency == summarize_latency(result.latencies_s)
    assert result.drift == summarize_drift(result.latencies_s, 4)
    assert result.throughput.requests == 12
    assert len(result.telemetry) == source.calls >= 1
    assert source.threads == {"pixtreme-infer-telemetry"}
    assert result.telemetry_error is None
    after = source.calls
    time.sleep(0.01)
    assert source.calls == after, "the telemetry thread must stop when measuring ends"


def test_telemetry_error_is_reported_not_raised() -> None:
    result = measure_requests(
        lambda: time.sleep(0.002),
        samples=5,
        telemetry=_CountingSource(fail_after=1),
        telemetry_interval_s=0.0005,
    )
    assert result.telemetry_error == "OSError: device gone"
    assert len(result.telemetry) == 1


def test_measure_without_telemetry_and_default_window() -> None:
    result = measure_requests(lambda: None, samples=10, warmup=0)
    assert result.telemetry == ()
    assert result.drift.window == 2


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"samples": 0}, "samples must be an int >= 1"),
        ({"samples": 2, "warmup": -1}, "warmup must be an int >= 0"),
        ({"samples": 2, "drift_window": 3}, "drift_window must be at most samples=2"),
        ({"samples": 2, "telemetry_interval_s": 0}, "telemetry_interval_s must be a positive"),
    ],
    ids=["samples", "warmup", "window", "interval"],
)
def test_measure_rejects(options: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ContractError, match=pattern):
        measure_requests(lambda: None, **options)


def test_request_errors_propagate_and_stop_telemetry() -> None:
    source = _CountingSource()

    def failing() -> None:
        raise RuntimeError("inference failed")

    with pytest.raises(RuntimeError, match="inference failed"):
        measure_requests(failing, samples=3, warmup=0, telemetry=source)
    assert "pixtreme-infer-telemetry" not in {t.name for t in threading.enumerate()}
