"""Staged uploads: a submission's small lanes copied through a pooled staging buffer land in
their working buffers exactly as the joined ``write_buffer`` put them (zeros between lanes,
whatever a reused staging buffer held), the pool reuses and bounds its buffers, and without a
mapped staging buffer the runs are written as before."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import wgpu  # type: ignore[import-untyped]
from PIL import ImageChops as PILImageChops
from pillow_gpu import GpuBatchExecutor, Image, ImageChops
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import _upload_belt
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._upload_belt import StagingPool, UploadBatch, write_run

#: Runs as (lane byte counts, lane stride): whole strides, gaps to the stride, a single lane
#: (uploads are whole 4-byte words, as ``write_buffer`` requires).
RUNS = {
    "4x256-whole": ([256] * 4, 256),
    "3x252-gaps": ([252] * 3, 256),
    "2x1000-gaps": ([1000, 1000], 1024),
    "1x12-single": ([12], 256),
}
#: What a working buffer holds before the upload (kept past the upload's end).
_BEFORE = 0xEE


def _lanes(counts: list[int], seed: int) -> list[bytes]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, count, dtype=np.uint8).tobytes() for count in counts]


def _target(device: SharedDevice, nbytes: int) -> Any:
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
    buffer = device.device.create_buffer(size=nbytes, usage=usage)
    device.queue.write_buffer(buffer, 0, bytes([_BEFORE]) * nbytes)
    return buffer


def _read(device: SharedDevice, buffer: Any) -> bytes:
    return bytes(device.queue.read_buffer(buffer))


def _submit(device: SharedDevice, batch: UploadBatch) -> None:
    device.queue.submit(batch.command_buffers())
    batch.submitted()


def _written_at_once(
    device: SharedDevice, pool: StagingPool, lanes: list[bytes], on: Any = None
) -> bytes:
    """A 1 KiB buffer after a batch of ``lanes`` (a 256-byte stride) whose uploads must not be
    staged (the batch made on device ``on``): no copies to submit, the bytes already written."""
    target = _target(device, 1024)
    batch = UploadBatch(device.device if on is None else on, device.queue, pool)
    batch.add(target, lanes, 256)
    batch.stage()
    assert batch.command_buffers() == []
    batch.submitted()
    return _read(device, target)


@pytest.fixture
def pool() -> Iterator[StagingPool]:
    made = StagingPool()
    yield made
    made.clear()


@pytest.mark.parametrize("case", list(RUNS))
def test_staged_runs_land_as_joined_writes(
    device: SharedDevice, pool: StagingPool, case: str
) -> None:
    counts, stride = RUNS[case]
    nbytes = len(counts) * stride + 512
    # A first batch leaves the pooled staging buffer full of other bytes (no zeros).
    dirty = UploadBatch(device.device, device.queue, pool)
    dirty.add(_target(device, nbytes), [b"\xab" * stride] * len(counts), stride)
    dirty.stage()
    _submit(device, dirty)
    device.queue.read_buffer(_target(device, 4))  # waits for the GPU: the buffer is mapped again
    staged, joined = _target(device, nbytes), _target(device, nbytes)
    lanes = _lanes(counts, seed=len(case))
    batch = UploadBatch(device.device, device.queue, pool)
    batch.add(staged, lanes, stride)
    batch.stage()
    assert len(pool) == 0  # the dirty batch's buffer was taken again
    _submit(device, batch)
    write_run(device.queue, joined, lanes, stride)
    found, expected = _read(device, staged), _read(device, joined)
    assert found == expected
    covered = (len(counts) - 1) * stride + -(-counts[-1] // 4) * 4
    assert found[covered:] == bytes([_BEFORE]) * (nbytes - covered)


def test_runs_of_one_batch_share_one_staging_buffer(
    device: SharedDevice, pool: StagingPool
) -> None:
    first, second = _target(device, 1024), _target(device, 2048)
    one, two = _lanes([256, 256], 1), _lanes([500, 500, 500], 2)
    batch = UploadBatch(device.device, device.queue, pool)
    batch.add(first, one, 256)
    batch.add(second, two, 512)
    batch.stage()
    (command_buffer,) = batch.command_buffers()
    device.queue.submit([command_buffer])
    batch.submitted()
    assert _read(device, first)[:512] == b"".join(one)
    assert _read(device, second)[: 2 * 512 + 500] == b"".join(
        [two[0], bytes(12), two[1], bytes(12), two[2]]
    )
    assert len(pool) == 1


def test_without_a_mapped_view_the_runs_are_written(
    device: SharedDevice, pool: StagingPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(buffer: Any, size: int) -> memoryview:
        raise AttributeError("_experimental_get_mapped_range")

    monkeypatch.setattr(_upload_belt, "write_view", missing)
    lanes = _lanes([248, 248], 3)
    assert _written_at_once(device, pool, lanes)[:504] == lanes[0] + bytes(8) + lanes[1]
    assert len(pool) == 0


def test_without_the_view_in_wgpu_no_staging_buffer_is_made(
    device: SharedDevice, pool: StagingPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    def untaken(*args: Any) -> Any:
        raise AssertionError("a staging buffer was taken")

    monkeypatch.setattr(_upload_belt, "_can_view", lambda: False)
    monkeypatch.setattr(pool, "take", untaken)
    lanes = _lanes([256, 256], 6)
    assert _written_at_once(device, pool, lanes)[:512] == b"".join(lanes)


class _NoEncoder:
    """A device whose command encoders cannot be created (everything else is the real one)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def create_command_encoder(self) -> Any:
        raise RuntimeError("no encoder")


def test_copies_that_cannot_be_encoded_are_written(device: SharedDevice, pool: StagingPool) -> None:
    lanes = _lanes([256, 256], 5)
    written = _written_at_once(device, pool, lanes, on=_NoEncoder(device.device))
    assert written[:512] == b"".join(lanes)
    assert len(pool) == 0


def test_discarded_batches_give_nothing_back(device: SharedDevice, pool: StagingPool) -> None:
    batch = UploadBatch(device.device, device.queue, pool)
    batch.add(_target(device, 256), _lanes([256], 4), 256)
    batch.stage()
    batch.discard()
    assert batch.command_buffers() == []
    batch.submitted()
    assert len(pool) == 0


def test_pool_keeps_the_newest_buffers_within_its_bounds(device: SharedDevice) -> None:
    pool = StagingPool(max_buffers=2, max_bytes=1 << 20)
    usage = wgpu.BufferUsage.MAP_WRITE | wgpu.BufferUsage.COPY_SRC
    made = [device.device.create_buffer(size=256 << 10, usage=usage) for _ in range(3)]
    for buffer in made:
        pool.give(buffer)
    assert len(pool) == 2
    device.queue.read_buffer(_target(device, 4))  # the maps complete
    taken = {id(pool.take(device.device, 256 << 10)) for _ in range(2)}
    assert taken == {id(made[1]), id(made[2])}  # the longest idle was dropped
    too_big = device.device.create_buffer(size=2 << 20, usage=usage)
    pool.give(too_big)
    assert len(pool) == 0


def test_a_buffer_still_mapping_is_not_taken(device: SharedDevice) -> None:
    pool = StagingPool()
    usage = wgpu.BufferUsage.MAP_WRITE | wgpu.BufferUsage.COPY_SRC
    busy = device.device.create_buffer(size=256 << 10, usage=usage)

    class _Pending:
        class _Event:
            @staticmethod
            def is_set() -> bool:
                return False

        _thread_event = _Event()

    pool._idle.append((busy, _Pending()))
    fresh = pool.take(device.device, 256 << 10)
    assert fresh is not busy
    assert fresh.map_state == "mapped"
    assert len(pool) == 1
    fresh.unmap()


#: One submission's inputs, in order: staged runs of two shapes around a lane written apart
#: (at least 128 KiB), a single staged lane, and a lane with a gap to its stride.
MIXED = [
    ("L", (64, 32)),
    ("L", (64, 32)),
    ("RGB", (200, 180)),
    ("L", (64, 32)),
    ("RGBA", (13, 7)),
    ("L", (255, 3)),
    ("L", (255, 3)),
]


def test_staged_and_written_uploads_of_one_submission_equal_pillow(device: SharedDevice) -> None:
    """Every job of a submission mixing staged runs, uploads written apart and a single lane
    equals Pillow, on a first run and on a second one that reuses the pooled staging."""
    with GpuBatchExecutor(max_jobs=len(MIXED), max_in_flight=1) as executor:
        for first_seed in (0, 100):
            sources = [
                make_image(mode, size, first_seed + index)
                for index, (mode, size) in enumerate(MIXED)
            ]
            jobs = [
                (index, ImageChops.invert(Image.from_pil(s))) for index, s in enumerate(sources)
            ]
            with executor.run(jobs) as results:
                found = {result.input_key: result.image for result in results}
            assert executor.stats["largest_submission"] == len(MIXED)
            for index, source in enumerate(sources):
                assert_image_equal(found[index], PILImageChops.invert(source))


def test_executors_in_several_threads_share_the_staging_pool(device: SharedDevice) -> None:
    """Executors driven from three threads at once stage through one device's pool; every
    result equals Pillow's."""
    mismatches: list[object] = []

    def drive(seed: int) -> None:
        try:
            with GpuBatchExecutor(max_jobs=8, max_in_flight=2) as executor:
                for round_ in range(5):
                    sources = [
                        make_image("L", (60 + 4 * seed, 20), 100 * seed + 10 * round_ + index)
                        for index in range(8)
                    ]
                    jobs = [
                        (index, ImageChops.invert(Image.from_pil(source)))
                        for index, source in enumerate(sources)
                    ]
                    with executor.run(jobs) as results:
                        for result in results:
                            expected = PILImageChops.invert(sources[int(result.input_key)])
                            if result.image.tobytes() != expected.tobytes():
                                mismatches.append((seed, round_, result.input_key))
        except Exception as error:  # reported below, with the thread it came from
            mismatches.append((seed, repr(error)))

    threads = [threading.Thread(target=drive, args=(seed,)) for seed in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert mismatches == []
