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


class _Adapter:
    """An adapter whose device request with required limits fails as a driver's may."""

    limits: ClassVar[dict[str, int]] = {
        "max-storage-buffer-binding-size": 1 << 31,
        "max-buffer-size": 1 << 40,
    }

    def __init__(self, refuse: bool) -> None:
        self.refuse = refuse
        self.asked: list[dict[str, Any]] = []

    def request_device_sync(self, **options: Any) -> str:
        self.asked.append(options)
        if self.refuse and "required_limits" in options:
            msg = "Limit 'max_buffer_size' value 1099511627776 is better than allowed"
            raise RuntimeError(msg)
        return "device"


@pytest.mark.parametrize("refuse", [False, True], ids=["granted", "refused"])
def test_a_refused_limit_request_falls_back_to_the_defaults(refuse: bool) -> None:
    adapter = _Adapter(refuse)
    assert _device._request_device(adapter) == "device"
    assert adapter.asked[0]["required_limits"] == _Adapter.limits
    assert len(adapter.asked) == (2 if refuse else 1)
    if refuse:
        assert "required_limits" not in adapter.asked[1]
