"""Leaves of a graph: the lazy ``PIL.Image`` constructors (``open``, ``new``, ``from_pil``,
``frombytes``, ``frombuffer``, ``fromarray``, ``fromarrow``, the gradients).

``open`` reads the header now and decodes when the graph is evaluated; the others copy the
pixels they are given now (as Pillow's constructors unpack them at once), so a graph never
changes with its source. :mod:`pillow_gpu.Image` re-exports every one of them.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any, Literal, cast

from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu._pillow_memory import stored_snapshot

if TYPE_CHECKING:
    from pillow_gpu.Image import Image

__all__ = [
    "from_pil",
    "fromarray",
    "fromarrow",
    "frombuffer",
    "frombytes",
    "linear_gradient",
    "new",
    "open",
    "radial_gradient",
]


def _image(node: Node, file_format: tuple[str | None, str | None] = (None, None)) -> Image:
    """A handle on ``node`` (``pillow_gpu.Image`` imports this module, so it is read here)."""
    from pillow_gpu.Image import Image

    return Image(node, file_format)


def from_pil(image: PILImage.Image) -> Image:
    """Wrap a private copy of a ``PIL.Image.Image`` as a lazy leaf.

    The copy is of the pixels as they are now: changing ``image`` afterwards changes no graph
    recorded from it. Most modes keep it as a copy of Pillow's storage (the bytes the upload
    sends, :func:`~pillow_gpu._pillow_memory.stored_snapshot`); the others as ``image.copy()``.
    """
    if not isinstance(image, PILImage.Image):
        msg = f"from_pil() needs a PIL.Image.Image; observed {type(image).__name__}"
        raise TypeError(msg)
    image.load()
    stored = stored_snapshot(image)
    if stored is not None:
        # Pillow's copy() copies the info dict and each list in it; so does this.
        copied = {
            key: list(value) if isinstance(value, list) else value
            for key, value in image.info.items()
        }
        kept = cast("Mapping[str, Any]", copied)  # Pillow types some keys as (int, int)
        node = Node(
            op="pil", params={"stored": stored}, mode=image.mode, size=image.size, info=kept
        )
        return _image(node)
    copy = image.copy()
    info = cast("Mapping[str, Any]", copy.info)
    return _image(Node(op="pil", params={"image": copy}, mode=copy.mode, size=copy.size, info=info))


def new(
    mode: str, size: tuple[int, int], color: float | str | tuple[float, ...] | None = 0
) -> Image:
    """Record ``PIL.Image.new``: a constant image, filled on the device when evaluated."""
    PILImage.new(mode, (1, 1), color)
    if len(size) != 2 or size[0] < 0 or size[1] < 0:
        PILImage.new(mode, size, color)  # Pillow raises its own error for the size
    width, height = (int(value) for value in size)
    return _image(Node(op="new", params={"color": color}, mode=mode, size=(width, height)))


def frombytes(
    mode: str, size: tuple[int, int], data: bytes, decoder_name: str = "raw", *args: Any
) -> Image:
    """``PIL.Image.frombytes``: the bytes are unpacked at once, as Pillow does."""
    return from_pil(PILImage.frombytes(mode, size, data, decoder_name, *args))


def frombuffer(
    mode: str, size: tuple[int, int], data: Any, decoder_name: str = "raw", *args: Any
) -> Image:
    """``PIL.Image.frombuffer``: a copy of the buffer's pixels now (Pillow may share the
    buffer; a graph never changes, so it copies)."""
    return from_pil(PILImage.frombuffer(mode, size, data, decoder_name, *args))


def fromarray(obj: Any, mode: str | None = None) -> Image:
    """``PIL.Image.fromarray``: a NumPy (or array-interface) array, copied now."""
    return from_pil(PILImage.fromarray(obj, mode))


def fromarrow(obj: Any, mode: str, size: tuple[int, int]) -> Image:
    """``PIL.Image.fromarrow``: an Arrow array of pixels, copied now."""
    return from_pil(PILImage.fromarrow(obj, mode, size))


def linear_gradient(mode: str) -> Image:
    """``PIL.Image.linear_gradient``: Pillow's 256 x 256 gradient, as a leaf."""
    return from_pil(PILImage.linear_gradient(mode))


def radial_gradient(mode: str) -> Image:
    """``PIL.Image.radial_gradient``: Pillow's 256 x 256 gradient, as a leaf."""
    return from_pil(PILImage.radial_gradient(mode))


def _header_palette(header: PILImage.Image) -> tuple[str, str | None, bytes] | None:
    """The header's palette as (mode, rawmode, data), for GPU tables planned before decode."""
    palette = header.palette
    if palette is None or header.mode not in ("P", "PA"):
        return None
    return palette.mode, palette.rawmode, bytes(palette.palette)


def open(
    fp: str | os.PathLike[str] | IO[bytes],
    mode: Literal["r"] = "r",
    formats: list[str] | tuple[str, ...] | None = None,
) -> Image:
    """Lazy ``PIL.Image.open``: reads the header now, decodes only when evaluated."""
    data: bytes | None = None
    path: str | None = None
    if isinstance(fp, (str, os.PathLike)):
        path = os.fspath(fp)
        source: Any = path
    else:
        data = fp.read()
        source = io.BytesIO(data)
    with PILImage.open(source, mode, formats) as header:
        node = Node(
            op="open",
            params={
                "path": path,
                "data": data,
                "format": header.format,
                "encoded_nbytes": len(data) if data is not None else os.path.getsize(path or ""),
                "palette": _header_palette(header),
            },
            mode=header.mode,
            size=header.size,
            info=cast("Mapping[str, Any]", header.info),
        )
        return _image(node, (header.format, header.format_description))
