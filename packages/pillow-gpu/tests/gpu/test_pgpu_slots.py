"""Pooled plan allocations: same-shape plans reuse buffers, stay exact, and the pool is bounded."""

from __future__ import annotations

import pytest
import wgpu  # type: ignore[import-untyped]
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageChops, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._slots import Slot, SlotPool


def _crop_invert(source: PILImage.Image) -> Image.Image:
    # The crop box reaches outside the source: those pixels must come out zero.
    return ImageChops.invert(Image.from_pil(source).crop((-3, -2, 20, 15)))


def _pil_crop_invert(source: PILImage.Image) -> PILImage.Image:
    return PILImageChops.invert(source.crop((-3, -2, 20, 15)))


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA"])
def test_same_shape_plan_reuses_the_allocation_and_stays_exact(
    device: SharedDevice, mode: str
) -> None:
    first, second = make_image(mode, (17, 11), 1), make_image(mode, (17, 11), 2)
    assert_image_equal(evaluate(_crop_invert(first)), _pil_crop_invert(first))
    created = device.buffers_created
    assert_image_equal(evaluate(_crop_invert(second)), _pil_crop_invert(second))
    assert device.buffers_created == created


@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_reused_slot_with_junk_in_its_buffers_gives_fresh_results(
    device: SharedDevice, mode: str
) -> None:
    source = make_image(mode, (17, 11), 3)
    plan = plan_graph(_crop_invert(source), limits=device.limits)
    plan.allocate(device)
    key = plan._key
    plan.release()
    slot = device.slots.take(key)
    assert slot is not None
    assert slot.clear  # the crop and invert outputs are working buffers
    for buffer in slot.buffers:
        if buffer.usage & wgpu.BufferUsage.COPY_DST:
            device.queue.write_buffer(buffer, 0, b"\xff" * buffer.size)
    device.slots.give(key, slot)
    created = device.buffers_created
    assert_image_equal(evaluate(_crop_invert(source)), _pil_crop_invert(source))
    assert device.buffers_created == created


def test_different_parameters_get_their_own_constants(device: SharedDevice) -> None:
    source = make_image("RGB", (13, 9), 4)
    for threshold in (64, 128, 200):
        lazy = ImageOps.solarize(Image.from_pil(source), threshold)
        assert_image_equal(evaluate(lazy), PILImageOps.solarize(source, threshold))


def _slot(device: SharedDevice, nbytes: int) -> Slot:
    buffer = device.device.create_buffer(size=nbytes, usage=wgpu.BufferUsage.STORAGE)
    return Slot(buffers=[buffer], resources=[], bind_groups=[], clear=(), nbytes=nbytes)


def test_pool_is_bounded_and_evicts_the_oldest_shape(device: SharedDevice) -> None:
    pool = SlotPool(max_bytes=3 * 1024)
    assert pool.take("a") is None
    old, kept, newer = _slot(device, 1024), _slot(device, 1024), _slot(device, 2048)
    pool.give("a", old)
    pool.give("b", kept)
    assert pool.idle_bytes == 2048
    pool.give("c", newer)  # over the bound: the oldest shape ("a") is destroyed
    assert pool.idle_bytes == 3 * 1024
    assert pool.take("a") is None
    assert old.buffers == []
    assert pool.take("b") is kept
    assert pool.take("c") is newer
    too_big = _slot(device, 4096)
    pool.give("d", too_big)
    assert pool.take("d") is None
    assert too_big.buffers == []
    pool.give("b", kept)
    pool.clear()
    assert pool.idle_bytes == 0
    assert kept.buffers == []
    newer.destroy()


def test_a_widening_raises_the_bound_until_it_is_narrowed(device: SharedDevice) -> None:
    pool = SlotPool(max_bytes=1024)
    outer = pool.widen(4 * 1024)
    inner = pool.widen(2 * 1024)
    assert pool.max_bytes == 4 * 1024  # the largest open widening
    slots = [_slot(device, 1024) for _ in range(4)]
    for name, slot in zip("abcd", slots, strict=True):
        pool.give(name, slot)
    assert pool.idle_bytes == 4 * 1024  # none destroyed while widened
    pool.narrow(outer)
    assert pool.max_bytes == 2 * 1024
    assert pool.idle_bytes == 2 * 1024  # the two oldest shapes were destroyed
    assert [slot.buffers == [] for slot in slots] == [True, True, False, False]
    pool.narrow(outer)  # idempotent
    pool.narrow(inner)
    assert (pool.max_bytes, pool.idle_bytes) == (1024, 1024)
    assert pool.take("d") is slots[3]
    pool.clear()
    slots[3].destroy()


def test_an_open_executor_widens_the_device_pool_to_its_gpu_budget(
    device: SharedDevice,
) -> None:
    import gc

    from pillow_gpu.executor import GpuBatchExecutor

    budget = device.slots.max_bytes + (3 << 30)  # above any other open executor's budget
    executor = GpuBatchExecutor(gpu_bytes=budget)
    assert device.slots.max_bytes == budget
    executor.close()
    assert device.slots.max_bytes < budget
    collected = GpuBatchExecutor(gpu_bytes=budget)  # never closed: ended when collected
    assert device.slots.max_bytes == budget
    del collected
    gc.collect()
    drain = _slot(device, 256)
    device.slots.give(("drain",), drain)  # the next pool call narrows the bound
    assert device.slots.max_bytes < budget
    assert device.slots.take(("drain",)) is drain
    drain.destroy()


def test_an_expiry_never_waits_for_the_pool_lock(device: SharedDevice) -> None:
    # A collection can run while this thread holds the pool's lock (any allocation under it);
    # a collected executor's widening must then end without taking the lock.
    pool = SlotPool(max_bytes=1024)
    token = pool.widen(4 * 1024)
    with pool._lock:
        pool.expire(token)
    assert pool.max_bytes == 4 * 1024
    kept = _slot(device, 1024)
    pool.give("a", kept)
    assert pool.max_bytes == 1024
    assert pool.take("a") is kept
    kept.destroy()
