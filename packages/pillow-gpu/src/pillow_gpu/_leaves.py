"""Leaves of a graph: the nodes ``Image.open``, ``Image.new`` and ``from_pil`` record.

An ``open`` leaf holds the file (its path or bytes) and the header read now (mode, size, info,
palette); it decodes when the graph is evaluated (a file whose header says no mode, an ICNS
icon, is loaded at open too, so the leaf has the mode Pillow's load gives; a file whose load
leaves pixels of another mode than it says is marked, :func:`loads_in_another_mode`). A ``pil`` leaf
holds a copy of a PIL image's pixels as they are at the call, so a graph never changes with
its source. A ``new`` leaf holds the colour and is filled on the device.
:mod:`pillow_gpu.Image` wraps them in handles.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Mapping
from typing import IO, Any, Literal, cast

from PIL import Image as PILImage
from PIL import ImageFile, PngImagePlugin

from pillow_gpu._cpu import loaded_pixels, with_palette_of
from pillow_gpu._graph import Node, failed_leaf
from pillow_gpu._handed_exif import ORIENTATION
from pillow_gpu._kept_header import KeptHeader
from pillow_gpu._load_info import loaded_info, tiff_orientation
from pillow_gpu._opened_file import OpenedFile, opened_file
from pillow_gpu._palette_inside import keeps_palette_inside
from pillow_gpu._pillow_memory import stored_snapshot
from pillow_gpu._png_tail import late_metadata, late_metadata_in
from pillow_gpu._tiff_tags import TiffDirectories, header_directories
from pillow_gpu._transposed_info import EXIF_INFO_KEYS

__all__ = ["frame_node", "new_node", "open_node", "pil_node", "stray_palette_bearer"]


def pil_node(image: PILImage.Image) -> Node:
    """The leaf of a private copy of ``image``'s pixels as they are now.

    Most modes keep a copy of Pillow's storage (the bytes the upload sends,
    :func:`~pillow_gpu._pillow_memory.stored_snapshot`); the others ``image.copy()``, and so
    does an image that keeps a palette inside (:mod:`pillow_gpu._palette_inside`), whose copy
    keeps it too, and an image of another mode than P or PA that holds a palette object (a
    GIF frame after the first), whose copy is given it (and a P image without one keeps none,
    :func:`~pillow_gpu._cpu.with_palette_of`).
    """
    if not isinstance(image, PILImage.Image):
        msg = f"from_pil() needs a PIL.Image.Image; observed {type(image).__name__}"
        raise TypeError(msg)
    image.load()
    stray = image.mode not in ("P", "PA") and image.palette is not None
    stored = None if stray or keeps_palette_inside(image) else stored_snapshot(image)
    if stored is not None:
        return Node(
            op="pil",
            params={"stored": stored},
            mode=image.mode,
            size=image.size,
            info=_copied_info(image),
        )
    copy = with_palette_of(image.copy(), image)
    info = cast("Mapping[str, Any]", copy.info)
    return Node(op="pil", params={"image": copy}, mode=copy.mode, size=copy.size, info=info)


def stray_palette_bearer(node: Node) -> PILImage.Image | None:
    """The image of ``from_pil`` leaf ``node`` where it holds a palette object in another mode
    than P or PA (see :func:`pil_node`), else None."""
    if node.op != "pil":
        return None
    kept = node.params.get("image")
    if kept is None or kept.palette is None or kept.mode in ("P", "PA"):
        return None
    return cast("PILImage.Image", kept)


def frame_node(image: PILImage.Image) -> Node:
    """:func:`pil_node` of the frame Pillow's ``image`` was just sought to; where that frame
    cannot be loaded (a file cut short or damaged inside it), a leaf of the frame's mode, size
    and ``info`` as the seek set them that raises Pillow's error at its first use, as Pillow's
    image raises it at the first use of that frame and not at the seek."""
    mode, size, info = image.mode, image.size, _copied_info(image)
    try:
        return pil_node(image)
    except Exception as error:  # what Pillow's load raises for this frame, raised again later
        return failed_leaf(error, mode, size, info)


def _copied_info(image: PILImage.Image) -> Mapping[str, Any]:
    """``image.info`` copied as Pillow's ``copy()`` copies it (the dict and each list in it)."""
    copied = {
        key: list(value) if isinstance(value, list) else value for key, value in image.info.items()
    }
    return cast("Mapping[str, Any]", copied)  # Pillow types some keys as (int, int)


def new_node(
    mode: str, size: tuple[int, int], color: float | str | tuple[float, ...] | None = 0
) -> Node:
    """The leaf of ``PIL.Image.new`` (Pillow's checks run now on a 1x1 image)."""
    PILImage.new(mode, (1, 1), color)
    if len(size) != 2 or size[0] < 0 or size[1] < 0:
        PILImage.new(mode, size, color)  # Pillow raises its own error for the size
    width, height = (int(value) for value in size)
    return Node(op="new", params={"color": color}, mode=mode, size=(width, height))


def _header_palette(
    header: PILImage.Image,
) -> tuple[str, str | None, bytes | tuple[int, ...]] | None:
    """The header's palette as (mode, rawmode, data), for GPU tables planned before decode:
    its bytes, or the values as Pillow holds them where they are no bytes (a TIFF colour map
    whose entries' type was written wrong: Pillow opens it, and its load raises)."""
    palette = header.palette
    if palette is None or header.mode not in ("P", "PA"):
        return None
    try:
        data: bytes | tuple[int, ...] = bytes(palette.palette)
    except (ValueError, TypeError):
        data = tuple(palette.palette)
    return palette.mode, palette.rawmode, data


def _orientation_read_at_open(header: PILImage.Image) -> tuple[Any] | None:
    """``(header.getexif().get(ORIENTATION, 1),)`` where the plugin parsed the EXIF while
    opening (the JPEG plugin does, for the DPI): every later open of the file then reports the
    same, whatever edits of ``info`` follow, so ``ImageOps.exif_transpose`` need not open it
    again. None where asking would parse now (other formats, or no EXIF read yet)."""
    exif = getattr(header, "_exif", None)
    if (
        exif is None
        or not exif._loaded
        or hasattr(header, "tag_v2")  # a TIFF: its plugin turns the pixels while loading
        or type(header).getexif is not PILImage.Image.getexif
    ):
        return None
    return (header.getexif().get(ORIENTATION, 1),)


def _exif_only_from_info(header: PILImage.Image, exif_at_open: Any, late: tuple[str, ...]) -> bool:
    """True where Pillow's ``getexif()`` of the opened ``header`` reads nothing but its
    ``info`` (Pillow's own ``Image.getexif``, no EXIF parsed while opening, no TIFF tags), so
    that ``ImageOps.exif_transpose`` finds the orientation in the ``info`` as it stands,
    edits included, without opening the file again. A PNG's ``getexif`` loads the file first
    where the info has no ``exif``, which adds nothing where no chunk follows the pixels
    (``late`` empty)."""
    getexif = type(header).getexif
    plain = getexif is PILImage.Image.getexif or (
        getexif is PngImagePlugin.PngImageFile.getexif and not late
    )
    return (
        plain
        and exif_at_open is None
        and header.format not in _PLACEHOLDER_MODES
        and not hasattr(header, "tag_v2")
    )


class _Named(io.BytesIO):
    """The bytes of a caller's file object, shown as that object: Pillow names the object it
    was given in ``cannot identify image file ...``, and so do we."""

    def __init__(self, data: bytes, shown: object) -> None:
        super().__init__(data)
        self._shown = shown

    def __repr__(self) -> str:
        return repr(self._shown)


#: Formats whose opened image says a mode it has not read: Pillow's ICNS reader says RGBA until
#: it decodes the icon, which may be RGB (no mask, or a mask lost to damage) or any mode of a
#: PNG icon. Such a file is loaded at open, so its leaf has the mode its operations start from.
_PLACEHOLDER_MODES = frozenset({"ICNS"})


def _palette_applied_at_load(header: PILImage.Image) -> bool:
    """Whether Pillow's load will put ``header``'s palette on L or LA pixels, making them P or
    PA while the image still says L or LA: a GIF whose global palette is in colour and whose
    first frame has a grey palette of its own (Pillow writes such files: an L image saved with
    ``include_color_table=True``). ``Image.load`` applies a palette not yet applied (dirty)."""
    palette = header.palette
    return header.mode in ("L", "LA") and palette is not None and bool(palette.dirty)


def loads_in_another_mode(node: Node) -> bool:
    """Whether ``node`` is an opened file whose load leaves pixels of another mode than it says
    (marked at open): Pillow's operations on it read those pixels (a crop or copy says P, a
    filter raises "cannot filter palette images"), so they run with Pillow at the call
    (:func:`pillow_gpu._empty.completed_if_empty`)."""
    return node.op == "open" and "loads_in_another_mode" in node.params


def _read_file_object(fp: IO[bytes]) -> tuple[bytes, object | None]:
    """A file object's whole file, read as ``PIL.Image.open`` reads it: from the start where it
    can seek (a caller may have read some of it already, or written it and not rewound), else
    from where it stands; and the object to name in errors (None where it could not seek, as
    Pillow then names a copy of its bytes)."""
    try:
        fp.seek(0)
    except (AttributeError, io.UnsupportedOperation):
        return fp.read(), None
    return fp.read(), fp


def open_node(
    fp: str | bytes | os.PathLike[str] | os.PathLike[bytes] | IO[bytes],
    mode: Literal["r"] = "r",
    formats: list[str] | tuple[str, ...] | None = None,
) -> tuple[Node, OpenedFile, TiffDirectories | None]:
    """The leaf of ``PIL.Image.open`` from the header (read now), the file's format, and a
    TIFF's tag directories as the header read them (pillow_gpu._tiff_tags)."""
    data: bytes | None = None
    path: str | bytes | None = None
    if isinstance(fp, (str, bytes, os.PathLike)):  # a path, as Pillow's is_path takes it
        path = os.fspath(fp)
        source: Any = path
    else:
        if isinstance(fp, io.TextIOBase):  # str, not bytes: Pillow identifies nothing in it
            PILImage.open(fp, mode, formats).close()  # raises Pillow's own error
        data, shown = _read_file_object(fp)
        source = io.BytesIO(data) if shown is None else _Named(data, shown)
    with PILImage.open(source, mode, formats) as header:
        exif_at_open = getattr(header, "_exif", None)  # read below; a kept header gets it back
        # A plugin whose open loads the pixels (ICO's, its largest icon): Pillow's image holds
        # them from here on, and so does the leaf (its first use decodes nothing again).
        loaded_at_open = getattr(header, "_im", None) is not None
        if header.format in _PLACEHOLDER_MODES:
            with contextlib.suppress(Exception):  # Pillow's first operation raises then too
                header.load()
        # A PNG's metadata after its pixels, which Pillow applies only while loading
        # (pillow_gpu._png_tail): kept with the leaf for exif_transpose and the planner.
        png = header.format == "PNG"
        if png and isinstance(header, ImageFile.ImageFile) and header.fp is not None:
            # The file Pillow has open, walked again (an animation to its next frame).
            late = late_metadata_in(header.fp, animated=bool(getattr(header, "is_animated", False)))
        else:
            late = late_metadata(path, data) if png else ()
        params: dict[str, Any] = {
            "path": path,
            "data": data,
            "format": header.format,
            "encoded_nbytes": len(data) if data is not None else os.path.getsize(path or b""),
            "palette": _header_palette(header),
            "late": late,
        }
        if _palette_applied_at_load(header):
            params["loads_in_another_mode"] = True
        if type(header).draft is not PILImage.Image.draft:  # Pillow's JPEG and MPO plugins
            params["drafts"] = True
        orientation = _orientation_read_at_open(header)
        if orientation is not None:
            params["opened_orientation"] = orientation
            if header.format in ("JPEG", "MPO"):  # its plugin's DPI step parsed it
                # What that parse read, for getexif() (pillow_gpu._queries): every later
                # answer is the Exif parsed then, whatever edits of info follow.
                params["exif_at_open"] = {
                    key: header.info[key] for key in EXIF_INFO_KEYS if key in header.info
                }
        elif _exif_only_from_info(header, exif_at_open, late):
            params["exif_from_info"] = True
        if header.format == "TIFF":  # what its load turns by (pillow_gpu._load_info)
            params["load_orientation"] = tiff_orientation(header)
            # The file's own tag, which sized the header (the handle's directories, shared
            # with a kept header, lose it where the handle is used: Pillow's load deletes it).
            params["orientation_tag"] = getattr(header, "tag_v2", {}).get(ORIENTATION)
        info = cast("Mapping[str, Any]", dict(header.info))
        file_format = opened_file(header, path, data)
        # Almost every operation loads first, so the leaf's node carries the loaded info
        # (what they start from, pillow_gpu._load_info); the handle shows the header's
        # ("header_info") until it is loaded, as Pillow's. Without "header_info" the node has
        # the header's only. The header is read on last (a PNG's load_end changes its info,
        # and a WebP or AVIF file its walks cannot read is loaded).
        directories = header_directories(header)
        loaded = loaded_info(header.format, path, data, info, late, opened=header)
        if loaded is not None:
            params["header_info"] = info  # a copy already
            info = loaded
        # The first draft or decode goes on from the header.
        kept = KeptHeader.of(header, exif_at_open)
        if kept is not None:
            params["kept_header"] = kept
        node = Node(op="open", params=params, mode=header.mode, size=header.size, info=info)
        pixels = header.im if loaded_at_open and loaded is None else None
        if pixels is not None and (pixels.mode, pixels.size) == (header.mode, header.size):
            node.cache.put(loaded_pixels(header))
        return node, file_format, directories
