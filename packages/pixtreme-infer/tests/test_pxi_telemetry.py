"""NvidiaTelemetrySource: reports a missing NVML clearly; reads a real GPU when there is one."""

from __future__ import annotations

import sys

import pytest
from pixtreme.infer.errors import OptionalDependencyError, TelemetryUnavailableError
from pixtreme.infer.verification._telemetry import NvidiaTelemetrySource

pytestmark = pytest.mark.req("issue6.telemetry")


def _nvml_loads() -> bool:
    import pynvml

    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return False
    pynvml.nvmlShutdown()
    return True


@pytest.mark.extras("pynvml")
def test_missing_nvml_library_is_reported_clearly() -> None:
    if _nvml_loads():
        pytest.skip("NVML loads on this machine: the missing-library path cannot be observed")
    with pytest.raises(TelemetryUnavailableError, match="NVMLError_LibraryNotFound") as info:
        NvidiaTelemetrySource()
    assert "how=run on a machine with an NVIDIA driver" in str(info.value)
    assert isinstance(info.value, RuntimeError)


def test_absent_pynvml_names_the_verify_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)
    with pytest.raises(OptionalDependencyError, match=r"pip install 'pixtreme-infer\[verify\]'"):
        NvidiaTelemetrySource()


@pytest.mark.parametrize("index", [-1, True, "0"])
def test_bad_index_is_rejected(index: object) -> None:
    with pytest.raises(ValueError, match="index must be an int >= 0"):
        NvidiaTelemetrySource(index)  # type: ignore[arg-type]


@pytest.mark.gpu
@pytest.mark.extras("pynvml")
def test_samples_a_real_gpu() -> None:
    source = NvidiaTelemetrySource(0)
    try:
        sample = source.sample()
    finally:
        source.close()
    source.close()
    assert sample.device_uuid.startswith("GPU-")
    assert 0 < sample.temperature_c < 120
    assert sample.sm_clock_mhz > 0
    assert sample.memory_clock_mhz > 0
    assert sample.power_w > 0


@pytest.mark.parametrize(
    ("overrides", "pattern"),
    [
        ({"device_uuid": ""}, "device_uuid must be a non-empty string"),
        ({"temperature_c": float("nan")}, "temperature_c must be a finite number"),
        ({"power_w": "50"}, "power_w must be a finite number"),
        ({"sm_clock_mhz": True}, "sm_clock_mhz must be a finite number"),
    ],
    ids=["uuid", "nan", "str", "bool"],
)
def test_telemetry_sample_rejects(overrides: dict[str, object], pattern: str) -> None:
    from pixtreme.infer.errors import ContractError
    from pixtreme.infer.verification import TelemetrySample

    fields: dict[str, object] = {
        "timestamp_s": 1.0,
        "device_uuid": "GPU-x",
        "temperature_c": 40.0,
        "sm_clock_mhz": 1.0,
        "memory_clock_mhz": 1.0,
        "power_w": 1.0,
    }
    fields.update(overrides)
    with pytest.raises(ContractError, match=pattern):
        TelemetrySample(**fields)  # type: ignore[arg-type]
