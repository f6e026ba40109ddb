"""The Pillow image ``Image.open`` parsed a JPEG's or PNG's header into, kept for the leaf's
first load.

A lazy image holds no open file: ``Image.open`` reads the header with Pillow and closes the
file, and the file is opened again where its pixels are first needed. For a small photo that
second parse of the markers (and a third, where ``thumbnail`` asked Pillow's ``draft``) cost
about a tenth of the whole open-thumbnail-decode. :class:`KeptHeader` keeps the parsed image,
its file closed, so that the first ``draft`` and the decode go on from it with the file opened
again instead of parsing anew. Pillow's JPEG plugin reads the pixels only through ``fp``, from
the offset its header parse found, and ``draft`` changes only its tile, size and mode; its PNG
plugin reads them through ``fp``, the same file as ``_fp`` and its chunk stream's ``fp``, from
the data's offset on, chunk after chunk.

A kept header is handed out once (a later decode parses again) and only while the file is the
one that was parsed (same device, inode, size and modification time), so a file written over
or replaced meanwhile is opened afresh, as it was before. Only Pillow's own JPEG and PNG plugin
classes are kept: not MPO, whose frames are read through another file object, nor an animated
PNG (its frames are sought), nor a header read on past its pixels (a PNG's chunks after them).
"""

from __future__ import annotations

import io
import os
import threading
from typing import IO, Any, TypeGuard

from PIL import Image as PILImage
from PIL import ImageFile, JpegImagePlugin, PngImagePlugin

__all__ = ["KeptHeader"]

#: (st_dev, st_ino, st_size, st_mtime_ns) of the file a header was parsed from.
_Stamp = tuple[int, int, int, int]


def _stamp(result: os.stat_result) -> _Stamp:
    return (result.st_dev, result.st_ino, result.st_size, result.st_mtime_ns)


def _keepable(header: PILImage.Image) -> TypeGuard[ImageFile.ImageFile]:
    """Whether ``header`` is a parsed, unloaded image of Pillow's JPEG plugin, or of its PNG
    plugin and no animation."""
    if type(header) is JpegImagePlugin.JpegImageFile:
        return len(header.tile) == 1 and not header.decoderconfig
    if type(header) is PngImagePlugin.PngImageFile:
        png = header.png
        return (
            len(header.tile) == 1
            and png is not None
            and png.fp is header.fp
            and getattr(png, "im_n_frames", None) is None  # not an APNG
        )
    return False


def _rearm(image: ImageFile.ImageFile, fp: IO[bytes]) -> None:
    """Give ``image`` the file ``fp`` where it read its header from."""
    image.fp = fp
    if isinstance(image, PngImagePlugin.PngImageFile):
        image._fp = fp  # the file the PNG plugin seeks frames in
        assert image.png is not None  # kept unloaded (_keepable)
        image.png.fp = fp  # its chunk stream, which the load reads on through


class KeptHeader:
    """A parsed, unloaded Pillow image of an opened file, handed out once (thread-safe).

    Build one with :meth:`of` while the header's file is still open; :meth:`take` hands the
    image out (its file closed), :meth:`armed` opens the file for it to load.
    """

    __slots__ = ("_image", "_lock", "_stamp")

    def __init__(self, image: ImageFile.ImageFile | None, stamp: _Stamp | None) -> None:
        self._image = image
        self._stamp = stamp
        self._lock = threading.Lock()

    @classmethod
    def of(
        cls, header: PILImage.Image, exif_at_open: Any, *, read_on: bool = False
    ) -> KeptHeader | None:
        """A keeper of ``header`` (just opened by ``PIL.Image.open``, its file still open),
        or None where its plugin is not one whose load reads only ``fp``, or where the caller
        read on through it (``read_on``).

        ``exif_at_open`` is the ``_exif`` the header had straight after ``Image.open``: what
        the caller read since (``getexif()``) is put back, so the kept image is what a new
        ``Image.open`` gives."""
        if read_on or not _keepable(header) or header.fp is None:
            return None
        stamp = None
        if header._exclusive_fp:  # opened from a path: its file's identity
            try:
                stamp = _stamp(os.fstat(header.fp.fileno()))
            except (OSError, AttributeError, io.UnsupportedOperation):
                return None
        header._exif = exif_at_open
        return cls(header, stamp)

    def take(self) -> KeptHeader | None:
        """This keeper's image moved into a new keeper (None where it was handed out
        already): the caller now owns it, and this one is empty."""
        with self._lock:
            image, self._image = self._image, None
        return None if image is None else KeptHeader(image, self._stamp)

    @property
    def image(self) -> ImageFile.ImageFile | None:
        """The kept image (its file closed), None once handed out."""
        return self._image

    def armed(self, path: str | bytes | None, data: bytes | None) -> ImageFile.ImageFile | None:
        """The kept image with its file opened again (the one it was parsed from: ``path``,
        or ``data``, a file object's bytes), ready to load; None where the file is no longer
        the one parsed, cannot be opened, or the image was handed out already. Either way
        this keeper is empty afterwards."""
        with self._lock:
            image, self._image = self._image, None
        if image is None:
            return None
        if data is not None:
            _rearm(image, io.BytesIO(data))
            image._exclusive_fp = False
            return image
        if path is None or self._stamp is None:
            return None
        try:
            fp = open(path, "rb")  # noqa: SIM115 - the image owns it, as Pillow's own open
        except OSError:  # the reopen in the caller raises its own error
            return None
        try:
            same = _stamp(os.fstat(fp.fileno())) == self._stamp
        except OSError:
            same = False
        if not same:
            fp.close()
            return None
        _rearm(image, fp)
        image._exclusive_fp = True
        return image

    def __copy__(self) -> KeptHeader:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> KeptHeader:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # Another process parses the file itself: nothing kept crosses.
        return (KeptHeader, (None, None))

    def __repr__(self) -> str:
        return f"<KeptHeader {'held' if self._image is not None else 'handed out'}>"
