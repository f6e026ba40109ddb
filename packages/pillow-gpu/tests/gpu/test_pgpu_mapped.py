"""Views of mapped buffers: the mapped bytes, read-only, and the ctypes array type of each
recent size kept alive across garbage collections (wgpu-py's view would rebuild it)."""

from __future__ import annotations

import ctypes
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from pillow_gpu.gpu import _mapped
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._mapped import read_view

SIZES = {"256B": 256, "64KiB": 1 << 16, "2MiB-plus-256": (2 << 20) + 256}


def _mapped_buffer(device: SharedDevice, data: bytes) -> Any:
    import wgpu  # type: ignore[import-untyped]

    buffer = device.device.create_buffer(
        size=len(data), usage=wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
    )
    device.queue.write_buffer(buffer, 0, data)
    buffer.map_sync(wgpu.MapMode.READ)
    return buffer


@pytest.fixture
def buffers() -> Iterator[list[Any]]:
    made: list[Any] = []
    yield made
    for buffer in made:
        buffer.unmap()
        buffer.destroy()


@pytest.mark.parametrize("nbytes", list(SIZES.values()), ids=list(SIZES))
def test_a_view_reads_the_mapped_bytes(
    device: SharedDevice, buffers: list[Any], nbytes: int
) -> None:
    data = bytes((7 * index + 3) % 256 for index in range(nbytes))
    buffer = _mapped_buffer(device, data)
    buffers.append(buffer)
    whole = read_view(buffer)
    assert whole.readonly
    assert bytes(whole) == data
    assert (
        bytes(read_view(buffer, 256 if nbytes > 256 else 0, 128))
        == data[(256 if nbytes > 256 else 0) :][:128]
    )


def test_the_array_type_of_a_viewed_size_outlives_a_collection(device: SharedDevice) -> None:
    nbytes = (3 << 20) + 512  # a size no other test views
    buffer = _mapped_buffer(device, bytes(nbytes))
    read_view(buffer)
    kept = weakref.ref(ctypes.c_uint8 * nbytes)  # the type wgpu-py's view was made with
    buffer.unmap()  # which releases the view
    buffer.destroy()
    gc.collect()
    assert kept() is not None  # alive: the next view finds it in ctypes' weak cache


def test_kept_types_are_bounded(device: SharedDevice, buffers: list[Any]) -> None:
    buffer = _mapped_buffer(device, bytes(4096))
    buffers.append(buffer)
    for size in range(4, 4 * (_mapped._MAX_KEPT + 8), 4):
        read_view(buffer, 0, size)
        assert len(_mapped._KEPT) <= _mapped._MAX_KEPT
