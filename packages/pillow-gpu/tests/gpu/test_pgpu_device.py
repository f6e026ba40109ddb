"""The shared device: requested with the adapter's own buffer limits, so an 8192 x 8192 image
binds wherever the adapter allows it; WebGPU's defaults where a driver refuses those."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
import wgpu  # type: ignore[import-untyped]
from pillow_gpu.gpu import _device
from pillow_gpu.gpu._device import SharedDevice


def test_the_device_has_the_adapters_buffer_limits(device: SharedDevice) -> None:
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    binding = int(adapter.limits["max-storage-buffer-binding-size"])
    assert device.limits.max_storage_buffer_binding_size == binding
    assert device.limits.max_buffer_size == int(adapter.limits["max-buffer-size"])


class _Device:
    def __init__(self, limits: dict[str, int]) -> None:
        self.limits = limits


class _Adapter:
    """An adapter whose device request with required limits fails, or grants less, as a
    driver's (or a binding's) may."""

    limits: ClassVar[dict[str, int]] = {
        "max-storage-buffer-binding-size": 1 << 31,
        "max-buffer-size": 1 << 40,
    }
    defaults: ClassVar[dict[str, int]] = {
        "max-storage-buffer-binding-size": 1 << 27,
        "max-buffer-size": 1 << 28,
    }

    def __init__(self, outcome: str) -> None:
        self.outcome = outcome
        self.asked: list[dict[str, Any]] = []

    def request_device_sync(self, **options: Any) -> _Device:
        self.asked.append(options)
        if "required_limits" not in options:
            return _Device(self.defaults)
        if self.outcome == "refused":
            msg = "Limit 'max_buffer_size' value 1099511627776 is better than allowed"
            raise RuntimeError(msg)
        if self.outcome == "truncated":
            return _Device({**self.limits, "max-storage-buffer-binding-size": 0})
        return _Device(dict(self.limits))


@pytest.mark.parametrize(
    ("outcome", "granted"),
    [
        ("granted", _Adapter.limits),
        ("refused", _Adapter.defaults),
        ("truncated", _Adapter.defaults),
    ],
)
def test_a_limit_request_refused_or_cut_falls_back_to_the_defaults(
    outcome: str, granted: dict[str, int]
) -> None:
    adapter = _Adapter(outcome)
    assert _device._request_device(adapter).limits == granted
    assert adapter.asked[0]["required_limits"] == _Adapter.limits
    assert len(adapter.asked) == (1 if outcome == "granted" else 2)
