"""A dropped resident output's buffers are reused by the next resident job of their size:
the pair goes to the device's pool when the last handle goes, comes back for the next job,
and its downloads are that job's pixels (never the earlier output's), in every mode."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

import pytest
from PIL import ImageChops as PILImageChops
from pillow_gpu import GpuBatchExecutor, GpuImage, Image, ImageChops
from pillow_gpu._testing import MODES, assert_image_equal, make_image
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._resident_pool import ResidentPool

Factory = Callable[..., GpuBatchExecutor]
SIZES = {"13x7": (13, 7), "64x64": (64, 64)}


@pytest.fixture
def pool(device: SharedDevice) -> Iterator[ResidentPool]:
    device.resident_pool.clear()
    yield device.resident_pool
    device.resident_pool.clear()


def _one(executor: GpuBatchExecutor, mode: str, size: tuple[int, int], seed: int) -> GpuImage:
    source = make_image(mode, size, seed=seed)
    (result,) = executor.run([(seed, ImageChops.invert(Image.from_pil(source)))], output="gpu")
    handle = result.image
    assert isinstance(handle, GpuImage)
    assert_image_equal(handle.download(), PILImageChops.invert(source))
    return handle


def _pair(handle: GpuImage) -> tuple[object, object]:
    lease = handle._lease
    return lease._resident, lease._workspace


@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
@pytest.mark.parametrize("mode", MODES)
def test_a_dropped_outputs_buffers_serve_the_next_job(
    make_executor: Factory, pool: ResidentPool, mode: str, size: tuple[int, int]
) -> None:
    executor = make_executor()
    first = _one(executor, mode, size, seed=1)
    buffers = _pair(first)
    assert pool.idle_bytes == 0
    del first
    gc.collect()
    assert pool.idle_bytes == 2 * buffers[0].size  # type: ignore[attr-defined]
    second = _one(executor, mode, size, seed=2)  # other pixels through the same buffers
    assert _pair(second) == buffers
    assert pool.idle_bytes == 0


def test_a_pair_of_another_size_is_not_taken(make_executor: Factory, pool: ResidentPool) -> None:
    executor = make_executor()
    first = _one(executor, "L", (64, 64), seed=1)
    buffers = _pair(first)
    del first
    gc.collect()
    second = _one(executor, "L", (128, 64), seed=2)
    assert _pair(second) != buffers
    assert pool.idle_bytes == 2 * buffers[0].size  # type: ignore[attr-defined]


def test_a_pair_past_the_bound_is_destroyed(make_executor: Factory, pool: ResidentPool) -> None:
    executor = make_executor()
    handles = [_one(executor, "RGBA", (64, 64), seed=seed) for seed in range(3)]
    pair_bytes = 2 * _pair(handles[0])[0].size  # type: ignore[attr-defined]
    pool.max_bytes = 2 * pair_bytes
    try:
        pairs = [_pair(handle) for handle in handles]
        del handles
        gc.collect()
        assert pool.idle_bytes == 2 * pair_bytes  # two kept, the third destroyed
        size = pairs[0][0].size  # type: ignore[attr-defined]
        kept = [pool.take(size), pool.take(size)]
        assert pool.take(size) is None
        assert all(pair in pairs for pair in kept)
    finally:
        pool.max_bytes = ResidentPool().max_bytes


def test_a_pair_comes_back_without_the_pools_lock(device: SharedDevice) -> None:
    """A handle's finalizer may run inside take() (a garbage collection there): give() must
    not wait for the lock take() holds."""
    import wgpu  # type: ignore[import-untyped]

    pool = ResidentPool()
    usage = wgpu.BufferUsage.COPY_DST
    pair = [device.device.create_buffer(size=256, usage=usage) for _ in range(2)]
    with pool._lock:
        assert pool.give(*pair)
    assert pool.take(256) == tuple(pair)
    assert pool.take(256) is None
    for buffer in pair:
        buffer.destroy()


def test_pairs_are_bounded_in_number_too(device: SharedDevice) -> None:
    """An empty image's pair holds a few bytes: the byte bound alone would keep any number."""
    import wgpu

    pool = ResidentPool(max_pairs=3)
    usage = wgpu.BufferUsage.COPY_DST
    made = [device.device.create_buffer(size=4, usage=usage) for _ in range(8)]
    kept = [pool.give(made[index], made[index + 1]) for index in range(0, 8, 2)]
    assert kept == [True, True, True, False]
    assert pool.idle_bytes == 3 * 8
    for buffer in made:
        buffer.destroy()
