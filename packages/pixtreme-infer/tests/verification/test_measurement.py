"""Request measurement, telemetry and NVML, with fake timers and sources (no speed asserts).

Also holds the two properties that keep measurement out of verification: status-deciding
modules never import it, and importing the verification package loads no NVML.
"""

from __future__ import annotations

import ast
import os
import statistics
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pixtreme.infer.errors import OptionalDependencyError
from pixtreme.infer.verification.contracts import (
    VerificationExecutionError,
    VerificationInputError,
)
from pixtreme.infer.verification.measurement import (
    DriftSummary,
    LatencySummary,
    NvidiaTelemetrySource,
    TelemetrySample,
    TelemetryTrace,
    TimedRequest,
    calculate_throughput,
    evaluate_drift,
    measure_requests,
    summarize_latency,
)

pytestmark = pytest.mark.req("spec.verification.measure")


class StepTimer:
    """A RequestTimer whose n-th request takes ``durations[n % len]`` milliseconds."""

    def __init__(self, *durations: float, calls_per_request: int = 1) -> None:
        self.durations = durations or (1.0,)
        self.count = 0
        self.calls_per_request = calls_per_request

    def measure(self, request: Callable[[], Any]) -> TimedRequest[Any]:
        value = None
        for _ in range(self.calls_per_request):
            value = request()
        elapsed = self.durations[self.count % len(self.durations)]
        self.count += 1
        return TimedRequest(value, elapsed)


class FakeSource:
    """A telemetry source that counts samples and can fail on the n-th one."""

    name = "fake"
    device = "GPU-fake"

    def __init__(self, fail_on: int | None = None) -> None:
        self.samples = 0
        self.threads: list[str] = []
        self.fail_on = fail_on

    def sample(self) -> Mapping[str, int | float | str | None]:
        self.samples += 1
        self.threads.append(threading.current_thread().name)
        if self.fail_on is not None and self.samples == self.fail_on:
            raise OSError("device gone")
        return {"temperature_c": 40 + self.samples, "power_w": 55.5}


def test_latency_summary_of_known_values() -> None:
    values = [4.0, 1.0, 3.0, 2.0, 10.0]
    summary = summarize_latency(values)
    assert summary == LatencySummary(
        count=5,
        minimum_ms=1.0,
        mean_ms=pytest.approx(4.0),  # type: ignore[arg-type]
        median_ms=3.0,
        p95_ms=pytest.approx(float(np.percentile(values, 95))),  # type: ignore[arg-type]
        maximum_ms=10.0,
        population_stdev_ms=pytest.approx(statistics.pstdev(values)),  # type: ignore[arg-type]
    )
    assert summarize_latency([2.0, 4.0]).median_ms == 3.0
    assert summarize_latency([5.0]).population_stdev_ms == 0.0


def test_huge_latencies_do_not_overflow_the_mean() -> None:
    assert summarize_latency([1e308, 1e308]).mean_ms == 1e308


def test_throughput_and_drift() -> None:
    assert calculate_throughput([2.0, 2.0]) == 500.0
    drift = evaluate_drift([1.0, 1.0, 9.0, 2.0, 2.0], window_size=2)
    assert drift == DriftSummary(2, 1.0, 2.0, 100.0)


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: summarize_latency([]), "nonempty"),
        (lambda: summarize_latency([1.0, 0.0]), "latency must be a positive finite"),
        (lambda: summarize_latency([float("nan")]), "positive finite"),
        (lambda: summarize_latency([True]), "positive finite"),
        (lambda: calculate_throughput([-1.0]), "positive finite"),
        (lambda: evaluate_drift([1.0, 2.0, 3.0], window_size=2), "two nonoverlapping windows"),
        (lambda: evaluate_drift([1.0, 2.0], window_size=0), "window_size must be a positive"),
    ],
    ids=["empty", "zero", "nan", "bool", "negative", "short-for-drift", "zero-window"],
)
def test_summaries_reject_bad_samples(call: Callable[[], object], pattern: str) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        call()


def test_measure_times_every_sample_after_the_warmup() -> None:
    calls: list[int] = []
    timer = StepTimer(3.0, 1.0, 2.0, 4.0)
    run = measure_requests(
        lambda: calls.append(len(calls)) or len(calls),
        timer=timer,
        warmup=2,
        samples=4,
        drift_window=2,
    )
    assert len(calls) == 6
    assert run.latencies_ms == (2.0, 4.0, 3.0, 1.0)  # the timer's 3rd to 6th durations
    assert run.last_value == 6
    assert run.latency == summarize_latency(run.latencies_ms)
    assert run.throughput_per_second == calculate_throughput(run.latencies_ms)
    assert run.drift == evaluate_drift(run.latencies_ms, window_size=2)
    assert run.telemetry is None


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"samples": 0}, "samples must be a positive integer"),
        ({"warmup": -1}, "warmup must be a nonnegative integer"),
        ({"warmup": True}, "warmup must be a nonnegative integer"),
        ({"drift_window": 3}, "two drift windows"),
        ({"telemetry_interval_seconds": 0.0}, "telemetry_interval_seconds"),
        ({"telemetry_interval_seconds": float("inf")}, "telemetry_interval_seconds"),
    ],
    ids=["samples", "warmup", "warmup-bool", "window", "interval-zero", "interval-inf"],
)
def test_measure_rejects_bad_options_before_any_request(
    options: dict[str, Any], pattern: str
) -> None:
    calls: list[None] = []
    fields: dict[str, Any] = {"timer": StepTimer(), "warmup": 0, "samples": 4, **options}
    with pytest.raises(VerificationInputError, match=pattern):
        measure_requests(lambda: calls.append(None), **fields)
    assert calls == []


@pytest.mark.parametrize(
    ("timer", "pattern"),
    [
        (StepTimer(calls_per_request=2), "call each request once; it called 2"),
        (StepTimer(calls_per_request=0), "it called 0"),
        (types.SimpleNamespace(measure=lambda request: (request(), 1.0)), "return TimedRequest"),
    ],
    ids=["twice", "never", "wrong-result"],
)
def test_a_timer_must_time_each_request_exactly_once(timer: Any, pattern: str) -> None:
    with pytest.raises(VerificationInputError, match=pattern):
        measure_requests(lambda: None, timer=timer, warmup=0, samples=1)


@pytest.mark.parametrize(
    "elapsed", [0.0, -1.0, float("nan"), "1"], ids=["zero", "negative", "nan", "text"]
)
def test_timed_requests_need_a_positive_finite_duration(elapsed: object) -> None:
    with pytest.raises(VerificationInputError, match="elapsed_ms"):
        TimedRequest(None, elapsed)  # type: ignore[arg-type]


def test_telemetry_is_sampled_before_during_and_after() -> None:
    source = FakeSource()

    def slow() -> None:
        time.sleep(0.004)

    run = measure_requests(
        slow,
        timer=StepTimer(),
        warmup=0,
        samples=5,
        telemetry=source,
        telemetry_interval_seconds=0.002,
    )
    trace = run.telemetry
    assert isinstance(trace, TelemetryTrace)
    assert trace.interval_seconds == 0.002
    assert trace.before.offset_seconds == 0.0
    assert trace.before.values["temperature_c"] == 41
    assert trace.after.values["temperature_c"] == source.samples + 40
    assert len(trace.periodic) == source.samples - 2 >= 1
    offsets = [sample.offset_seconds for sample in (*trace.periodic, trace.after)]
    assert offsets == sorted(offsets)
    assert {sample.source for sample in trace.periodic} == {"fake"}
    assert {sample.device for sample in trace.periodic} == {"GPU-fake"}
    assert set(source.threads[1:-1]) == {"verification-telemetry"}
    after = source.samples
    time.sleep(0.01)
    assert source.samples == after, "sampling must stop with the measurement"


@pytest.mark.parametrize(
    ("fail_on", "phase"),
    [(1, "before sample"), (2, "periodic sample")],
    ids=["before", "periodic"],
)
def test_a_telemetry_failure_stops_the_measurement(fail_on: int, phase: str) -> None:
    def slow() -> None:
        time.sleep(0.003)

    with pytest.raises(VerificationExecutionError, match=phase) as caught:
        measure_requests(
            slow,
            timer=StepTimer(),
            warmup=0,
            samples=50,
            telemetry=FakeSource(fail_on=fail_on),
            telemetry_interval_seconds=0.001,
        )
    assert isinstance(caught.value.__cause__, OSError)


def test_a_failed_after_sample_is_reported() -> None:
    with pytest.raises(VerificationExecutionError, match="after sample"):
        measure_requests(
            lambda: None,
            timer=StepTimer(),
            warmup=0,
            samples=2,
            telemetry=FakeSource(fail_on=2),
            telemetry_interval_seconds=60.0,
        )


def test_a_request_error_propagates_and_stops_sampling() -> None:
    error = RuntimeError("inference failed")

    def failing() -> None:
        raise error

    with pytest.raises(RuntimeError) as caught:
        measure_requests(failing, timer=StepTimer(), warmup=0, samples=3, telemetry=FakeSource())
    assert caught.value is error
    assert "verification-telemetry" not in {thread.name for thread in threading.enumerate()}


def test_request_and_telemetry_failures_are_grouped() -> None:
    def failing() -> None:
        raise RuntimeError("inference failed")

    with pytest.raises(BaseExceptionGroup) as caught:
        measure_requests(
            failing,
            timer=StepTimer(),
            warmup=0,
            samples=3,
            telemetry=FakeSource(fail_on=2),
            telemetry_interval_seconds=60.0,
        )
    kinds = [type(item) for item in caught.value.exceptions]
    assert kinds == [RuntimeError, VerificationExecutionError]


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"timestamp_utc": datetime(2026, 1, 1)}, "timezone-aware UTC"),
        (
            {"timestamp_utc": datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=9)))},
            "timezone-aware UTC",
        ),
        ({"offset_seconds": -0.5}, "offset_seconds"),
        ({"offset_seconds": float("nan")}, "offset_seconds"),
    ],
    ids=["naive", "not-utc", "negative-offset", "nan-offset"],
)
def test_telemetry_samples_validate_their_time(fields: dict[str, Any], pattern: str) -> None:
    base: dict[str, Any] = {
        "timestamp_utc": datetime.now(UTC),
        "offset_seconds": 0.0,
        "source": "s",
        "device": "d",
        "values": {},
    }
    with pytest.raises(VerificationInputError, match=pattern):
        TelemetrySample(**{**base, **fields})


def test_telemetry_sample_values_are_a_read_only_copy() -> None:
    values = {"power_w": 50.0}
    sample = TelemetrySample(datetime.now(UTC), 1, "s", "d", values)
    values["power_w"] = 0.0
    assert sample.values["power_w"] == 50.0
    assert sample.offset_seconds == 1.0
    with pytest.raises(TypeError):
        sample.values["power_w"] = 1.0  # type: ignore[index]


def _fake_nvml() -> types.SimpleNamespace:
    """A stand-in pynvml module; set ``.broken`` to the call that should fail."""
    nvml = types.SimpleNamespace(calls=[], broken=None)

    def call(name: str, result: object) -> Callable[..., object]:
        def function(*_: object) -> object:
            nvml.calls.append(name)
            if name == nvml.broken:
                raise RuntimeError(f"{name} failed")
            return result

        return function

    nvml.NVML_TEMPERATURE_GPU, nvml.NVML_CLOCK_SM, nvml.NVML_CLOCK_MEM = 0, 1, 2
    nvml.nvmlInit = call("init", None)
    nvml.nvmlShutdown = call("shutdown", None)
    nvml.nvmlDeviceGetHandleByIndex = call("handle", "h")
    nvml.nvmlDeviceGetUUID = call("uuid", b"GPU-1234")
    nvml.nvmlDeviceGetTemperature = call("temperature", 45)
    nvml.nvmlDeviceGetClockInfo = call("clock", 1500)
    nvml.nvmlDeviceGetPowerUsage = call("power", 61000)
    return nvml


@pytest.mark.req("spec.verification.telemetry")
def test_nvidia_source_reads_every_field_inside_init_and_shutdown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nvml = _fake_nvml()
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    source = NvidiaTelemetrySource(0)
    assert (source.name, source.device) == ("nvidia-nvml", "GPU-1234")
    assert source.sample() == {
        "temperature_c": 45,
        "sm_clock_mhz": 1500,
        "memory_clock_mhz": 1500,
        "power_w": 61.0,
    }
    assert nvml.calls.count("init") == nvml.calls.count("shutdown") == 2
    assert nvml.calls[-1] == "shutdown"


@pytest.mark.req("spec.verification.telemetry")
@pytest.mark.parametrize("broken", ["init", "handle", "uuid"])
def test_nvml_failures_while_opening_raise_execution_errors(
    monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    nvml = _fake_nvml()
    nvml.broken = broken
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    with pytest.raises(VerificationExecutionError, match=f"{broken} failed"):
        NvidiaTelemetrySource(0)
    assert nvml.calls.count("shutdown") == (0 if broken == "init" else 1)


@pytest.mark.req("spec.verification.telemetry")
@pytest.mark.parametrize("broken", ["temperature", "clock", "power"])
def test_nvml_failures_while_sampling_raise_execution_errors(
    monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    nvml = _fake_nvml()
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    source = NvidiaTelemetrySource(0)
    nvml.broken = broken
    with pytest.raises(VerificationExecutionError, match=f"{broken} failed"):
        source.sample()
    assert nvml.calls[-1] == "shutdown"


@pytest.mark.req("spec.verification.telemetry")
def test_absent_pynvml_names_the_verify_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)
    with pytest.raises(OptionalDependencyError, match=r"pixtreme-infer\[verify\]") as caught:
        NvidiaTelemetrySource(0)
    assert isinstance(caught.value, ImportError)


@pytest.mark.parametrize("index", [-1, True, "0", 1.0], ids=["negative", "bool", "text", "float"])
def test_the_device_index_is_a_nonnegative_integer(index: object) -> None:
    with pytest.raises(VerificationInputError, match="physical_device_index"):
        NvidiaTelemetrySource(index)  # type: ignore[arg-type]


@pytest.mark.gpu
@pytest.mark.extras("pynvml")
@pytest.mark.req("spec.verification.telemetry")
def test_nvidia_source_samples_a_real_gpu() -> None:
    source = NvidiaTelemetrySource(0)
    values = source.sample()
    assert source.device.startswith("GPU-")
    assert 0 < float(values["temperature_c"]) < 120  # type: ignore[arg-type]
    assert float(values["sm_clock_mhz"]) > 0  # type: ignore[arg-type]
    assert float(values["power_w"]) > 0  # type: ignore[arg-type]


_SOURCE = Path(__file__).resolve().parents[2] / "src"
_VERIFICATION = "pixtreme.infer.verification"
# Modules that decide statuses, read evidence or write records; none may reach measurement.
_DECIDING = (
    "_architecture",
    "_archives",
    "_engine",
    "_factory",
    "_frame_boundary",
    "_graph_replay",
    "_json",
    "_results",
    "_scan",
    "_suites",
    "_temporal",
    "comparison",
    "contracts",
    "distribution",
    "records",
)


def _module_file(name: str) -> Path | None:
    base = _SOURCE.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(name: str) -> set[str]:
    """pixtreme.infer modules that ``name`` imports anywhere, function bodies included."""
    file = _module_file(name)
    assert file is not None, name
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                is_package = file.name == "__init__.py"
                package = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {item for item in found if item.startswith("pixtreme.infer") and _module_file(item)}


def _closure(name: str) -> set[str]:
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current not in seen:
            seen.add(current)
            pending.extend(_imports(current) - seen)
    return seen


@pytest.mark.req("spec.verification.performance-not-status")
@pytest.mark.parametrize("module", _DECIDING)
def test_status_deciding_code_never_imports_measurement(module: str) -> None:
    reached = _closure(f"{_VERIFICATION}.{module}")
    assert f"{_VERIFICATION}.measurement" not in reached


def test_the_import_walk_does_see_measurement_where_it_is() -> None:
    assert f"{_VERIFICATION}.measurement" in _closure(_VERIFICATION)


@pytest.mark.req("spec.development.suite-without-gpu")
def test_importing_verification_loads_no_nvml_or_onnxruntime() -> None:
    blocked = ("pynvml", "onnxruntime", "onnx", "tensorrt")
    code = (
        "import sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None\n"
        "import pixtreme.infer.verification as v\n"
        "from pixtreme.infer.verification import measurement\n"
        f"loaded = [n for n in {blocked!r} if sys.modules.get(n) is not None]\n"
        "assert not loaded, loaded\n"
        "print(len(v.__all__))\n"
    )
    environment = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 60


_MINE = (
    "test_architecture.py",
    "test_archives.py",
    "test_comparison.py",
    "test_distribution.py",
    "test_engine.py",
    "test_factory.py",
    "test_frame_boundary.py",
    "test_graph_replay.py",
    "test_measurement.py",
    "test_records.py",
    "test_results.py",
    "test_scan.py",
    "test_suites.py",
    "test_temporal.py",
)
_BLOCKER = (
    "import sys\nfor _name in ('pynvml', 'onnxruntime', 'onnx'):\n    sys.modules[_name] = None\n"
)
_GPU_REASON = "needs a CUDA GPU: CUDA_VISIBLE_DEVICES is empty"


@pytest.mark.req("spec.development.suite-without-gpu")
@pytest.mark.req("spec.development.optional-dependencies-skip")
def test_these_tests_pass_without_a_gpu_or_nvml_and_skip_with_reasons(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[4]
    if not (root / "conftest.py").is_file():
        pytest.skip(f"needs the workspace root conftest.py (markers) at {root}")
    (tmp_path / "pxi_block_nvml.py").write_text(_BLOCKER, encoding="utf-8")
    here = Path(__file__).resolve().parent
    this_file = Path(__file__).resolve().relative_to(root).as_posix()
    this = f"{this_file}::test_these_tests_pass_without_a_gpu_or_nvml_and_skip_with_reasons"
    environment = {
        **os.environ,
        "CUDA_VISIBLE_DEVICES": "",
        "PYTHONPATH": os.pathsep.join(filter(None, (str(tmp_path), os.environ.get("PYTHONPATH")))),
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *(str(here / name) for name in _MINE),
            "-m",
            "gpu or not gpu",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "-p",
            "pxi_block_nvml",
            "--deselect",
            this,
        ],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    reasons = [
        line.split(": ", 1)[-1] for line in result.stdout.splitlines() if line.startswith("SKIPPED")
    ]
    assert reasons, "the GPU tests were selected, so some must skip here"
    for reason in reasons:
        assert reason == _GPU_REASON or "pip install 'pixtreme-infer[verify]'" in reason, reason
