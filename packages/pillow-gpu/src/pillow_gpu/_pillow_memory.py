"""Pillow's own pixel memory, read in place through its Arrow C data interface.

``PIL.Image.Image.__arrow_c_array__`` (Pillow 11.2 and later) exports an image's storage
without a copy: one ``uint8``, ``int16``, ``int32`` or ``float32`` per pixel, or four ``uint8``
per pixel for the four-byte modes (RGB and YCbCr with their padding byte, LA with its bytes 1
and 2). An upload whose bytes are exactly that storage (:data:`STORED_UPLOADS`) is then written
to the device straight from Pillow's memory instead of through ``tobytes()``, which runs the raw
encoder over every line and copies the image once more (for a 1024x1024 RGB image about
0.5 ms against a few microseconds).

Pillow refuses the export when the image's rows are not one contiguous block (an image larger
than Pillow's block size); :func:`stored_view` then returns None, and :func:`pasted_copy`
copies the rows with Pillow's paste instead. A result image is filled the same way
(:func:`fill_storage`) where its bytes are exactly the storage's.

A lazy leaf keeps a private copy: :func:`stored_snapshot` copies the storage once into a
read-only :class:`~pillow_gpu._snapshot.Snapshot` (padded to whole words, exactly the upload's
bytes, in a recycled buffer), cheaper than ``Image.copy()`` and uploaded as it is (Pillow's
own paste into an image over the buffer under 1 MiB, the export and a split copy above);
:func:`image_of_snapshot` rebuilds the Pillow image from it, byte for byte (RGB's padding byte
included), for the CPU paths.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

import numpy as np
from PIL import Image as PILImage

from pillow_gpu._copy import MIN_SPLIT_BYTES, copy_memory
from pillow_gpu._snapshot import Snapshot

__all__ = [
    "SNAPSHOT_RAWMODES",
    "STORED_UPLOADS",
    "fill_storage",
    "image_of_snapshot",
    "pasted_copy",
    "stored_snapshot",
    "stored_view",
    "stored_word",
]

#: Modes whose upload bytes are their Pillow storage, with the Arrow format Pillow exports
#: (``+w:4`` a fixed-size list of four ``uint8``; the others one value per pixel).
STORED_UPLOADS: dict[str, bytes] = {
    "L": b"C",
    "P": b"C",
    "1": b"C",
    "I;16": b"s",
    "I;16L": b"s",
    "I;16B": b"s",
    "I": b"i",
    "F": b"f",
    "RGB": b"+w:4",
    "RGBA": b"+w:4",
    "RGBX": b"+w:4",
    "CMYK": b"+w:4",
    "YCbCr": b"+w:4",
    "RGBa": b"+w:4",
}

_BYTES_PER_PIXEL = {b"C": 1, b"s": 2, b"i": 4, b"f": 4, b"+w:4": 4}

#: Modes a lazy leaf keeps as :func:`stored_snapshot` bytes, with the raw mode that unpacks
#: those bytes into the same storage (little-endian words; RGB and YCbCr with their fourth
#: byte). P and 1 are not among them: their images carry a palette or bit semantics too.
SNAPSHOT_RAWMODES: dict[str, str] = {
    "L": "L",
    "I;16": "I;16",
    "I;16L": "I;16L",
    "I;16B": "I;16B",
    "I": "I;32",
    "F": "F;32F",
    "RGB": "RGBX",
    "RGBA": "RGBA",
    "RGBX": "RGBX",
    "CMYK": "CMYK",
    "YCbCr": "YCbCrX",
    "RGBa": "RGBa",
}


class _ArrowSchema(ctypes.Structure):
    pass


_ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(_ArrowSchema))),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


class _ArrowArray(ctypes.Structure):
    pass


_ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(_ArrowArray))),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _data_address(array: _ArrowArray, pixels: int, nested: bool) -> int | None:
    """The data buffer's address of an exported image, or None if the layout is unexpected."""
    if nested:
        if array.n_children != 1 or array.length != pixels or array.offset != 0:
            return None
        array = array.children[0].contents
        pixels *= 4
    if array.n_buffers != 2 or array.length != pixels or array.offset != 0:
        return None
    address = array.buffers[1]
    return int(address) if address else None


def _stored_block(
    image: PILImage.Image, expected: bytes | None = None
) -> tuple[int, int, tuple[Any, Any]] | None:
    """(address, byte count, export capsules) of ``image``'s one storage block, or None.

    The memory stays valid while the returned capsules live. Only modes of
    :data:`STORED_UPLOADS` are read (or any mode exported as ``expected``); every layout
    detail is checked against what the mode stores, so an unexpected export is never misread.
    """
    expected = STORED_UPLOADS.get(image.mode) if expected is None else expected
    if expected is None:
        return None
    try:
        schema_capsule, array_capsule = image.__arrow_c_array__()
    except (AttributeError, ValueError):  # no Arrow export, or rows in several blocks
        return None
    schema = _ArrowSchema.from_address(_capsule_pointer(schema_capsule, b"arrow_schema"))
    if schema.format != expected:
        return None
    nested = expected == b"+w:4"
    if nested and (schema.n_children != 1 or schema.children[0].contents.format != b"C"):
        return None
    array = _ArrowArray.from_address(_capsule_pointer(array_capsule, b"arrow_array"))
    width, height = image.size
    pixels = width * height
    address = _data_address(array, pixels, nested)
    nbytes = pixels * _BYTES_PER_PIXEL[expected]
    if address is None or nbytes == 0:
        return None
    return address, nbytes, (schema_capsule, array_capsule)


def stored_view(image: PILImage.Image) -> memoryview | None:
    """A read-only byte view of ``image``'s storage, or None where Pillow cannot export it.

    The view keeps the export (and with it the image's memory) alive for as long as it lives.
    """
    block = _stored_block(image)
    if block is None:
        return None
    address, nbytes, export = block
    data: Any = (ctypes.c_uint8 * nbytes).from_address(address)
    data.export = export  # released with the view
    return memoryview(data).cast("B").toreadonly()


def fill_storage(image: PILImage.Image, data: memoryview | bytes) -> bool:
    """Copy ``data`` into ``image``'s storage when that is one exportable block of exactly
    ``len(data)`` bytes (large copies split across threads, :mod:`pillow_gpu._copy`); False,
    with nothing written, otherwise. The caller knows ``data`` is the storage's bytes."""
    block = _stored_block(image)
    if block is None:
        return False
    address, nbytes, _export = block  # the export keeps the storage alive during the copy
    source = np.frombuffer(data, dtype=np.uint8)
    if source.nbytes != nbytes:
        return False
    copy_memory(address, source.ctypes.data, nbytes)
    return True


def stored_word(image: PILImage.Image) -> int | None:
    """The four stored bytes of pixel (0, 0) of a four-byte-mode ``image`` as a little-endian
    word (LA's and La's bytes 1 and 2 included, which ``tobytes()`` leaves out), or None where
    Pillow does not export it as four bytes per pixel."""
    block = _stored_block(image, b"+w:4")
    if block is None or sys.byteorder != "little":
        return None
    address, _nbytes, _export = block  # the export keeps the storage alive during the read
    return int(ctypes.c_uint32.from_address(address).value)


def stored_snapshot(image: PILImage.Image) -> Snapshot | None:
    """A copy of a loaded ``image``'s storage, padded with zeros to whole 4-byte words (the
    bytes its upload sends), or None where the mode is not in :data:`SNAPSHOT_RAWMODES`, the
    storage is not one exportable block, or this machine is big-endian."""
    mode = image.mode
    if mode not in SNAPSHOT_RAWMODES or sys.byteorder != "little":
        return None
    width, height = image.size
    stride = width * _BYTES_PER_PIXEL[STORED_UPLOADS[mode]]
    nbytes = stride * height
    if 0 < nbytes < MIN_SPLIT_BYTES:
        # Pillow's paste of one image into another of its mode copies each row's stored
        # bytes; the target is an image over the snapshot's buffer. No export to parse: about
        # 2 us against 5 for a 256x256 L image, whose copy one thread does best.
        image.load()  # as the export does: a file's pixels are read first
        source = image.im
        return Snapshot.written(
            nbytes, nbytes + -nbytes % 4, lambda buffer: _paste_into(buffer, source, stride)
        )
    # Rows in several blocks: None, and the leaf keeps ``image.copy()``, which the CPU paths
    # use as it is (a snapshot would be decoded into a new image at each of them).
    block = _stored_block(image)
    if block is None:
        return None
    address, nbytes, _export = block  # the export keeps the storage alive during the copy
    return Snapshot.copy_of(address, nbytes, nbytes + -nbytes % 4)


def pasted_copy(image: PILImage.Image) -> memoryview | None:
    """A read-only copy of a loaded ``image``'s storage, padded with zeros to whole 4-byte
    words, made by Pillow's paste row by row: for an image whose rows lie in several blocks
    (larger than Pillow's block size), which :func:`stored_view` cannot export. None for modes
    outside :data:`STORED_UPLOADS`, for 1 (Pillow maps no buffer as a 1 image), an empty image,
    or a big-endian machine.

    A 24 MP RGB photo: about 24 ms, against 97 for ``tobytes("raw", "RGBX")``, whose raw
    encoder runs over every line and whose chunks are joined once more.
    """
    expected = STORED_UPLOADS.get(image.mode)
    if expected is None or image.mode == "1" or sys.byteorder != "little":
        return None
    width, height = image.size
    stride = width * _BYTES_PER_PIXEL[expected]
    nbytes = stride * height
    if not nbytes:
        return None
    buffer = np.empty(nbytes + -nbytes % 4, dtype=np.uint8)
    buffer[nbytes:] = 0
    _paste_into(buffer, image.im, stride)
    return memoryview(buffer).toreadonly()


def _paste_into(buffer: Any, source: Any, stride: int) -> None:
    """Pillow's paste of the core image ``source`` into an image of its mode laid over
    ``buffer`` (``map_buffer``, what ``frombuffer`` uses; alive only during the call)."""
    size = source.size
    target = PILImage.core.map_buffer(buffer, size, "raw", 0, (source.mode, stride, 1))
    target.paste(source, (0, 0, *size))


def image_of_snapshot(mode: str, size: tuple[int, int], data: Snapshot | bytes) -> PILImage.Image:
    """The ``mode`` image of ``size`` whose storage :func:`stored_snapshot` copied to ``data``."""
    nbytes = size[0] * size[1] * _BYTES_PER_PIXEL[STORED_UPLOADS[mode]]
    return PILImage.frombytes(mode, size, memoryview(data)[:nbytes], "raw", SNAPSHOT_RAWMODES[mode])
