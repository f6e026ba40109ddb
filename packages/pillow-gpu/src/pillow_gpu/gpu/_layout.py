"""Pixel layout on the device: one little-endian u32 per pixel in every working buffer.

Pillow stores LA/RGB/RGBA/RGBX/CMYK (and YCbCr, La, RGBa) with four bytes per pixel (RGB and
YCbCr keep a padding byte, LA and La keep L in byte 0 and A in byte 3); L samples live in
byte 0 of their word. The wide modes hold their value in the word: I;16, I;16L and I;16B the
16-bit value in the low half (whatever byte order the mode stores), I the int32, F the float32
bits.

PA keeps its palette index in bytes 0..2 and its alpha in byte 3, as Pillow stores it.

Uploads carry Pillow's stored bytes where they are narrower than a word (L, P, 1 one byte per
pixel, LA, La, PA and I;16* two), padded to a multiple of four bytes; the ``unpack`` kernel widens
them into the working buffer on the device. Terminal bytes are Pillow's stored bytes (L, P and 1
packed by ``pack_l``, I;16* in the mode's byte order and LA, La, PA as pairs by ``pack16``), so
RGB and YCbCr padding survives the trip and an I;16B result's ``tobytes()`` equals Pillow's.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np
import numpy.typing as npt
from PIL import Image as PILImage

from pillow_gpu._copy import MIN_SPLIT_BYTES
from pillow_gpu._palette_inside import POINTED_MODES, with_palette_inside
from pillow_gpu._palette_state import PaletteState
from pillow_gpu._pillow_memory import STORED_UPLOADS, fill_storage, pasted_copy, stored_view

__all__ = [
    "BAND_TWINS",
    "BYTE_BANDS",
    "BYTE_TERMINALS",
    "INDEXED_MODES",
    "LIMITED_MODES",
    "NATIVE_MODES",
    "PACKED_UPLOADS",
    "PAIR_MODES",
    "PALETTE_ALPHA_MODES",
    "WIDE16_MODES",
    "WIDE_MODES",
    "band_bytes",
    "band_mask",
    "band_twin",
    "bilevel_bytes",
    "image_from_terminal",
    "image_of_words",
    "ink",
    "stored_nbytes",
    "terminal_nbytes",
    "to_words",
    "upload_bytes",
    "upload_nbytes",
    "words_of_image",
]

#: The 8-bit layouts the GPU path stores natively.
NATIVE_MODES = ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")

#: 8-bit layouts stored like the native ones (YCbCr, HSV and LAB as RGB, with their padding
#: byte; La as LA; RGBa as RGBA) that join only the routes proven for them: conversions and
#: pure copies (gpu.lowering.limited); every other operation on them is refused.
LIMITED_MODES = ("YCbCr", "La", "RGBa", "HSV", "LAB")

#: Palette and bilevel modes, held as their stored byte (P: index; 1: 0 or 255) repeated in all
#: four bytes of the word; only ``convert`` and copies read them, and only ``convert`` writes
#: them (gpu.lowering.indexed).
INDEXED_MODES = ("P", "1")

#: Palette images with alpha, held as Pillow stores them (the index in bytes 0..2, alpha in
#: byte 3, like LA); only ``convert`` and pure copies read them, and only ``convert`` and
#: those copies produce them (gpu.lowering.indexed).
PALETTE_ALPHA_MODES = ("PA",)

#: Stored byte -> band index, per native mode (None: a byte no band owns, e.g. the RGB padding
#: byte and LA's bytes 1 and 2, which Pillow's merge writes as 0).
BYTE_BANDS: dict[str, tuple[int | None, ...]] = {
    "L": (0, None, None, None),
    "LA": (0, None, None, 1),
    "RGB": (0, 1, 2, None),
    "RGBA": (0, 1, 2, 3),
    "CMYK": (0, 1, 2, 3),
    "RGBX": (0, 1, 2, 3),
    "YCbCr": (0, 1, 2, None),
    "La": (0, None, None, 1),
    "RGBa": (0, 1, 2, 3),
    "HSV": (0, 1, 2, None),
    "LAB": (0, 1, 2, None),
}

#: The native mode whose kernels give Pillow's result for a limited mode where Pillow's C code
#: chooses its path by the band count alone (8-bit resampling and reduce, the transform
#: filters, the kernel, rank and box filters): YCbCr, HSV and LAB are three bands like RGB
#: (byte 3 the padding), La two like LA (bytes 0 and 3), RGBa four like RGBA. Pillow's Python
#: layer premultiplies LA and RGBA around resampling and filtered transforms; La and RGBa are
#: those premultiplied forms, taken as they are.
BAND_TWINS: Mapping[str, str] = MappingProxyType(
    {"YCbCr": "RGB", "HSV": "RGB", "LAB": "RGB", "La": "LA", "RGBa": "RGBA"}
)


def band_twin(mode: str) -> str:
    """The native mode :data:`BAND_TWINS` names for ``mode``, else ``mode`` itself."""
    return BAND_TWINS.get(mode, mode)


#: 16- and 32-bit single-band modes: the value in the word (see the module docstring). Only
#: pure copies (transpose, crop, expand, paste, putpixel, resize NEAREST) and the conversions
#: of gpu.lowering.wide read or produce them.
WIDE_MODES = ("I;16", "I;16B", "I;16L", "I", "F")
#: The 16-bit wide modes (two stored bytes per pixel; I;16B big-endian).
WIDE16_MODES = ("I;16", "I;16B", "I;16L")

#: Modes uploaded as Pillow's packed bytes: (stored bytes per pixel, ``unpack`` kernel kind).
#: Kinds: 0 byte -> word; 1 byte repeated in all four bytes (P index, 1's 0/255); 2 an LA pair
#: -> L in bytes 0..2 and A in byte 3; 3 a little-endian u16; 4 a big-endian u16.
PACKED_UPLOADS: dict[str, tuple[int, int]] = {
    "L": (1, 0),
    "P": (1, 1),
    "1": (1, 1),
    "LA": (2, 2),
    "La": (2, 2),
    "PA": (2, 2),
    "I;16": (2, 3),
    "I;16L": (2, 3),
    "I;16B": (2, 4),
}

#: Two-band modes stored as (band 0 in bytes 0..2, band 1 in byte 3), uploaded and read back
#: as pairs.
PAIR_MODES = tuple(mode for mode, (_, kind) in PACKED_UPLOADS.items() if kind == 2)

#: Bytes per pixel of Pillow's ``tobytes()`` for every mode the GPU path stores.
_STORED_BYTES = {
    "L": 1, "P": 1, "LA": 2, "RGB": 3, "RGBA": 4, "CMYK": 4, "RGBX": 4,
    "YCbCr": 3, "La": 2, "PA": 2, "RGBa": 4, "HSV": 3, "LAB": 3,
    "I;16": 2, "I;16B": 2, "I;16L": 2, "I": 4, "F": 4,
}  # fmt: skip
_WIDE16_DTYPES = {"I;16": "<u2", "I;16L": "<u2", "I;16B": ">u2"}
#: Raw modes that carry every stored byte of a four-byte pixel (the padding byte included).
_WORD_RAWMODES = {"RGB": "RGBX", "YCbCr": "YCbCrX"}
#: Modes no raw mode carries whole (HSV and LAB pack three bytes, LAB's a and b XOR 128, and
#: unpack byte 3 as 255): their stored words are copied through an RGBX image instead.
_PASTED_MODES = ("HSV", "LAB")


def words_of_image(image: PILImage.Image) -> npt.NDArray[np.uint32]:
    """The stored words of a four-byte ``image`` (byte 3 included), copied by Pillow's paste."""
    words = PILImage.new("RGBX", image.size)
    words.im.paste(image.im, (0, 0, *image.size))  # the C paste copies words of any mode
    return np.frombuffer(words.tobytes(), dtype="<u4").copy()


def image_of_words(mode: str, size: tuple[int, int], words: npt.ArrayLike) -> PILImage.Image:
    """A four-byte ``mode`` image whose stored words are ``words`` (one per pixel)."""
    data = np.ascontiguousarray(np.asarray(words, dtype="<u4")).tobytes()
    image = PILImage.new(mode, size)
    image.im.paste(PILImage.frombytes("RGBX", size, data).im, (0, 0, *size))
    return image


def band_bytes(mode: str) -> tuple[int, ...]:
    """The stored byte of each band of native ``mode``, in band order (LA: ``(0, 3)``)."""
    owned = [(band, byte) for byte, band in enumerate(BYTE_BANDS[mode]) if band is not None]
    return tuple(byte for _, byte in sorted(owned))


def band_mask(mode: str) -> int:
    """Bit ``j`` set for each stored byte ``j`` a band of native ``mode`` owns."""
    return sum(1 << byte for byte in band_bytes(mode))


def to_words(image: PILImage.Image) -> npt.NDArray[np.uint32]:
    """Return the pixels of ``image`` (a native, indexed or wide mode) as one u32 per pixel."""
    if image.mode in WIDE16_MODES:
        return np.frombuffer(image.tobytes(), dtype=_WIDE16_DTYPES[image.mode]).astype(np.uint32)
    if image.mode in ("I", "F"):  # the native int32 / float32 bits
        return np.frombuffer(image.tobytes(), dtype=np.uint32).copy()
    if image.mode in INDEXED_MODES:
        stored = bilevel_bytes(image) if image.mode == "1" else image.tobytes()
        return np.frombuffer(stored, dtype=np.uint8).astype(np.uint32) * np.uint32(0x01010101)
    if image.mode == "L":
        return np.frombuffer(image.tobytes(), dtype=np.uint8).astype(np.uint32)
    if image.mode in _PASTED_MODES:
        return words_of_image(image)
    if image.mode in PAIR_MODES:
        pairs = np.frombuffer(image.tobytes("raw", image.mode), dtype=np.uint8).reshape(-1, 2)
        gray = pairs[:, 0].astype(np.uint32)
        alpha = pairs[:, 1].astype(np.uint32)
        words = gray | (gray << 8) | (gray << 16) | (alpha << 24)
        return np.asarray(words, dtype=np.uint32)
    raw = image.tobytes("raw", _WORD_RAWMODES.get(image.mode, image.mode))
    return np.frombuffer(raw, dtype="<u4").copy()


def upload_nbytes(mode: str, size: tuple[int, int]) -> int:
    """Bytes an upload of a ``mode`` image moves: :func:`upload_bytes`' length."""
    per_pixel = PACKED_UPLOADS[mode][0] if mode in PACKED_UPLOADS else 4
    return -(-size[0] * size[1] * per_pixel // 4) * 4


def bilevel_bytes(image: PILImage.Image) -> bytes:
    """A 1 image's stored bytes as they are: 0/255 from decoders and conversions, any value a
    ``point`` table, a fill or a drawing gave (its ``"L"`` packer would make them 0/255)."""
    view = stored_view(image)
    if view is not None:
        return bytes(view)
    carrier = PILImage.new("L", image.size, None)  # storage in several blocks: copy the bytes
    carrier.im.paste(image.im, (0, 0, *image.size))
    return carrier.tobytes()


def upload_bytes(image: PILImage.Image) -> bytes | memoryview:
    """The bytes of an upload of ``image``: Pillow's stored bytes, padded to four bytes.

    Packed modes (:data:`PACKED_UPLOADS`) are widened by the ``unpack`` kernel; the others are
    already one little-endian word per pixel (RGB and YCbCr with their padding byte, I and F
    native). Where those bytes are Pillow's storage itself and need no padding, this is a
    read-only view of the image's memory (:mod:`~pillow_gpu._pillow_memory`), not a copy; an
    image whose rows lie in several blocks is copied once by Pillow's paste.
    """
    mode = image.mode
    if mode in STORED_UPLOADS and sys.byteorder == "little":
        view = stored_view(image)
        if view is not None and view.nbytes % 4 == 0:
            return view
        if view is None:  # rows in several blocks: one copy by Pillow's paste
            pasted = pasted_copy(image)
            if pasted is not None:
                return pasted
    if mode in _WORD_RAWMODES:
        return image.tobytes("raw", _WORD_RAWMODES[mode])
    if mode in _PASTED_MODES:
        return words_of_image(image).tobytes()
    if mode == "1":
        data = bilevel_bytes(image)
    elif mode in PAIR_MODES:
        data = image.tobytes("raw", mode)
    elif mode in ("I", "F") and sys.byteorder != "little":  # pragma: no cover
        return to_words(image).astype("<u4").tobytes()
    else:
        data = image.tobytes()
    pad = -len(data) % 4
    return data + bytes(pad) if pad else data


def ink(mode: str, color: object) -> int:
    """Pillow's stored word for ``color`` in ``mode`` (as ``Image.new`` would fill it)."""
    return int(to_words(PILImage.new(mode, (1, 1), color))[0])  # type: ignore[arg-type]


def stored_nbytes(mode: str, size: tuple[int, int]) -> int:
    """Length of Pillow's ``tobytes()`` for a ``mode`` image of ``size``."""
    if mode == "1":  # packed bits, rows padded to a byte
        return -(-size[0] // 8) * size[1]
    return size[0] * size[1] * _STORED_BYTES[mode]


#: Modes whose terminal bytes are one byte per pixel (``pack_l``: byte 0 of each word); a 1
#: result comes back as Pillow's stored 0/255 bytes, a P result as its indices.
BYTE_TERMINALS = ("L", "P", "1")


def terminal_nbytes(mode: str, size: tuple[int, int]) -> int:
    """Bytes the terminal copy moves (L, P, 1 one byte, I;16* and pair modes two bytes per
    pixel, padded to words; others four per pixel)."""
    pixels = size[0] * size[1]
    if mode in BYTE_TERMINALS:
        return -(-pixels // 4) * 4
    if mode in WIDE16_MODES or mode in PAIR_MODES:
        return -(-pixels // 2) * 4
    return pixels * 4


def image_from_terminal(
    mode: str,
    size: tuple[int, int],
    data: memoryview | bytes,
    palette: PaletteState | PILImage.Image | None = None,
) -> PILImage.Image:
    """Build the ``PIL.Image.Image`` from terminal bytes (read-only input, copied once).

    A P or PA result gets ``palette``, Pillow's palette state of the result; an L, 1, I or F
    result the palette an image ``palette`` keeps inside (:mod:`pillow_gpu._palette_inside`);
    a result of another mode a copy of the palette object an image ``palette`` holds.
    """
    pixels = size[0] * size[1]
    if mode in POINTED_MODES:  # an image of these modes can keep a palette inside
        bearer = palette if isinstance(palette, PILImage.Image) else None
        return with_palette_inside(_pointed_image(mode, size, data, pixels), bearer)
    if isinstance(palette, PILImage.Image) and palette.palette is not None:
        image = image_from_terminal(mode, size, data)
        image.palette = palette.palette.copy()  # the palette object a GIF frame holds
        return image
    if mode == "P":
        image = PILImage.frombytes("P", size, data[:pixels])
        if isinstance(palette, PaletteState):
            palette.apply(image)
        return image
    if mode in WIDE16_MODES:  # already in the mode's byte order (pack16)
        return _filled(mode, size, data[: pixels * 2], mode)
    if mode in PAIR_MODES:  # the two bands of each pixel (pack16)
        image = _filled(mode, size, data[: pixels * 2], mode)
        if mode == "PA" and isinstance(palette, PaletteState):
            palette.apply(image)
        return image
    words = data[: pixels * 4]
    if mode in _PASTED_MODES:
        return image_of_words(mode, size, np.frombuffer(words, dtype="<u4"))
    return _filled(mode, size, words, _WORD_RAWMODES.get(mode, mode))


def _pointed_image(
    mode: str, size: tuple[int, int], data: memoryview | bytes, pixels: int
) -> PILImage.Image:
    """An L, 1, I or F image of terminal bytes."""
    if mode == "L":
        return _filled("L", size, data[:pixels], "L")
    if mode == "1":  # Pillow's stored bytes: 0/255 mostly, any value after point, fills
        return _stored_bilevel(size, data[:pixels])
    rawmode = "I;32" if mode == "I" else "F;32F"  # little-endian words
    return _filled(mode, size, data[: pixels * 4], rawmode)


def _stored_bilevel(size: tuple[int, int], data: memoryview | bytes) -> PILImage.Image:
    """A 1 image storing ``data`` as they are: Pillow keeps any byte a ``point`` table, a fill
    or ``putpixel`` gave it (``getpixel`` returns it; ``tobytes`` packs "not zero"), which its
    raw decoders would turn into 0/255."""
    image = PILImage.new("1", size, None)
    if not fill_storage(image, data):  # storage in several blocks: paste an L copy's bytes
        image.im.paste(PILImage.frombytes("L", size, data).im, (0, 0, *size))
    return image


def _filled(
    mode: str, size: tuple[int, int], data: memoryview | bytes, rawmode: str
) -> PILImage.Image:
    """``PIL.Image.frombytes(mode, size, data, "raw", rawmode)`` without first zeroing the new
    image (``Image.new(..., None)`` leaves it uninitialised; the raw decoder fills every byte).

    Where the raw decode is a plain copy (:func:`_raw_is_copy`), a small image is Pillow's C
    copy of an image over ``data``, and a large one is filled by one copy into its storage,
    split across threads where that is faster (:func:`~pillow_gpu._pillow_memory.fill_storage`)."""
    if not size[0] or not size[1]:
        return PILImage.frombytes(mode, size, data, "raw", rawmode)
    stored = _raw_is_copy(mode, rawmode)  # then ``data`` is the storage's rows, end to end
    if stored and len(data) < MIN_SPLIT_BYTES and not len(data) % size[1]:
        # An image over ``data`` (``map_buffer``, what ``frombuffer`` uses), copied by
        # Pillow's C copy into storage of its own: about 4 us against 6.6 for new() and the
        # raw decoder (a 256x256 L result), whose setup runs in Python.
        stride = len(data) // size[1]
        mapped = PILImage.core.map_buffer(data, size, "raw", 0, (mode, stride, 1))
        return _TEMPLATE._new(mapped.copy())
    image = PILImage.new(mode, size, None)
    if len(data) < MIN_SPLIT_BYTES or not stored or not fill_storage(image, data):
        image.frombytes(data, "raw", rawmode)
    return image


#: An empty image whose ``_new`` wraps a core image as Pillow's own methods do (with no info
#: and no palette); never handed out, so one serves every result.
_TEMPLATE = PILImage.Image()


@functools.cache
def _raw_is_copy(mode: str, rawmode: str) -> bool:
    """True when Pillow's raw decoder of ``rawmode`` into a ``mode`` image stores exactly the
    bytes it is given (probed once on a small image with every byte distinct)."""
    if mode not in STORED_UPLOADS:
        return False
    probe = PILImage.new(mode, (7, 3), None)
    view = stored_view(probe)
    if view is None:
        return False
    data = bytes((37 * index + 11) % 256 for index in range(len(view)))
    try:
        probe.frombytes(data, "raw", rawmode)
    except (ValueError, OSError):  # not a raw mode of this image, or too few bytes
        return False
    stored = stored_view(probe)
    return stored is not None and bytes(stored) == data
