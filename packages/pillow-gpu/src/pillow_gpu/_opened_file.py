"""What a lazy image keeps of the file ``Image.open`` read, as Pillow's ``ImageFile`` keeps it.

Pillow's opened image stays that file object through its in-place edits: ``format``,
``format_description``, ``filename`` and ``get_format_mimetype()`` answer, JPEG, PNG and WebP
files have the legacy ``_getexif()``, a JPEG its ``quantization`` tables, and saving a JPEG
with ``quality="keep"`` (or ``subsampling``/``qtables="keep"``) reuses the quantization tables
and chroma subsampling its header gave. A lazy image's results are Pillow images that are no
files, so the handle keeps these answers in an :class:`OpenedFile`, and
:func:`kept_save_params` turns "keep" into the header's values before Pillow saves, exactly as
Pillow's JPEG encoder reads them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, cast

from PIL import Image as PILImage
from PIL import ImageFile, JpegImagePlugin

from pillow_gpu._cpu import open_encoded
from pillow_gpu._not_recorded import missing_attribute

__all__ = [
    "GETEXIF_FORMATS",
    "HEADER_DATA",
    "ICON_FORMATS",
    "NOT_A_FILE",
    "NO_DATA",
    "FileAttributes",
    "OpenedFile",
    "header_data",
    "icon_of_size",
    "kept_save_params",
    "merged_exif",
    "opened_file",
    "plugin_attribute",
    "saved_format",
]


class OpenedFile(NamedTuple):
    """The file an image was opened from; all None for an image that is no file."""

    format: str | None
    format_description: str | None
    #: A JPEG (or MPO) header's ``(subsampling, quantization)``: what ``"keep"`` asks for and
    #: ``quantization`` answers.
    jpeg_keep: tuple[int, dict[int, list[int]]] | None = None
    #: ``ImageFile.get_format_mimetype()`` of the header (a plugin's own, e.g. APNG's).
    mimetype: str | None = None
    #: The file's ``path`` (None for a file object) and ``data`` (a file object's bytes), as
    #: its leaf holds them.
    source: Mapping[str, Any] | None = None
    #: The file's frame count once counted (``{"n_frames": n}``), kept as Pillow's image
    #: keeps its own: counting walks a GIF's or TIFF's frames.
    counted: dict[str, int] | None = None
    #: The file's first frame, where Pillow's iterator starts (1 for PSD, whose frame 0 is
    #: the merged image it does not seek to; 0 for the rest).
    min_frame: int = 0
    #: Whether the file's plugin seeks among frames (has its own ``seek``); one that does not
    #: (JPEG, BMP, ...) is one frame to Pillow: ``tell()`` 0, ``seek(0)`` nothing, any other
    #: frame an EOFError, whatever the file holds now.
    seeks: bool = False
    #: ``(filename,)`` where code assigned ``image.filename``, or where the image was unpickled
    #: from an opened file's (``source`` is None then: it reads no file), as Pillow's unpickled
    #: image keeps it (:mod:`pillow_gpu._pickling`); None otherwise.
    assigned_filename: tuple[str | bytes | None] | None = None
    #: ``(format,)`` where code assigned ``image.format``; None otherwise. Pillow's ``format``
    #: is plain data there: read back as assigned, while the plugin (``format`` above) still
    #: decides what the image is and does.
    assigned_format: tuple[str | None] | None = None


#: What a copy or an operation's result keeps: no file.
NOT_A_FILE = OpenedFile(None, None)


def opened_file(header: PILImage.Image, path: str | bytes | None, data: bytes | None) -> OpenedFile:
    """The :class:`OpenedFile` of a header Pillow has just opened from ``path`` (or
    ``data``, a file object's bytes)."""
    keep = None
    if isinstance(header, JpegImagePlugin.JpegImageFile):  # MPO's too (quantization)
        quantization = getattr(header, "quantization", None) or {}
        keep = (JpegImagePlugin.get_sampling(header), dict(quantization))
    mimetype = header.get_format_mimetype() if isinstance(header, ImageFile.ImageFile) else None
    source = {"path": path, "data": data}
    first = int(getattr(header, "_min_frame", 0))
    seeks = type(header).seek is not PILImage.Image.seek
    return OpenedFile(
        header.format, header.format_description, keep, mimetype, source, {}, first, seeks
    )


#: Formats whose Pillow image has the legacy ``_getexif()`` (JPEG's, MPO's, PNG's, WebP's).
GETEXIF_FORMATS = frozenset({"JPEG", "MPO", "PNG", "WEBP"})


def merged_exif(image: Any) -> dict[int, Any] | None:
    """Pillow's legacy ``_getexif()`` of an opened JPEG, MPO, PNG or WebP ``image`` (a lazy
    handle): ``getexif()``'s IFDs merged into one dict, or None without EXIF in ``info`` (a
    PNG loads first, as Pillow's, for an ``eXIf`` chunk after its pixels)."""
    info = image.info
    png = image.format == "PNG"
    if png and "exif" not in info:
        image.load()
        info = image.info
    if "exif" not in info and not (png and "Raw profile type exif" in info):
        return None
    return cast("dict[int, Any]", image.getexif()._get_merged_dict())


class FileAttributes:
    """An opened file's attributes for :class:`pillow_gpu.Image.Image`, as Pillow's
    ``ImageFile`` has them: the file format, ``filename``, ``get_format_mimetype()``, the
    legacy ``_getexif()``, a JPEG's ``quantization`` and a PNG's ``text``. A copy or an
    operation's result is no file: it has only ``format`` and ``format_description`` (None),
    as in Pillow."""

    __slots__ = ()
    _file_format: OpenedFile
    _frame: Any
    _used: bool
    _peek_node: Callable[[], Any]

    @property
    def format(self) -> str | None:
        """The file format of an image made by ``open`` (kept by in-place edits, as in
        Pillow), else None (a copy or an operation's result); what code assigned, if it did."""
        opened = self._file_format
        return opened.format if opened.assigned_format is None else opened.assigned_format[0]

    @format.setter
    def format(self, value: str | None) -> None:
        # Plain data in Pillow too: read back, written by no save (its format comes from the
        # call or the file name).
        self._file_format = self._file_format._replace(assigned_format=(value,))  # type: ignore[misc]  # the slot is Image's

    @property
    def format_description(self) -> str | None:
        """Pillow's description of :attr:`format`, e.g. ``"Portable network graphics"``."""
        return self._file_format.format_description

    @property
    def get_format_mimetype(self) -> Callable[[], str | None]:
        """``ImageFile.get_format_mimetype``: an opened file's MIME type (its plugin's own,
        e.g. ``"image/apng"``), or None; as in Pillow, only an opened file has it."""
        if self._file_format.format is None:
            raise missing_attribute(self, "get_format_mimetype")
        mimetype = self._file_format.mimetype
        return lambda: mimetype

    @property
    def _getexif(self) -> Callable[[], dict[int, Any] | None]:
        """Pillow's legacy ``_getexif()`` of an opened JPEG, MPO, PNG or WebP file (much code
        reads EXIF with it): ``getexif()``'s IFDs merged, or None without EXIF."""
        if self._file_format.format not in GETEXIF_FORMATS:
            raise missing_attribute(self, "_getexif")
        return lambda: merged_exif(self)

    @property
    def quantization(self) -> dict[int, list[int]]:
        """An opened JPEG's (or MPO's) quantization tables, as Pillow's ``JpegImageFile`` has
        them (``save(..., qtables=im.quantization)``)."""
        keep = self._file_format.jpeg_keep
        if keep is None:
            raise missing_attribute(self, "quantization")
        return keep[1]

    @property
    def text(self) -> dict[str, Any]:
        """``PngImageFile.text``: an opened PNG's ``tEXt``, ``zTXt`` and ``iTXt`` chunks, those
        after the pixels included (Pillow loads the file for them; so does this, by Pillow).

        Once the handle is used (an operation, an evaluation), Pillow's image has loaded its
        first frame, and answers with the chunks that load read: an APNG's text after later
        frames is left out, and a broken file answers with what was read before the error.
        """
        if self._file_format.format != "PNG":
            raise missing_attribute(self, "text")
        if self._frame is not None:  # a sought APNG: Pillow's reader answers
            pending = self._frame.text
            if pending is not None and not self._used:
                return cast("dict[str, Any]", pending)  # the sought frame is not loaded yet
            return cast("dict[str, Any]", self._frame.image.text)
        source = self._file_format.source
        assert source is not None  # an opened file's
        loaded = self._used or self._peek_node().cache.get() is not None
        with open_encoded(source) as header:  # a PngImageFile (the format says so)
            if loaded:
                # Pillow's use loaded (or failed to load) the first frame; an error was the
                # use's, and text then answers as Pillow's does after it.
                with contextlib.suppress(Exception):
                    header.load()
            return cast("dict[str, Any]", getattr(header, "text", {}))

    @property
    def filename(self) -> str | bytes | None:
        """``ImageFile.filename``: the path ``open`` read (a ``str``, or ``bytes`` where it was
        given so; ``""`` for a file object). As in Pillow, only an opened file has one (not a
        copy or an operation's result), unless code assigned one."""
        opened = self._file_format
        if opened.assigned_filename is not None:
            return opened.assigned_filename[0]
        if opened.source is None:
            raise missing_attribute(self, "filename")
        return cast("str | bytes", opened.source["path"] or "")

    @filename.setter
    def filename(self, value: str | bytes | None) -> None:
        # Plain data in Pillow: read back, and pickled with an opened file's image.
        self._file_format = self._file_format._replace(assigned_filename=(value,))  # type: ignore[misc]  # the slot is Image's


_JPEG_DATA = frozenset({"app", "applist", "icclist", "layers", "layer", "bits"})
#: Plain data Pillow's plugins keep on the image they open, by format: a JPEG's APP segments
#: (``applist``, where code finds XMP and Adobe markers), ICC chunks and components, an MPO's
#: MP index, a PSD's layers, a GIF's disposal and global palette.
HEADER_DATA: dict[str, frozenset[str]] = {
    "JPEG": _JPEG_DATA,
    "MPO": _JPEG_DATA | {"mpinfo"},
    "PSD": frozenset({"layers"}),
    "GIF": frozenset({"disposal_method", "global_palette"}),
}
#: What :func:`header_data` returns for a name it does not answer.
NO_DATA: Any = object()


def header_data(opened: OpenedFile, frame: PILImage.Image | None, name: str) -> Any:
    """``name`` of :data:`HEADER_DATA` as Pillow's opened image has it: from the reader of a
    sought file (``frame``), else from the file's header read now (as it stood at ``open``);
    :data:`NO_DATA` for other names and images."""
    if opened.source is None or name not in HEADER_DATA.get(opened.format or "", ()):
        return NO_DATA
    if frame is not None:
        return getattr(frame, name)
    with open_encoded(opened.source) as header:
        return getattr(header, name)


def plugin_attribute(opened: OpenedFile, name: str) -> AttributeError | None:
    """The error for ``name``, an attribute Pillow's plugin keeps on its opened image of this
    file (a GIF's ``dispose_extent``, a PNG's ``png`` stream, ...) that a lazy image does not
    record; None where Pillow's image has no such attribute either."""
    if opened.source is None or name.startswith("_"):
        return None
    try:
        with open_encoded(opened.source) as header:
            # Its own entries and its class's names only: no property runs (a PNG's text loads).
            found = name in vars(header) or hasattr(type(header), name)
    except Exception:  # the file is gone or unreadable now: nothing to compare with
        return None
    if not found:
        return None
    return AttributeError(
        f"why: Pillow's {opened.format} plugin keeps {name!r} on the image it opens, part of "
        f"its loader, which a lazy image does not record; observed: {name!r} of an opened "
        f"{opened.format} file; fix: read it from PIL.Image.open(...) of the same file"
    )


#: Formats whose opened image chooses one of its icons by ``im.size = (w, h)``.
ICON_FORMATS = frozenset({"ICO", "ICNS"})


def icon_of_size(opened: OpenedFile, size: Any) -> PILImage.Image:
    """Pillow's image of an opened ICO or ICNS file with its icon of ``size`` loaded, as Pillow
    loads it after ``im.size = size`` (Pillow's checks and errors); the AttributeError of
    Pillow's read-only ``size`` for any other image."""
    if opened.format not in ICON_FORMATS or opened.source is None:
        msg = "property 'size' of 'Image' object has no setter"
        raise AttributeError(msg)
    with open_encoded(opened.source) as header:
        header.size = size  # type: ignore[misc]  # the ICO and ICNS plugins' setter
        return header.copy()  # loads it, with its info and palette


def saved_format(fp: Any, format: str | None) -> str | None:
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
    asked = (params.get("quality"), params.get("subsampling"), params.get("qtables"))
    if keep is None or opened.format != "JPEG" or "keep" not in asked:
        return params
    if saved_format(fp, format) != "JPEG":
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
