"""Pillow's read-only queries, answered for a lazy image.

Pixel queries (``getpixel``, ``getbbox``, ``getextrema``, ``histogram``, ``entropy``,
``getcolors``, ``getdata``, ``get_flattened_data``, ``getprojection``, and NumPy's and Arrow's
array interfaces, so ``numpy.asarray(image)`` works) read the result's pixels. Like
``tobytes()`` they complete the graph once with Pillow, or read the pixels
``pillow_gpu.gpu.evaluate`` has already cached on it (a batch executor's results are separate
PIL images), and answer with Pillow's own method, so values, types and errors are Pillow's.

``==`` is Pillow's: images of one kind with equal mode, size, ``info``, palette and pixels.

Metadata queries read no pixels: ``getpalette``, ``has_transparency_data`` and ``getxmp``
come from the palette and ``info`` known before evaluation (the same probe the GPU tables
use); ``verify`` checks an opened file as Pillow does, without decoding; ``getexif``
reads an opened file's header as ``PIL.Image.open(...).getexif()`` does, and for any other
image the ``info`` it carries, as Pillow's ``getexif`` of an image made in memory does.

A notebook shows the result as Pillow's image is shown: ``_repr_png_`` and ``_repr_jpeg_``
save it as Pillow's display hooks do (None where it cannot be saved so).

``close()`` and the context manager exist for code written as ``with Image.open(path) as
im:``; a lazy image holds no open file (``open`` read the header and closed it; the decoder
reopens the file when the graph is evaluated), so closing releases nothing and the image stays
usable, unlike Pillow's.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from PIL import Image as PILImage
from PIL import JpegImagePlugin

from pillow_gpu import _cpu
from pillow_gpu._convert_info import probe
from pillow_gpu._handed_exif import ORIENTATION, apply_orientation, turned_while_loading
from pillow_gpu._info_edits import edited_header
from pillow_gpu._palette_inside import palette_bearer
from pillow_gpu._tiff_tags import read_groups
from pillow_gpu._transposed_info import info_probe

if TYPE_CHECKING:
    from pillow_gpu._graph import Node
    from pillow_gpu._opened_file import OpenedFile

__all__ = ["ImageQueries"]


def _pil(image: Any) -> Any:
    """A lazy image's pixels as a PIL image (Pillow's masks and arguments pass through)."""
    node = getattr(image, "node", None)
    return _cpu.evaluate(node) if node is not None else image


class ImageQueries:
    """The read-only part of ``PIL.Image.Image`` for a handle on a graph node."""

    __slots__ = ()
    _node: Node
    _peek_node: Callable[[], Node]
    _unloaded_frame_reader: Callable[[], Any]
    _lend: Callable[[Any], Any]
    _exif: PILImage.Exif | None
    _exif_watch: tuple[Any] | None
    _file_format: OpenedFile
    _tags: Any
    _frame: Any
    info: dict[str, Any]

    def _pixels(self) -> PILImage.Image:
        """The completed result (evaluated with Pillow once, or the cached GPU result)."""
        return _cpu.evaluate(self._node)

    def __eq__(self, other: object) -> bool:
        """Pillow's ``==``: images of one kind (Pillow's class: opened files of one format,
        or both no file) with equal mode, size, ``info``, palette and pixels, compared in
        Pillow's order (``info`` before the load). It completes both graphs; as Pillow's
        images, lazy ones are unhashable."""
        if type(self) is not type(other):
            return False
        mine, theirs = cast(Any, self), cast(Any, other)
        return bool(
            mine.format == theirs.format
            and mine.mode == theirs.mode
            and mine.size == theirs.size
            and mine.info == theirs.info
            and mine.getpalette() == theirs.getpalette()
            and mine.tobytes() == theirs.tobytes()
        )

    __hash__ = None  # type: ignore[assignment]

    # -- pixel queries ---------------------------------------------------------------------
    def getpixel(self, xy: tuple[int, int] | list[int]) -> Any:
        """``PIL.Image.Image.getpixel``: the value of one pixel (completes the graph)."""
        return self._pixels().getpixel(xy)

    def getbbox(self, *, alpha_only: bool = True) -> tuple[int, int, int, int] | None:
        """``PIL.Image.Image.getbbox``: the box of the non-zero region (completes the graph)."""
        return self._pixels().getbbox(alpha_only=alpha_only)

    def getextrema(self) -> Any:
        """``PIL.Image.Image.getextrema``: each band's (min, max) (completes the graph)."""
        return self._pixels().getextrema()

    def histogram(self, mask: Any = None, extrema: tuple[float, float] | None = None) -> list[int]:
        """``PIL.Image.Image.histogram`` (a lazy ``mask`` is completed too)."""
        return self._pixels().histogram(_pil(mask), extrema)

    def entropy(self, mask: Any = None, extrema: tuple[float, float] | None = None) -> float:
        """``PIL.Image.Image.entropy`` (a lazy ``mask`` is completed too)."""
        return self._pixels().entropy(_pil(mask), extrema)

    def getcolors(self, maxcolors: int = 256) -> Any:
        """``PIL.Image.Image.getcolors``: (count, colour) pairs, or None past ``maxcolors``."""
        return self._pixels().getcolors(maxcolors)

    def getdata(self, band: int | None = None) -> Any:
        """``PIL.Image.Image.getdata``: Pillow's sequence of pixel values."""
        return self._pixels().getdata(band)

    def get_flattened_data(self, band: int | None = None) -> Any:
        """``PIL.Image.Image.get_flattened_data``: the pixel values as a tuple."""
        return self._pixels().get_flattened_data(band)

    def getprojection(self) -> tuple[list[int], list[int]]:
        """``PIL.Image.Image.getprojection``: the non-zero columns and rows."""
        return self._pixels().getprojection()

    @property
    def __array_interface__(self) -> dict[str, Any]:
        """NumPy's array interface of the result: ``numpy.asarray(image)`` as for Pillow."""
        return self._pixels().__array_interface__

    def __arrow_c_schema__(self) -> object:
        """The Arrow schema capsule of the result, as Pillow exports it."""
        return self._pixels().__arrow_c_schema__()

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        """The Arrow array capsules of the result (a copy kept alive by Pillow's image)."""
        return self._pixels().__arrow_c_array__(requested_schema)

    # -- metadata queries (no pixels) ------------------------------------------------------
    def _probe(self) -> PILImage.Image:
        """A 1x1 image of this mode, palette and info; the completed pixels when unknown."""
        found = probe(self._peek_node())
        return self._pixels() if found is None else found

    def getpalette(self, rawmode: str | None = "RGB") -> list[int] | None:
        """``PIL.Image.Image.getpalette``: the palette of a P or PA image, or of the P image an
        L, 1, I or F image was pointed from (Pillow keeps it inside, ``_palette_inside``), else
        None. As Pillow's, an opened file loads first (raising its decode error)."""
        node = self._peek_node()
        if node.op == "open":
            pixels = self._pixels()
            if pixels.im.mode != pixels.mode:  # an L GIF's P pixels (_cpu.loaded_pixels)
                return pixels.getpalette(rawmode)
        bearer = palette_bearer(node)
        if bearer is not None:
            return bearer.getpalette(rawmode)
        return self._probe().getpalette(rawmode)

    @property
    def has_transparency_data(self) -> bool:
        """Pillow's ``has_transparency_data``: an alpha band, an RGBA palette or
        ``info["transparency"]``. A frame sought and not used yet is not loaded for it, as
        Pillow's is not: its reader answers, lent the handle's ``info``."""
        reader = self._unloaded_frame_reader()
        if reader is not None:
            return bool(self._lend(reader).image.has_transparency_data)
        return self._probe().has_transparency_data

    def getexif(self) -> PILImage.Exif:
        """``PIL.Image.Image.getexif``: an opened file's from its header (a sought frame's
        from Pillow's reader; a PNG without an ``exif`` chunk before its pixels loads first, as
        Pillow's does), else from ``info``. As Pillow's image, the handle keeps the
        ``Exif`` it hands out: every call returns that object, edits of it included, and
        ``ImageOps.exif_transpose`` reads the orientation from it."""
        exif = self._exif
        if exif is None:
            exif = self._exif = self._read_exif()  # type: ignore[misc]  # the slot is Image's
        return exif

    def _read_exif(self) -> PILImage.Exif:
        if self._frame is not None:
            return self._frame.image.getexif()
        node = self._peek_node()
        if node.op == "open" and self._file_format.format is not None:  # a copy() is no file
            if node.params.get("format") == "PNG" and "exif" not in self.info:
                # Pillow's PNG getexif loads the image first (raising its decode error), so
                # the handle is loaded too and its info, with the chunks after the pixels,
                # answers (pillow_gpu._png_tail).
                self._pixels()
                return self._parsed_exif(self._probe())
            probe = _exif_probe(node)
            if probe is not None:  # the info is all Pillow's getexif reads: no file is opened
                apply_orientation(node, probe)
                return self._parsed_exif(probe)
            opening: Any = _cpu.opened_for_query(node)  # the caller's edits of info included
        elif self._tags is not None and self._file_format.source is not None:
            opening = _cpu.open_encoded(self._file_format.source)  # a TIFF edited in place
        else:
            return self._parsed_exif(self._probe())
        with opening as header:
            apply_orientation(node, header)
            exif = self._parsed_exif(header)
            if hasattr(header, "tag_v2"):
                read_groups(exif)
                if self._exif_watch is None:  # loaded: Pillow's plugin turned it by it
                    turned_while_loading(exif)
                else:  # not loaded yet: the file loads by this Exif now
                    self._exif_watch = (exif.get(ORIENTATION),)  # type: ignore[misc]
            return exif

    def _parsed_exif(self, image: PILImage.Image) -> PILImage.Exif:
        """``image.getexif()``; where it raises, the handle keeps what was parsed before the
        error, as Pillow's image does (its ``Exif`` counts as loaded once parsing starts), so a
        later call answers with that instead of raising again."""
        try:
            return image.getexif()
        except Exception:
            self._exif = image._exif  # type: ignore[misc]  # the slot is Image's
            raise

    def getxmp(self, *, strip_namespaces: bool = True) -> dict[str, Any]:
        """``PIL.Image.Image.getxmp``: the XMP packet ``info`` holds, as a dictionary."""
        return self._probe().getxmp(strip_namespaces=strip_namespaces)

    # -- output through Pillow (completes the graph) ----------------------------------------
    def show(self, title: str | None = None) -> None:
        """``PIL.Image.Image.show``: the result in the system's image viewer."""
        self._pixels().show(title)

    def tobitmap(self, name: str = "image") -> bytes:
        """``PIL.Image.Image.tobitmap``: a mode 1 result as an X11 bitmap."""
        return self._pixels().tobitmap(name)

    def toqimage(self) -> Any:
        """``PIL.Image.Image.toqimage``: the result as a Qt ``QImage`` (needs Qt, as Pillow)."""
        return self._pixels().toqimage()

    def toqpixmap(self) -> Any:
        """``PIL.Image.Image.toqpixmap``: the result as a Qt ``QPixmap`` (needs Qt)."""
        return self._pixels().toqpixmap()

    # -- notebooks: the display hooks IPython and Jupyter call, as Pillow's ------------------
    def _repr_png_(self) -> bytes | None:
        """The result as Pillow's display hook saves it (PNG, ``compress_level=1``), or None
        where it cannot be saved so (the notebook then shows the text form)."""
        return self._repr_image("PNG", compress_level=1)

    def _repr_jpeg_(self) -> bytes | None:
        """The result as JPEG bytes for a notebook, or None (a mode JPEG does not store)."""
        return self._repr_image("JPEG")

    def _repr_image(self, image_format: str, **options: Any) -> bytes | None:
        buffer = io.BytesIO()
        try:
            cast("Any", self).save(buffer, image_format, **options)
        except Exception:  # as Pillow's hook: no picture, never an error in the notebook
            return None
        return buffer.getvalue()

    # -- files -----------------------------------------------------------------------------
    def verify(self) -> None:
        """``PIL.Image.Image.verify``: an opened file checked as Pillow checks it (no decode);
        unlike Pillow's, the image stays usable. Other images have nothing to verify. It is
        no use of the image: Pillow's loads nothing."""
        node = self._peek_node()
        if node.op == "open":
            with _cpu.open_encoded(node.params) as header:
                header.verify()


def _exif_probe(node: Node) -> PILImage.Image | None:
    """A 1x1 image whose ``getexif()`` is Pillow's ``getexif()`` of the file opened as ``open``
    leaf ``node``, where that reads nothing but the ``info`` (the leaf's ``exif_at_open`` or
    ``exif_from_info``, :func:`~pillow_gpu._leaves.open_node`), else None (the file is opened
    again and asked).

    A JPEG's plugin parsed the EXIF while opening (for the DPI), and Pillow's image answers with
    that parse ever after, edits of ``info`` aside, keeping what it parsed of a corrupt EXIF
    without raising: the probe holds that very ``Exif`` where the header ``Image.open`` parsed
    is still kept (:meth:`~pillow_gpu._kept_header.KeptHeader.exif_parsed_at_open`), else runs
    the plugin's own step over what it read (``exif_at_open``), so its ``Exif`` is parsed, and
    its tags read, as that one was (the order it iterates in follows the tags read). Other
    files' ``getexif`` parses the ``info`` as it stands, the caller's edits included."""
    params = node.params
    at_open = params.get("exif_at_open")
    if at_open is not None:  # a JPEG's or MPO's (pillow_gpu._leaves.open_node)
        probe = info_probe(at_open)
        kept = params.get("kept_header")
        parsed = None if kept is None else kept.exif_parsed_at_open()
        if parsed is not None:
            probe._exif = parsed
            return probe
        with contextlib.suppress(Exception):  # it catches what the open let pass
            JpegImagePlugin.JpegImageFile._read_dpi_from_exif(probe)  # type: ignore[arg-type]
        return probe
    if not params.get("exif_from_info"):
        return None
    edited = edited_header(node)
    return info_probe(edited if edited is not None else params.get("header_info", node.info))
