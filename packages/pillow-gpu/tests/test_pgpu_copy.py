"""Large copies split across threads (pillow_gpu._copy) and result images filled by one copy."""

from __future__ import annotations

import ctypes
import os
import threading

import pytest
from PIL import Image as PILImage
from pillow_gpu import _copy
from pillow_gpu._pillow_memory import fill_storage, stored_snapshot, stored_view
from pillow_gpu.gpu import _layout

MIB = 1 << 20


@pytest.fixture
def forced_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every large copy split four ways, whatever this machine's trials would choose."""
    monkeypatch.setattr(_copy, "_chosen", _copy._WAYS)


def _address(buffer: bytearray) -> tuple[int, object]:
    view = (ctypes.c_char * len(buffer)).from_buffer(buffer)
    return ctypes.addressof(view), view


@pytest.mark.parametrize(
    "nbytes",
    [MIB, MIB + 1, MIB + 4095, 3 * MIB + 17, 8 * MIB],
    ids=lambda n: f"{n}B",
)
def test_split_copy_moves_every_byte(forced_ways: None, nbytes: int) -> None:
    source = bytearray(os.urandom(nbytes))
    target = bytearray(nbytes + 64)  # bytes past the range stay untouched
    target[nbytes:] = b"\xa5" * 64
    (to, keep_to), (frm, keep_from) = _address(target), _address(source)
    _copy.copy_memory(to, frm, nbytes)
    del keep_to, keep_from
    assert target[:nbytes] == source
    assert target[nbytes:] == b"\xa5" * 64


def test_small_copies_are_never_split(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(_copy, "_split", lambda *args: calls.append(args[2]))
    monkeypatch.setattr(_copy, "_chosen", _copy._WAYS)
    source, target = bytearray(b"x" * 1000), bytearray(1000)
    (to, keep_to), (frm, keep_from) = _address(target), _address(source)
    _copy.copy_memory(to, frm, 1000)
    del keep_to, keep_from
    assert calls == []
    assert target == source


def test_trials_choose_by_time_per_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """Alternating trials, then the faster way (a split only with the 20 % margin)."""
    monkeypatch.setattr(_copy, "usable_cpus", lambda: 16)
    for split_time, expected in ((1.0, _copy._WAYS), (1.1, 1)):
        monkeypatch.setattr(_copy, "_chosen", None)
        monkeypatch.setattr(_copy, "_trials", {1: [], _copy._WAYS: []})
        seen = []
        for _ in range(_copy._TRIALS):
            ways = _copy._next_ways()
            seen.append(ways)
            _copy._trials[ways].append(1.25 if ways == 1 else split_time)
        assert seen == [1, _copy._WAYS] * (_copy._TRIALS // 2)
        assert _copy._next_ways() == expected
        assert _copy.split_ways() == expected


def test_few_cpus_never_split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_copy, "usable_cpus", lambda: 2)
    monkeypatch.setattr(_copy, "_chosen", None)
    assert _copy._next_ways() == 1
    assert _copy.split_ways() == 1


def test_an_interrupt_waits_for_every_chunk(
    forced_ways: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The calling thread's own chunk raising (as KeyboardInterrupt would) still waits for the
    workers' chunks before the exception leaves, so no buffer is freed under a worker."""
    real = ctypes.memmove
    main = threading.get_ident()

    def memmove(target: int, source: int, count: int) -> int:
        real(target, source, count)
        if threading.get_ident() == main:
            raise KeyboardInterrupt
        return target

    monkeypatch.setattr(_copy.ctypes, "memmove", memmove)
    nbytes = 4 * MIB
    source = bytearray(os.urandom(nbytes))
    target = bytearray(nbytes)
    (to, keep_to), (frm, keep_from) = _address(target), _address(source)
    with pytest.raises(KeyboardInterrupt):
        _copy.copy_memory(to, frm, nbytes)
    del keep_to, keep_from
    assert target == source  # every worker chunk had landed when the exception left


@pytest.mark.parametrize(
    ("mode", "rawmode"),
    [
        ("L", "L"),
        ("RGB", "RGBX"),
        ("RGBA", "RGBA"),
        ("I", "I;32"),
        ("F", "F;32F"),
        ("I;16B", "I;16B"),
        ("CMYK", "CMYK"),
    ],
)
def test_filled_results_equal_pillows_decode(forced_ways: None, mode: str, rawmode: str) -> None:
    """A large result filled by one (split) copy stores exactly what Pillow's decoder stores,
    the padding byte of RGB included."""
    size = (1024, 1100)
    nbytes = len(stored_view(PILImage.new(mode, size, None)) or b"")
    assert nbytes >= _copy.MIN_SPLIT_BYTES
    data = os.urandom(nbytes)
    filled = _layout._filled(mode, size, memoryview(data), rawmode)
    expected = PILImage.new(mode, size, None)
    expected.frombytes(data, "raw", rawmode)
    assert bytes(stored_view(filled) or b"") == bytes(stored_view(expected) or b"x")
    assert filled.tobytes() == expected.tobytes()


def test_raw_modes_that_are_not_copies_are_decoded() -> None:
    assert _layout._raw_is_copy("L", "L")
    assert not _layout._raw_is_copy("1", "L")  # Pillow turns every nonzero byte into 255
    assert not _layout._raw_is_copy("LA", "LA")  # two bytes per pixel, four stored


def test_fill_storage_refuses_a_wrong_length() -> None:
    image = PILImage.new("L", (64, 64), 7)
    assert not fill_storage(image, bytes(64 * 64 - 1))
    assert image.tobytes() == bytes([7]) * (64 * 64)


def test_large_snapshot_is_a_split_copy(forced_ways: None) -> None:
    image = PILImage.frombytes("RGBA", (700, 500), os.urandom(700 * 500 * 4))
    snapshot = stored_snapshot(image)
    assert snapshot is not None
    assert bytes(memoryview(snapshot)) == bytes(stored_view(image) or b"")


def test_a_forked_child_splits_with_its_own_threads(forced_ways: None) -> None:
    """After fork the parent's pool threads do not exist; the child makes its own."""
    if not hasattr(os, "fork"):
        pytest.skip("os.fork is not available on this platform")
    nbytes = 2 * MIB
    source = bytearray(os.urandom(nbytes))
    target = bytearray(nbytes)
    (to, keep_to), (frm, keep_from) = _address(target), _address(source)
    _copy.copy_memory(to, frm, nbytes)  # the parent's pool exists now
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.close(reader)
        ctypes.memset(to, 0, nbytes)
        _copy.copy_memory(to, frm, nbytes)
        os.write(writer, b"1" if target == source else b"0")
        os._exit(0)
    os.close(writer)
    answer = os.read(reader, 1)
    os.close(reader)
    os.waitpid(child, 0)
    del keep_to, keep_from
    assert answer == b"1"
