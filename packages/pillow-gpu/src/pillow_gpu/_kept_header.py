"""The Pillow image ``Image.open`` parsed a file's header into, kept for the leaf's first load.

A lazy image holds no open file: ``Image.open`` reads the header with Pillow and closes the
file, and the file is opened again where its pixels are first needed. For a small file that
second parse of the header (and a third, where ``thumbnail`` asked Pillow's ``draft``) cost
as much as Pillow's whole open: a tenth of a small photo's open-thumbnail-decode, half of a
small BMP's or PPM's open-load. :class:`KeptHeader` keeps the parsed image, its file closed,
so that the first ``draft`` and the decode go on from it with the file opened again instead
of parsing anew.

Kept are the plugins whose load reads the pixels only through ``fp`` (or the plugin's other
names for that file), from the offsets their header parse put in the tile or from where it
left the file:

* Pillow's JPEG plugin (``draft`` changes only its tile, size and mode);
* its PNG plugin: it reads through ``fp``, the same file as ``_fp`` and its chunk stream's
  ``fp``, from the data's offset on, chunk after chunk. The chunks after the pixels that
  ``Image.open`` reads on through (:func:`pillow_gpu._png_tail.loaded_info`) are read by a
  copy of the header;
* its PNG (an APNG), GIF and TIFF plugins, for the first frame (``Image.open`` parses the
  file's header and the first frame's; a sought frame is read by a reader of its own,
  :mod:`pillow_gpu._seek`).
  Their files are ``_fp`` too, and the TIFF plugin's own name for it; a kept TIFF's tag
  directories are the handle's, as Pillow's load works on its image's own;
* the plugins that keep ``ImageFile.load`` as it is (:data:`_PLAIN_PLUGINS`: BMP, PPM, TGA,
  SGI, PCX, DDS, QOI and the like), which keep no other file object.

Not MPO, whose frames are read through another file object, nor WebP and AVIF, whose header
holds the whole file's data (a batch of handles recorded ahead would hold every file), nor
the other plugins with loads or frames of their own (ICO, ICNS, PSD, ...), nor FTEX, whose
header parse reads the pixels into a buffer of its own.

A query that reads no pixels (a TIFF's EXIF directory, for ``getexif`` and
``exif_transpose``) borrows the kept header and gives it back (:meth:`KeptHeader.lent`).

A kept header is handed out once (a later decode parses again) and only while the file is the
one that was parsed (same device, inode, size and modification time), so a file written over
or replaced meanwhile is opened afresh, as it was before.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Iterator
from typing import IO, Any, TypeGuard

from PIL import GifImagePlugin, ImageFile, JpegImagePlugin, PngImagePlugin, TiffImagePlugin
from PIL import Image as PILImage

__all__ = ["KeptHeader"]

#: (st_dev, st_ino, st_size, st_mtime_ns) of the file a header was parsed from.
_Stamp = tuple[int, int, int, int]


def _stamp(result: os.stat_result) -> _Stamp:
    return (result.st_dev, result.st_ino, result.st_size, result.st_mtime_ns)


#: Pillow's plugins (module, class) whose image loads by ``ImageFile.load`` through ``fp``
#: alone (TGA's ``load_end`` only flips what was read), and keeps no other file object.
_PLAIN_PLUGINS = frozenset(
    (f"PIL.{module}ImagePlugin", f"{name}ImageFile")
    for module, name in (
        ("Blp", "Blp"),
        ("Bmp", "Bmp"),
        ("Bmp", "Dib"),
        ("Dds", "Dds"),
        ("Fits", "Fits"),
        ("Imt", "Imt"),
        ("McIdas", "McIdas"),
        ("Msp", "Msp"),
        ("Pcx", "Pcx"),
        ("Pixar", "Pixar"),
        ("Ppm", "Ppm"),
        ("Qoi", "Qoi"),
        ("Sgi", "Sgi"),
        ("Sun", "Sun"),
        ("Tga", "Tga"),
        ("Xbm", "Xbm"),
        ("XVThumb", "XVThumb"),
    )
)


def _keepable(header: PILImage.Image) -> TypeGuard[ImageFile.ImageFile]:
    """Whether ``header`` is a parsed, unloaded image of Pillow's JPEG plugin, of its PNG, GIF
    or TIFF plugin at the first frame, or of one of :data:`_PLAIN_PLUGINS`."""
    kind = type(header)
    if (kind.__module__, kind.__qualname__) in _PLAIN_PLUGINS:
        return isinstance(header, ImageFile.ImageFile) and bool(header.tile)
    if type(header) is JpegImagePlugin.JpegImageFile:
        return len(header.tile) == 1 and not header.decoderconfig
    if type(header) is GifImagePlugin.GifImageFile:  # its first frame, as Image.open leaves it
        return len(header.tile) == 1 and header.tell() == 0
    if type(header) is TiffImagePlugin.TiffImageFile:  # its first frame, as Image.open leaves it
        return bool(header.tile) and header.tell() == 0
    if type(header) is PngImagePlugin.PngImageFile:
        png = header.png
        return (
            len(header.tile) == 1
            and png is not None
            and png.fp is header.fp
            and header.tell() == 0  # an APNG's first frame, as Image.open leaves it
        )
    return False


#: The attributes in which Pillow's plugins keep their file besides ``fp`` (PNG's, GIF's and
#: TIFF's ``_fp`` and the TIFF plugin's own, where they seek frames).
_FILE_ALIASES = ("_fp", "_TiffImageFile__fp")


def _rearm(
    image: ImageFile.ImageFile, fp: IO[bytes], position: int, aliases: tuple[str, ...]
) -> None:
    """Give ``image`` the file ``fp`` where it read its header from, standing where the header
    parse left it (a DDS load reads on from there: its plugin's ``load_seek`` does not seek),
    also as the attributes named ``aliases`` (:data:`_FILE_ALIASES`)."""
    if position:
        fp.seek(position)
    image.fp = fp
    for name in aliases:
        setattr(image, name, fp)
    if isinstance(image, PngImagePlugin.PngImageFile):
        assert image.png is not None  # kept unloaded (_keepable)
        image.png.fp = fp  # its chunk stream, which the load reads on through


class KeptHeader:
    """A parsed, unloaded Pillow image of an opened file, handed out once (thread-safe).

    Build one with :meth:`of` while the header's file is still open; :meth:`take` hands the
    image out (its file closed), :meth:`armed` opens the file for it to load.
    """

    __slots__ = ("_aliases", "_image", "_lock", "_position", "_stamp")

    def __init__(
        self,
        image: ImageFile.ImageFile | None,
        stamp: _Stamp | None,
        position: int = 0,
        aliases: tuple[str, ...] = (),
    ) -> None:
        self._image = image
        self._stamp = stamp
        self._position = position  # where the header parse left the file
        self._aliases = aliases  # the image's other attributes holding its file
        self._lock = threading.Lock()

    @classmethod
    def of(cls, header: PILImage.Image, exif_at_open: Any) -> KeptHeader | None:
        """A keeper of ``header`` (just opened by ``PIL.Image.open``, its file still open, not
        read on through), or None where its plugin is not one whose load reads only ``fp``.

        ``exif_at_open`` is the ``_exif`` the header had straight after ``Image.open``: what
        the caller read since (``getexif()``) is put back, so the kept image is what a new
        ``Image.open`` gives."""
        if not _keepable(header) or header.fp is None:
            return None
        fp = header.fp
        stamp = None
        try:
            # Where the load reads on from, for a plugin whose load_seek does not seek.
            position = fp.tell() if hasattr(header, "load_seek") else 0
            if header._exclusive_fp:  # opened from a path: its file's identity
                stamp = _stamp(os.fstat(fp.fileno()))
        except (OSError, AttributeError, io.UnsupportedOperation):
            return None
        header._exif = exif_at_open
        aliases = tuple(name for name in _FILE_ALIASES if getattr(header, name, None) is fp)
        return cls(header, stamp, position, aliases)

    def take(self) -> KeptHeader | None:
        """This keeper's image moved into a new keeper (None where it was handed out
        already): the caller now owns it, and this one is empty."""
        with self._lock:
            image, self._image = self._image, None
        return (
            None if image is None else KeptHeader(image, self._stamp, self._position, self._aliases)
        )

    def exif_parsed_at_open(self) -> PILImage.Exif | None:
        """The ``Exif`` the kept image's plugin parsed while opening (a JPEG's, for the DPI),
        moved to the caller, whose handle hands it out as Pillow's image hands out its own;
        the kept image holds none afterwards (its load reads none). None where it parsed none,
        or was handed out."""
        with self._lock:
            image = self._image
            exif = None if image is None else image._exif
            if image is None or exif is None or not exif._loaded:
                return None
            image._exif = None
            return exif

    @property
    def image(self) -> ImageFile.ImageFile | None:
        """The kept image (its file closed), None once handed out."""
        return self._image

    @contextlib.contextmanager
    def lent(
        self, path: str | bytes | None, data: bytes | None
    ) -> Iterator[ImageFile.ImageFile | None]:
        """The kept image with its file opened again, for a query that reads no pixels (a
        TIFF's EXIF directory), then kept again as it was: its file closed, its ``info``'s
        contents and its ``_exif`` put back. None where :meth:`armed` gives none, and where
        the image parsed an EXIF at open (a JPEG's ``_exif``, which the query would hand out
        while the kept image holds it). An image the query loaded is not kept again."""
        image = self._image
        if image is None or image._exif is not None:
            yield None
            return
        image = self.armed(path, data)
        if image is None:
            yield None
            return
        info = dict(image.info)
        try:
            yield image
        finally:
            fp = image.fp
            if fp is not None:
                fp.close()
            image.fp = None
            if image._im is None:  # not loaded: as Image.open left it
                image.info.clear()
                image.info.update(info)
                image._exif = None
                with self._lock:
                    if self._image is None:
                        self._image = image

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
            _rearm(image, io.BytesIO(data), self._position, self._aliases)
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
        _rearm(image, fp, self._position, self._aliases)
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
