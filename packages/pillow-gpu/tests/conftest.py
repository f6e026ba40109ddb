"""Fixtures for pillow-gpu tests: the shared wgpu device (lavapipe in CI)."""

from __future__ import annotations

import pytest
from pillow_gpu.gpu._device import SharedDevice, get_device


@pytest.fixture(scope="session")
def device() -> SharedDevice:
    """The process-wide wgpu device; tests need an adapter (lavapipe works without a GPU)."""
    return get_device()
