"""Snapshot buffers are recycled only when nothing can still see them, stay within their
bound, and a recycled buffer never leaks its old bytes into a new snapshot."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._pillow_memory import stored_snapshot
from pillow_gpu._snapshot import MIN_POOLED_BYTES, Snapshot, SnapshotPool, snapshot_pool

#: (mode, size) of snapshots above and below the pooling threshold; 181 columns of L need
#: padding to whole words, so a recycled buffer's tail must be zeroed again.
CASES = {
    "L-256x256": ("L", (256, 256)),
    "L-181x181": ("L", (181, 181)),
    "RGB-128x128": ("RGB", (128, 128)),
    "L-small-9x7": ("L", (9, 7)),
}


@pytest.fixture(autouse=True)
def _empty_pool() -> Iterator[None]:
    snapshot_pool().clear()
    yield
    snapshot_pool().clear()


def _noise(mode: str, size: tuple[int, int], seed: int) -> PILImage.Image:
    rng = np.random.default_rng(seed)
    bands = len(mode)
    data = rng.integers(0, 256, size[0] * size[1] * bands, dtype=np.uint8).tobytes()
    return PILImage.frombytes(mode, size, data)


def _expected(image: PILImage.Image) -> bytes:
    data = image.tobytes() if image.mode == "L" else image.convert("RGBX").tobytes()
    return data + bytes(-len(data) % 4)


@pytest.mark.parametrize(("mode", "size"), list(CASES.values()), ids=list(CASES))
def test_a_recycled_buffer_holds_only_the_new_snapshot(mode: str, size: tuple[int, int]) -> None:
    first = stored_snapshot(_noise(mode, size, 1))
    assert first is not None
    pooled = len(first) >= MIN_POOLED_BYTES
    del first
    assert snapshot_pool().idle_bytes == (len(_expected(_noise(mode, size, 1))) if pooled else 0)
    # A constant image: any byte of the old noise (the padding tail included) would show.
    image = PILImage.new(mode, size, 3 if mode == "L" else (3, 3, 3))
    second = stored_snapshot(image)
    assert second is not None
    assert snapshot_pool().idle_bytes == 0
    assert bytes(second) == _expected(image)


VIEWS = {
    "whole": memoryview,
    "slice": lambda snapshot: memoryview(snapshot)[1000:2000],
    "numpy": lambda snapshot: np.frombuffer(memoryview(snapshot), dtype=np.uint8),
}


@pytest.mark.parametrize("make_view", list(VIEWS.values()), ids=list(VIEWS))
def test_a_live_view_keeps_its_buffer_out_of_the_pool(make_view: Any) -> None:
    source = _noise("L", (256, 256), 2)
    snapshot = stored_snapshot(source)
    assert snapshot is not None
    view = make_view(snapshot)
    expected = bytes(view)
    del snapshot
    gc.collect()
    assert snapshot_pool().idle_bytes == 0
    other = stored_snapshot(PILImage.new("L", (256, 256), 9))
    assert other is not None
    assert bytes(view) == expected  # never overwritten by the later snapshot
    del view


def test_a_snapshot_is_read_only() -> None:
    snapshot = stored_snapshot(_noise("L", (256, 256), 3))
    assert snapshot is not None
    view = memoryview(snapshot)
    assert view.readonly
    with pytest.raises(TypeError):
        view[0] = 1


def test_a_batch_reuses_the_buffers_its_leaves_gave_back() -> None:
    sources = [_noise("RGB", (128, 128), seed) for seed in range(4)]
    leaves = [Image.from_pil(source) for source in sources]
    nbytes = 128 * 128 * 4
    del leaves
    assert snapshot_pool().idle_bytes == 4 * nbytes
    again = [Image.from_pil(source) for source in sources]
    assert snapshot_pool().idle_bytes == 0
    for leaf, source in zip(again, sources, strict=True):
        assert leaf.to_pil().tobytes() == source.tobytes()


def test_the_pool_keeps_its_bound_and_drops_older_sizes_first() -> None:
    pool = SnapshotPool(max_bytes=4 * MIN_POOLED_BYTES)
    small, large = MIN_POOLED_BYTES, 2 * MIN_POOLED_BYTES
    for _ in range(4):
        pool.give(bytearray(small))
    assert pool.idle_bytes == 4 * small
    pool.give(bytearray(large))  # room is made by dropping two of the older size
    assert pool.idle_bytes == 4 * small
    assert pool.take(large) is not None
    assert pool.take(small) is not None
    assert pool.take(small) is not None
    assert pool.take(small) is None
    pool.give(bytearray(8 * MIN_POOLED_BYTES))  # larger than the whole bound: not kept
    assert pool.idle_bytes == 0


def test_a_busy_pool_drops_a_returned_buffer_instead_of_waiting() -> None:
    pool = SnapshotPool()
    with pool._lock:  # another thread (or a collection inside take()) holds the pool
        pool.give(bytearray(MIN_POOLED_BYTES))
    assert pool.idle_bytes == 0


def test_a_snapshot_reads_like_bytes_padded_to_whole_words() -> None:
    found = stored_snapshot(PILImage.frombytes("L", (3, 2), bytes(range(6))))
    assert isinstance(found, Snapshot)
    assert len(found) == 8
    assert bytes(found) == bytes(range(6)) + bytes(2)
    assert "8 bytes" in repr(found)
