"""Pixel layout on the device: one little-endian u32 (Pillow's four stored bytes) per pixel.

Pillow stores LA/RGB/RGBA/RGBX/CMYK with four bytes per pixel (RGB keeps a padding byte, LA
keeps L in byte 0 and A in byte 3); L samples live in byte 0 of their word. Terminal bytes are
Pillow's internal bytes (L packed to one byte per pixel), so RGB padding survives the trip.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage

__all__ = [
    "BYTE_BANDS",
    "INDEXED_MODES",
    "NATIVE_MODES",
    "band_bytes",
    "band_mask",
    "image_from_terminal",
    "ink",
    "terminal_nbytes",
    "to_words",
    "upload_words",
]

#: The 8-bit layouts the GPU path stores natively.
NATIVE_MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")

#: Palette and bilevel modes, uploaded as their stored byte (P: index; 1: 0 or 255) repeated in
#: all four bytes of the word; only ``convert`` reads them (gpu.lowering.indexed).
INDEXED_MODES = ("P", "1")

#: Stored byte -> band index, per native mode (None: a byte no band owns, e.g. the RGB padding
#: byte and LA's bytes 1 and 2, which Pillow's merge writes as 0).
BYTE_BANDS: dict[str, tuple[int | None, ...]] = {
    "L": (0, None, None, None),
    "LA": (0, None, None, 1),
    "RGB": (0, 1, 2, None),
    "RGBA": (0, 1, 2, 3),
    "CMYK": (0, 1, 2, 3),
    "RGBX": (0, 1, 2, 3),
}


def band_bytes(mode: str) -> tuple[int, ...]:
    """The stored byte of each band of native ``mode``, in band order (LA: ``(0, 3)``)."""
    owned = [(band, byte) for byte, band in enumerate(BYTE_BANDS[mode]) if band is not None]
    return tuple(byte for _, byte in sorted(owned))


def band_mask(mode: str) -> int:
    """Bit ``j`` set for each stored byte ``j`` a band of native ``mode`` owns."""
    return sum(1 << byte for byte in band_bytes(mode))


def to_words(image: PILImage.Image) -> npt.NDArray[np.uint32]:
    """Return the pixels of ``image`` (a native or indexed mode) as one u32 per pixel."""
    if image.mode in INDEXED_MODES:
        stored = image.tobytes("raw", "L") if image.mode == "1" else image.tobytes()
        return np.frombuffer(stored, dtype=np.uint8).astype(np.uint32) * np.uint32(0x01010101)
    if image.mode == "L":
        return np.frombuffer(image.tobytes(), dtype=np.uint8).astype(np.uint32)
    if image.mode == "LA":
        pairs = np.frombuffer(image.tobytes("raw", "LA"), dtype=np.uint8).reshape(-1, 2)
        gray = pairs[:, 0].astype(np.uint32)
        alpha = pairs[:, 1].astype(np.uint32)
        words = gray | (gray << 8) | (gray << 16) | (alpha << 24)
        return np.asarray(words, dtype=np.uint32)
    raw = image.tobytes("raw", "RGBX") if image.mode == "RGB" else image.tobytes()
    return np.frombuffer(raw, dtype="<u4").copy()


def upload_words(image: PILImage.Image) -> bytes | npt.NDArray[np.uint32]:
    """The bytes of :func:`to_words` for an upload, without copies beyond Pillow's own."""
    if image.mode == "RGB":
        return image.tobytes("raw", "RGBX")
    if image.mode in ("L", "LA", *INDEXED_MODES):
        return to_words(image)
    return image.tobytes()  # RGBA, CMYK, RGBX: already one little-endian word per pixel


def ink(mode: str, color: object) -> int:
    """Pillow's stored word for ``color`` in ``mode`` (as ``Image.new`` would fill it)."""
    return int(to_words(PILImage.new(mode, (1, 1), color))[0])  # type: ignore[arg-type]


def terminal_nbytes(mode: str, size: tuple[int, int]) -> int:
    """Bytes the terminal copy moves for an image (L packed, others four per pixel)."""
    pixels = size[0] * size[1]
    return -(-pixels // 4) * 4 if mode == "L" else pixels * 4


def image_from_terminal(
    mode: str, size: tuple[int, int], data: memoryview | bytes
) -> PILImage.Image:
    """Build the ``PIL.Image.Image`` from terminal bytes (read-only input, copied once)."""
    pixels = size[0] * size[1]
    if mode == "L":
        return PILImage.frombytes("L", size, data[:pixels])
    words = data[: pixels * 4]
    if mode == "LA":
        quads = np.frombuffer(words, dtype=np.uint8).reshape(-1, 4)
        return PILImage.frombytes("LA", size, quads[:, (0, 3)].tobytes(), "raw", "LA")
    rawmode = "RGBX" if mode == "RGB" else mode
    return PILImage.frombytes(mode, size, words, "raw", rawmode)
