"""Uploads read straight from Pillow's memory equal the bytes ``tobytes()`` would give; the
snapshots of lazy leaves are those bytes and rebuild the image exactly."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import numpy as np
import pytest
from PIL import Image as PILImage
from pillow_gpu._pillow_memory import (
    SNAPSHOT_RAWMODES,
    STORED_UPLOADS,
    image_of_snapshot,
    stored_snapshot,
    stored_view,
)
from pillow_gpu._snapshot import Snapshot
from pillow_gpu.gpu import _layout
from pillow_gpu.gpu._layout import upload_bytes

SIZES = {"4x4": (4, 4), "8x3": (8, 3), "17x5": (17, 5), "256x256": (256, 256)}


def _sources(mode: str, size: tuple[int, int]) -> dict[str, PILImage.Image]:
    rng = np.random.default_rng(sum(size))
    noise = PILImage.fromarray(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8))
    found = {"new": PILImage.new(mode, size), "converted": noise.convert(mode)}
    if mode in ("RGB", "RGBA", "CMYK", "YCbCr"):  # every byte of the word set, padding included
        words = rng.integers(0, 2**32, size[0] * size[1], dtype=np.uint32).tobytes()
        found["pasted-words"] = PILImage.new(mode, size)
        found["pasted-words"].im.paste(PILImage.frombytes("RGBX", size, words).im, (0, 0, *size))
    return found


def _copied_upload(image: PILImage.Image, monkeypatch: pytest.MonkeyPatch) -> bytes:
    with monkeypatch.context() as patch:
        patch.setattr(_layout, "STORED_UPLOADS", {})
        data = upload_bytes(image)
    assert isinstance(data, bytes)
    return data


@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
@pytest.mark.parametrize("mode", list(STORED_UPLOADS))
def test_stored_view_equals_the_copied_upload(
    mode: str, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, image in _sources(mode, size).items():
        expected = _copied_upload(image, monkeypatch)
        view = stored_view(image)
        assert view is not None, name
        assert view.readonly
        assert bytes(view) == expected[: view.nbytes], name
        uploaded = upload_bytes(image)
        assert bytes(uploaded) == expected, name
        # A view only where no padding is needed: write_buffer takes multiples of four bytes.
        assert isinstance(uploaded, memoryview) == (view.nbytes % 4 == 0), name


def test_view_keeps_the_image_memory_alive() -> None:
    image = PILImage.frombytes("L", (64, 64), bytes(range(256)) * 16)
    expected = image.tobytes()
    view = stored_view(image)
    assert view is not None
    del image
    gc.collect()
    PILImage.new("L", (64, 64), 7).tobytes()  # reuse of freed memory would show here
    assert bytes(view) == expected


@pytest.mark.parametrize("mode", ["LA", "La", "PA", "HSV", "LAB"])
def test_modes_whose_upload_is_not_their_storage_are_copied(mode: str) -> None:
    image = PILImage.new(mode, (8, 8))
    assert stored_view(image) is None
    assert isinstance(upload_bytes(image), bytes)


@pytest.fixture
def small_blocks() -> Iterator[None]:
    """Pillow's block size at 4096 bytes, so that a 97 x 100 image takes several blocks."""
    block = PILImage.core.get_block_size()
    PILImage.core.set_block_size(4096)
    try:
        yield
    finally:
        PILImage.core.set_block_size(block)


@pytest.mark.parametrize("mode", [mode for mode in STORED_UPLOADS if mode != "1"])
def test_an_image_in_several_blocks_is_copied_by_paste(
    mode: str, small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Pillow stores images larger than its block size in several blocks (rows not contiguous)
    # and refuses the Arrow export; the upload is then one copy by Pillow's paste, with the
    # bytes the encoders give (padding bytes and odd widths included). A 1 image keeps its
    # own route (the test below): Pillow lays no image of mode 1 over a buffer.
    for name, image in _sources(mode, (97, 100)).items():
        assert stored_view(image) is None, name
        uploaded = upload_bytes(image)
        assert isinstance(uploaded, memoryview), name
        assert uploaded.readonly, name
        assert bytes(uploaded) == _copied_upload(image, monkeypatch), name


def test_an_image_over_the_default_block_size_is_copied_by_paste() -> None:
    edge = int((PILImage.core.get_block_size() // 4) ** 0.5) + 64
    image = PILImage.new("RGBA", (edge, edge), (1, 2, 3, 4))
    assert stored_view(image) is None
    data = upload_bytes(image)
    assert bytes(data[:8]) == bytes((1, 2, 3, 4, 1, 2, 3, 4))
    assert bytes(data) == image.tobytes()


def test_a_bilevel_image_in_several_blocks_keeps_its_stored_bytes(small_blocks: None) -> None:
    """A 1 image's stored bytes (any value a point table gave) survive the upload and the
    terminal where Pillow stores the image in several blocks (no Arrow export)."""
    gray = PILImage.linear_gradient("L").resize((97, 100))
    image = gray.point(lambda v: v // 64, "1")  # stores 0..3
    assert stored_view(image) is None
    stored = _layout.bilevel_bytes(image)
    assert set(stored) == {0, 1, 2, 3}
    assert stored[::97] == bytes(image.getpixel((0, y)) for y in range(100))
    rebuilt = _layout.image_from_terminal("1", image.size, stored)
    assert stored_view(rebuilt) is None
    assert _layout.bilevel_bytes(rebuilt) == stored


def test_an_empty_image_has_no_view() -> None:
    assert stored_view(PILImage.new("L", (0, 5))) is None


@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
@pytest.mark.parametrize("mode", list(SNAPSHOT_RAWMODES))
def test_a_snapshot_is_the_upload_and_rebuilds_the_image(
    mode: str, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, image in _sources(mode, size).items():
        snapshot = stored_snapshot(image)
        assert isinstance(snapshot, Snapshot), name
        assert memoryview(snapshot).readonly, name
        assert bytes(snapshot) == _copied_upload(image, monkeypatch), name
        rebuilt = image_of_snapshot(mode, size, snapshot)
        assert (rebuilt.mode, rebuilt.size) == (mode, size), name
        assert rebuilt.tobytes() == image.tobytes(), name
        view = stored_view(rebuilt)
        assert view is not None
        assert bytes(view) == bytes(stored_view(image) or b""), f"{name}: storage differs"


def test_a_snapshot_does_not_follow_later_changes_of_its_source() -> None:
    pixels = np.zeros((6, 8), dtype=np.uint8)
    shared = PILImage.frombuffer("L", (8, 6), pixels, "raw", "L", 0, 1)  # numpy's memory
    snapshot = stored_snapshot(shared)
    assert snapshot is not None
    pixels[:] = 200
    assert shared.getpixel((0, 0)) == 200  # the source follows its array; the copy does not
    assert image_of_snapshot("L", (8, 6), snapshot).tobytes() == bytes(48)


@pytest.mark.parametrize("mode", ["P", "1", "LA", "PA", "HSV", "I;16N"])
def test_modes_outside_the_snapshot_table_are_not_snapshotted(mode: str) -> None:
    assert mode not in SNAPSHOT_RAWMODES
    assert stored_snapshot(PILImage.new(mode, (8, 8))) is None


def test_an_image_in_several_blocks_is_not_snapshotted() -> None:
    # from_pil keeps image.copy() of it, which the CPU paths use as it is; its upload is then
    # the pasted copy above.
    edge = int((PILImage.core.get_block_size() // 4) ** 0.5) + 64
    assert stored_snapshot(PILImage.new("RGBA", (edge, edge))) is None
