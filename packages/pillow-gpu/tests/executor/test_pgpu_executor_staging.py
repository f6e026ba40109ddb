"""Staging arenas: consumed arenas go to the device's pool unmapped and are reused exactly."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from pillow_gpu import GpuBatchExecutor, Image, ImageChops
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._slots import SlotPool

Factory = Callable[..., GpuBatchExecutor]


def _sources(mode: str, size: tuple[int, int], seed: int) -> list[PILImage.Image]:
    return [make_image(mode, size, seed=seed + index) for index in range(4)]


def _run(executor: GpuBatchExecutor, sources: list[PILImage.Image]) -> None:
    jobs = [(index, ImageChops.invert(Image.from_pil(src))) for index, src in enumerate(sources)]
    results = {result.input_key: result.image for result in executor.run(jobs)}
    for index, source in enumerate(sources):
        assert_image_equal(results[index], PILImageChops.invert(source))


def _arena_key(device: SharedDevice, count: int, size: tuple[int, int]) -> tuple[str, int]:
    """The pool key of the arena of ``count`` L jobs of ``size``; an idle one is dropped."""
    staging = -(-(size[0] * size[1]) // 256) * 256  # one L byte per pixel, 256-byte ranges
    key = ("arena", count * staging)
    earlier = device.slots.take(key)  # pooled by an earlier test
    if earlier is not None:
        earlier.destroy()
    return key


@pytest.mark.parametrize("size", [(16, 16), (15, 15)], ids=["whole-ranges", "padded-ranges"])
def test_a_consumed_arena_is_pooled_unmapped_and_the_next_stream_reuses_it(
    make_executor: Factory, device: SharedDevice, size: tuple[int, int]
) -> None:
    executor = make_executor()
    key = _arena_key(device, 4, size)
    _run(executor, _sources("L", size, seed=1))
    pooled = device.slots.take(key)
    assert pooled is not None
    (arena,) = pooled.buffers
    assert arena.map_state == "unmapped"
    device.slots.give(key, pooled)
    # Other pixels through the reused arena: every result is exact (no stale bytes).
    _run(executor, _sources("L", size, seed=7))
    again = device.slots.take(key)
    assert again is not None
    assert again.buffers == [arena]
    assert arena.map_state == "unmapped"
    device.slots.give(key, again)


def test_a_cancelled_stream_pools_its_undelivered_arena_unmapped(
    make_executor: Factory, device: SharedDevice
) -> None:
    size = (16, 16)
    executor = make_executor()
    key = _arena_key(device, 4, size)
    jobs = [(i, ImageChops.invert(Image.from_pil(s))) for i, s in enumerate(_sources("L", size, 3))]
    results = executor.run(jobs)
    next(results)  # one result delivered, three left in the mapped arena
    results.close()
    pooled = device.slots.take(key)
    assert pooled is not None
    assert pooled.buffers[0].map_state == "unmapped"
    device.slots.give(key, pooled)
    _run(make_executor(), _sources("L", size, seed=11))


def test_an_arena_above_a_quarter_of_the_pool_is_destroyed_not_pooled(
    make_executor: Factory, device: SharedDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = (16, 16)
    key = _arena_key(device, 4, size)  # a 1024-byte arena
    executor = make_executor()
    # A pool created after the executor: its bound is not widened (a quarter is 1023 bytes).
    monkeypatch.setattr(device, "slots", SlotPool(max_bytes=4 * 1024 - 4))
    _run(executor, _sources("L", size, seed=5))
    assert device.slots.take(key) is None
