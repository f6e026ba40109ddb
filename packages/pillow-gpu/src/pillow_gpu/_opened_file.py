"""What a lazy image keeps of the file ``Image.open`` read, as Pillow's ``ImageFile`` keeps it.

Pillow's opened image stays that file object through its in-place edits: ``format``,
``format_description``, ``filename`` and ``get_format_mimetype()`` answer, JPEG, PNG and WebP
files have the legacy ``_getexif()``, a JPEG its ``quantization`` tables, and saving a JPEG
with ``quality="keep"``
(or ``subsampling``/``qtables="keep"``) reuses the quantization tables and chroma subsampling
its header gave. A lazy image's results are Pillow images that are no files, so the handle
keeps these answers in an :class:`OpenedFile` and :func:`kept_save_params` turns "keep" into
the header's values before Pillow saves, exactly as Pillow's JPEG encoder reads them.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple, cast

from PIL import Image as PILImage
from PIL import ImageFile, JpegImagePlugin

__all__ = [
    "GETEXIF_FORMATS",
    "NOT_A_FILE",
    "OpenedFile",
    "kept_save_params",
    "merged_exif",
    "opened_file",
]


class OpenedFile(NamedTuple):
    """The file an image was opened from; all None for an image that is no file."""

    format: str | None
    format_description: str | None
    #: The path opened ("" for a file object), as Pillow's ``ImageFile.filename``.
    filename: str | None
    #: A JPEG (or MPO) header's ``(subsampling, quantization)``: what ``"keep"`` asks for and
    #: ``quantization`` answers.
    jpeg_keep: tuple[int, dict[int, list[int]]] | None = None
    #: ``ImageFile.get_format_mimetype()`` of the header (a plugin's own, e.g. APNG's).
    mimetype: str | None = None


#: What a copy or an operation's result keeps: no file.
NOT_A_FILE = OpenedFile(None, None, None)


def opened_file(header: PILImage.Image, path: str | None) -> OpenedFile:
    """The :class:`OpenedFile` of a header Pillow has just opened from ``path`` (or bytes)."""
    keep = None
    if isinstance(header, JpegImagePlugin.JpegImageFile):  # MPO's too (quantization)
        quantization = getattr(header, "quantization", None) or {}
        keep = (JpegImagePlugin.get_sampling(header), dict(quantization))
    mimetype = header.get_format_mimetype() if isinstance(header, ImageFile.ImageFile) else None
    return OpenedFile(header.format, header.format_description, path or "", keep, mimetype)


#: Formats whose Pillow image has the legacy ``_getexif()`` (JPEG's, MPO's, PNG's, WebP's).
GETEXIF_FORMATS = frozenset({"JPEG", "MPO", "PNG", "WEBP"})


def merged_exif(image: Any) -> dict[int, Any] | None:
    """Pillow's legacy ``_getexif()`` of an opened JPEG, MPO, PNG or WebP ``image`` (a lazy
    handle): ``getexif()``'s IFDs merged into one dict, or None without EXIF in ``info`` (a
    PNG loads first, as Pillow's, for an ``eXIf`` chunk after its pixels)."""
    info = image.info
    if image.format == "PNG" and "exif" not in info:
        image.load()
        info = image.info
        if "Raw profile type exif" in info:
            return cast("dict[int, Any]", image.getexif()._get_merged_dict())
    if "exif" not in info:
        return None
    return cast("dict[int, Any]", image.getexif()._get_merged_dict())


def _saved_format(fp: Any, format: str | None) -> str | None:
    """The format Pillow's ``save`` picks: ``format``, else the file name's extension."""
    if format is not None:
        return format.upper()
    name = os.fspath(fp) if isinstance(fp, (str, os.PathLike)) else getattr(fp, "name", None)
    if not isinstance(name, str):
        return None
    return PILImage.registered_extensions().get(os.path.splitext(name)[1].lower())


def kept_save_params(
    opened: OpenedFile, fp: Any, format: str | None, params: dict[str, Any]
) -> dict[str, Any]:
    """``params`` of saving to ``fp`` as ``format``, with Pillow's JPEG ``"keep"`` values made
    explicit from the opened JPEG's header (as Pillow's encoder reads them from its image);
    unchanged where nothing asks to keep, the file is not saved as JPEG, or the image is no
    opened JPEG (Pillow then raises its own error)."""
    keep = opened.jpeg_keep
    if (
        keep is None
        or opened.format != "JPEG"
        or "keep"
        not in (
            params.get("quality"),
            params.get("subsampling"),
            params.get("qtables"),
        )
    ):
        return params
    if _saved_format(fp, format) != "JPEG":
        return params
    sampling, quantization = keep
    explicit = dict(params)
    if explicit.get("quality") == "keep":  # Pillow: keep both, with its default quality
        explicit["quality"] = -1
        explicit["subsampling"] = explicit["qtables"] = "keep"
    if explicit.get("subsampling") == "keep":
        explicit["subsampling"] = sampling
    if explicit.get("qtables") == "keep":
        explicit["qtables"] = quantization
    return explicit
