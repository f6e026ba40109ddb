"""Every WGSL kernel compiles on the adapter and has its Python dispatcher beside it."""

from __future__ import annotations

from importlib import resources

import pytest
from pillow_gpu.gpu._device import SharedDevice

KERNELS = sorted(
    entry.name.removesuffix(".wgsl")
    for entry in resources.files("pillow_gpu.gpu.kernels").iterdir()
    if entry.name.endswith(".wgsl")
)


def test_kernel_inventory() -> None:
    assert KERNELS, "no .wgsl kernels found beside pillow_gpu.gpu.kernels"
    python = {
        entry.name.removesuffix(".py")
        for entry in resources.files("pillow_gpu.gpu.kernels").iterdir()
        if entry.name.endswith(".py")
    }
    assert set(KERNELS) <= python


@pytest.mark.parametrize("name", KERNELS)
def test_shader_compiles_into_a_pipeline(device: SharedDevice, name: str) -> None:
    pipeline = device.pipeline(name)
    assert pipeline is device.pipeline(name)  # cached per process
    assert pipeline.get_bind_group_layout(0) is not None
