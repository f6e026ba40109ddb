"""The lazy image handle, :class:`Image` (public as ``pillow_gpu.Image.Image``).

A handle points at one node of an immutable graph; each operation records a new node and
returns a new handle, and the in-place methods (``paste``, ``putpixel``, ``putalpha``,
``thumbnail``, ``alpha_composite``) point the handle at a new node, as Pillow changes its
image. :mod:`pillow_gpu.Image` holds the module functions Pillow code calls (``open``, ``new``,
``from_pil``, ``fromarray``, ``merge``, ...), which build handles on the leaves of
:mod:`pillow_gpu._leaves`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from PIL import Image as PILImage
from PIL import ImageFilter, ImageMode, ImagePalette

from pillow_gpu import _cpu, _drawing, _edits
from pillow_gpu._convert_info import convert_info, default_mode, putpixel_colour
from pillow_gpu._empty import completed_if_empty, probe_size
from pillow_gpu._geometry import Geometry
from pillow_gpu._graph import Node, undecoded_file, whole_crop
from pillow_gpu._handed_exif import NOTHING_HANDED, follow_orientation
from pillow_gpu._info_edits import handed_out, relabelled, same_info, unloaded_header
from pillow_gpu._leaves import loads_in_another_mode, new_node, pil_node, stray_palette_bearer
from pillow_gpu._not_recorded import FILE_ONLY, NOT_RECORDED, Refused, missing_attribute
from pillow_gpu._opened_file import (
    NO_DATA,
    NOT_A_FILE,
    FileAttributes,
    OpenedFile,
    header_data,
    icon_of_size,
    plugin_attribute,
)
from pillow_gpu._palettes import PaletteEdits, realized
from pillow_gpu._pickling import pickled
from pillow_gpu._pixel_edits import PixelEdits
from pillow_gpu._probes import _check_crop, _probe, _probe_image, recorded_filter
from pillow_gpu._queries import ImageQueries
from pillow_gpu._save_all import Saving
from pillow_gpu._seek import Seekable, _Reader
from pillow_gpu._tiff_tags import TiffDirectories, TiffTags, loaded

__all__ = ["Image", "alpha_composite"]

#: Targets whose ``convert`` reads ``dither``, ``palette`` and ``colors``.
_DITHERED_TARGETS = ("P", "PA", "1")
#: A handle's ``_info_base`` before its ``info`` is first read.
_NO_INFO: Mapping[str, Any] = MappingProxyType({})
_SWAPPING_TRANSPOSES = frozenset({2, 4, 5, 6})


class Image(
    Geometry,
    ImageQueries,
    Seekable,
    FileAttributes,
    TiffTags,
    Saving,
    PaletteEdits,
    PixelEdits,
    _drawing.Drawable,
):
    """A lazy image: a handle on one node of an immutable operation graph.

    The in-place methods (``paste``, ``putpixel``, ``putalpha``, ``thumbnail``) point the
    handle at a new node, as Pillow changes its image; every other operation returns a new
    handle and leaves this one as it is. Pillow's read-only queries (``getpixel``,
    ``histogram``, ``getexif``, ``numpy.asarray(image)``, ...) come from
    :class:`~pillow_gpu._queries.ImageQueries`.
    """

    # ``__dict__`` and ``__weakref__``: code keeps its own attributes on an image and weak
    # references to it, as on Pillow's.
    __slots__ = (
        "__dict__",
        "__weakref__",
        "_drawing",
        "_encoderinfo",
        "_exif",
        "_exif_watch",
        "_file_format",
        "_frame",
        "_graph",
        "_info",
        "_info_base",
        "_palette",
        "_tags",
        "_used",
    )

    im = Refused()
    readonly = Refused()

    def __init__(
        self,
        node: Node,
        file_format: OpenedFile = NOT_A_FILE,
        tags: TiffDirectories | None = None,
    ) -> None:
        self._graph = node
        self._drawing: _drawing.CanvasEdit | None = None
        self._file_format = file_format
        self._frame: _Reader | None = None  # the Pillow reader of a sought file
        # The dict ``info`` handed out (None until read) and what it held when last in step
        # with the graph (pillow_gpu._info_edits).
        self._info: dict[str, Any] | None = None
        self._info_base: Mapping[str, Any] = _NO_INFO
        # The Exif ``getexif()`` handed out (None until asked), kept as Pillow's image keeps
        # its own: the same object on every call, the caller's edits included.
        self._exif: PILImage.Exif | None = None
        # An opened TIFF's tag directories (pillow_gpu._tiff_tags); None for other images.
        self._tags = tags
        # (orientation,) an opened TIFF not loaded yet loads by, followed in ``_exif``, from
        # ``open`` to the first use (pillow_gpu._handed_exif); None once loaded.
        self._exif_watch: tuple[Any] | None = None if tags is None else NOTHING_HANDED
        # The ``encoderinfo`` set on the image, or left by a ``save`` (None until then).
        self._encoderinfo: dict[str, Any] | None = None
        # (palette,) the ``palette`` object handed out or given (pillow_gpu._palettes).
        self._palette: tuple[ImagePalette.ImagePalette | None] | None = None
        # Whether an operation or an evaluation has used the handle since it was made, where
        # Pillow's image loads (an opened PNG's ``text`` is then what that load read).
        self._used = False

    @property
    def _node(self) -> Node:
        try:
            return self._synced()
        finally:
            self._used = True  # a use, where Pillow's image loads (after the sync reads it)

    @_node.setter
    def _node(self, node: Node) -> None:
        self._graph = node
        self._drawing = None
        info = self._info
        if info is not None:  # Pillow's in-place edits keep the image's own dict
            reported = self._reported_info()
            info.clear()
            info.update(handed_out(reported))
            self._info_base = dict(reported)

    def _synced(self) -> Node:
        # A sought frame loads now (pillow_gpu._seek); pixels drawn since the graph was last
        # read become a leaf (pillow_gpu.ImageDraw); an edited ``info`` relabels the node the
        # handle points at.
        if self._unloaded_frame_reader() is not None:
            self._graph = self._load_frame()
        drawing = self._drawing
        if drawing is not None:
            self._graph = drawing.snapshot()
            self._drawing = None
        info = self._info
        if info is not None and not same_info(info, self._info_base):
            graph = self._graph
            if self._used and unloaded_header(graph) is not None:
                # Pillow's image loaded at its first use, before this edit: the file decodes
                # as opened, and a copy of its loaded pixels carries the edited info.
                graph = completed_if_empty(whole_crop(graph))
            self._graph = relabelled(graph, info, self._sought_header())
            self._info_base = dict(info)
        watch = self._exif_watch
        if watch is not None:  # a use: an opened TIFF loads now, by the handed Exif if any
            self._graph, self._exif_watch = follow_orientation(
                self._graph, self._exif, watch, use=True
            )
            loaded(self._tags)
        palette = self._palette
        if palette is not None and palette[0] is not None and palette[0].dirty:
            # a use: Pillow's load() applies the handed palette object now
            self._graph = realized(self._graph, palette[0])
        return self._graph

    def _peek_node(self) -> Node:
        """``_node`` for a read where Pillow's image loads nothing (metadata, ``repr``): an
        opened TIFF still follows the handed Exif afterwards (pillow_gpu._handed_exif), and a
        handed dirty palette waits for a use (pillow_gpu._palettes)."""
        watch, palette = self._exif_watch, self._palette
        if watch is None and palette is None:
            return self._synced()
        self._exif_watch = self._palette = None
        try:
            node = self._synced()
        finally:
            self._exif_watch, self._palette = watch, palette
        if watch is not None:
            self._graph, self._exif_watch = follow_orientation(node, self._exif, watch, use=False)
        return self._graph

    def __deepcopy__(self, memo: dict[int, Any]) -> Image:
        # The graph is immutable: a new handle on the same node (drawn pixels included).
        return Image(self._node, self._file_format)

    def __reduce__(self) -> tuple[Any, ...]:
        # As Pillow pickles its image: the pixels and info now, never the graph.
        return pickled(self)

    def __getattr__(self, name: str) -> Any:
        # Only names normal lookup did not find: the plain data Pillow's plugin keeps on its
        # opened image of this file is read from it; Pillow's other names say why they are not
        # here, and so do the rest of what the plugin keeps.
        if name not in NOT_RECORDED and name not in FILE_ONLY:
            frame = self._frame
            data = header_data(self._file_format, None if frame is None else frame.image, name)
            if data is not NO_DATA:
                return data
            found = plugin_attribute(self._file_format, name)
            if found is not None:
                raise found
        raise missing_attribute(self, name)

    # -- metadata (never evaluates; drawing keeps the mode, size and info) ----------------
    @property
    def mode(self) -> str:
        """Pillow mode of the result, e.g. ``"RGB"``."""
        return self._graph.mode

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` of the result."""
        return self._graph.size

    @size.setter
    def size(self, value: tuple[int, int]) -> None:
        # Pillow's ICO and ICNS images choose an icon by size; other images' size is read-only.
        # The icon is read at the assignment (Pillow's image reads it at its next use).
        self._node = pil_node(icon_of_size(self._file_format, value))

    @property
    def width(self) -> int:
        """Width of the result in pixels."""
        return self._graph.size[0]

    @property
    def height(self) -> int:
        """Height of the result in pixels."""
        return self._graph.size[1]

    @property
    def info(self) -> dict[str, Any]:
        """The metadata dictionary the result will carry: this handle's own dict, as Pillow's
        image has one. Edits (and assigning a new dict) are kept: the operations recorded after
        them, the executor's result and ``save`` see them (:mod:`pillow_gpu._info_edits`).

        Until it is edited it follows the graph: for an opened file not loaded yet it holds
        the header's entries, as Pillow's does (a PNG's chunks after its pixels join it when it
        loads, and the operations that load first start from those).
        """
        reported = self._reported_info()
        info = self._info
        if info is None:
            info = self._info = handed_out(reported)
            self._info_base = dict(reported)
        elif same_info(info, self._info_base) and not same_info(info, reported):
            info.clear()  # unedited: in step with the graph again (a file loaded meanwhile)
            info.update(handed_out(reported))
            self._info_base = dict(reported)
        return info

    @info.setter
    def info(self, value: dict[str, Any]) -> None:
        if not isinstance(value, Mapping):
            msg = (
                "why: an image's info is a dict of metadata; observed: "
                f"{type(value).__module__}.{type(value).__qualname__}; fix: assign a dict"
            )
            raise TypeError(msg)
        self._info_base = dict(self._reported_info())
        self._info = value if isinstance(value, dict) else dict(value)

    def _reported_info(self) -> Mapping[str, Any]:
        """What the graph reports: the header's info for an opened file not used yet (Pillow's
        image loads at its first operation: an opened PNG's chunks after its pixels, a WebP's
        or AVIF's frame timing join it then), and for a frame sought and not used since, what
        Pillow's image showed before loading it."""
        node = self._graph
        sought = self._sought_header()
        if sought is not None:
            return sought
        if self._used:  # Pillow's image loaded at its first use
            return node.info
        header = unloaded_header(node)
        return node.info if header is None else header

    def _sought_header(self) -> Mapping[str, Any] | None:
        """The info Pillow's image showed right after the seek, while the handle is still
        that frame and unused (Pillow has not loaded it); else None."""
        if self._used:
            return None
        frame = self._frame
        if frame is None or self._graph is not frame.frame:
            return None
        return frame.header

    @property
    def node(self) -> Node:
        """The graph node this handle refers to."""
        return self._node

    @property
    def is_evaluated(self) -> bool:
        """True once the graph has been completed and its pixels cached."""
        return self._unsynced_node().cache.get() is not None

    def __repr__(self) -> str:
        state = "evaluated" if self.is_evaluated else "lazy"
        return (
            f"<pillow_gpu.Image.Image {state} op={self._unsynced_node().op} mode={self.mode} "
            f"size={self.width}x{self.height}>"
        )

    def _unsynced_node(self) -> Node:
        """``_peek_node``, except that a sought frame not loaded yet stays so (its leaf of
        what the seek read is returned): for reads that need no pixels nor palette."""
        if self._unloaded_frame_reader() is not None:
            return self._graph
        return self._peek_node()

    # -- materialisation (CPU routing through Pillow) --------------------------------------
    def to_pil(self) -> PILImage.Image:
        """Evaluate with Pillow (once) and return a fresh ``PIL.Image.Image`` copy."""
        return _cpu.same_mode_copy(_cpu.evaluate(self._node))

    def tobytes(self, encoder_name: str = "raw", *args: Any) -> bytes:
        """Evaluate with Pillow (once) and return ``PIL.Image.Image.tobytes(...)``."""
        return _cpu.evaluate(self._node).tobytes(encoder_name, *args)

    def load(self) -> _drawing.PixelAccess:
        """Evaluate with Pillow now (a file decodes, or raises, as in Pillow) and return the
        pixel access: ``access[x, y]`` reads and ``access[x, y] = value`` writes the image's
        pixels, as ``ImageDraw`` does (:mod:`pillow_gpu.ImageDraw`)."""
        _cpu.evaluate(self._node)
        return _drawing.PixelAccess(self)

    def copy(self) -> Image:
        """Return a new handle on the same pixels: in-place edits of either leave the other.

        Pillow's copy loads first, so a copy of an opened file not loaded yet carries the
        loaded ``info`` (a PNG's chunks after its pixels, a WebP's or AVIF's frame timing) and
        can no longer be drafted (a JPEG's ``thumbnail`` or ``draft`` then works on the full
        decode): it records a crop of the whole image, which starts from that; otherwise it is
        a new handle on the same node. A file whose load leaves pixels of another mode than it
        says (an L GIF loading as P pixels) is copied as Pillow copies it, in the pixels' mode,
        and an RGB or RGBA image holding a palette object (a GIF frame after the first) without
        it, as Pillow's copy drops it.
        """
        node = self._node
        if (
            undecoded_file(node)
            or loads_in_another_mode(node)
            or stray_palette_bearer(node) is not None
        ):
            return self._whole_crop()
        return Image(node)

    def _whole_crop(self) -> Image:
        """A crop of the whole image: Pillow's copy of a loaded image, recorded without
        ``crop``'s checks of a box (this one is the image's own; Pillow's copy checks none,
        the decompression-bomb size included)."""
        return self._derive("crop", {"box": (0, 0, *self._node.size)})

    __copy__ = copy

    # -- recording ---------------------------------------------------------------------------
    def _handle(self, leaf: Node) -> Image:
        """A new handle on ``leaf``, a relabelled leaf of this handle's file (its format kept)."""
        return Image(leaf, self._file_format)

    def _derive(
        self,
        op: str,
        params: Mapping[str, Any],
        *,
        mode: str | None = None,
        size: tuple[int, int] | None = None,
        extra: Sequence[Image] = (),
        info: Mapping[str, Any] | None = None,
    ) -> Image:
        source = self._node
        node = Node(
            op=op,
            params=params,
            inputs=(source, *(other._node for other in extra)) if extra else (source,),
            mode=source.mode if mode is None else mode,
            size=source.size if size is None else size,
            info=source.info if info is None else info,
        )
        return Image(completed_if_empty(node))

    def point(
        self, lut: Sequence[float] | Callable[[int], float], mode: str | None = None
    ) -> Image:
        """Record ``PIL.Image.Image.point`` with a table or a callable (called 256 times now).

        A table is copied (and a callable tabled now, as Pillow does), so changing either
        afterwards does not change this graph.
        """
        if isinstance(lut, PILImage.ImagePointHandler):
            # Pillow hands the image to the handler (an ImageCms transform), ``mode`` unused.
            probe = _probe(lambda im: im.point(lut, mode), self.mode)
            info = dict(probe.info)  # the handler's (a transform's output profile)
            return self._derive("point_handler", {"handler": lut}, mode=probe.mode, info=info)
        if callable(lut) and self.mode not in ("I", "I;16", "F"):
            bands = len(_probe_image(self.mode).getbands())
            lut = [lut(i) for i in range(256)] * bands  # as Pillow tables it, at once
        if mode is not None:
            if not callable(lut) and not isinstance(lut, tuple):
                with contextlib.suppress(TypeError):  # not iterable: Pillow's error comes next
                    lut = tuple(lut)  # the values of now (a list or an iterator, read once)
            probe = _probe(lambda im: im.point(lut, mode), self.mode)
            return self._derive("point_mode", {"lut": lut, "mode": mode}, mode=probe.mode)
        if callable(lut):
            # Pillow maps a callable linearly on I, I;16 and F (point_transform): keep it as is.
            probe = _probe(lambda im: im.point(lut), self.mode)
            return self._derive("point", {"lut": lut}, mode=probe.mode)
        table = list(lut)
        probe = _probe(lambda im: im.point(table), self.mode)
        return self._derive("point", {"lut": tuple(table)}, mode=probe.mode)

    def transpose(self, method: int) -> Image:
        """Record ``PIL.Image.Image.transpose`` (all seven methods)."""
        _probe(lambda im: im.transpose(method), self.mode)
        width, height = self.size
        size = (height, width) if int(method) in _SWAPPING_TRANSPOSES else (width, height)
        return self._derive("transpose", {"method": int(method)}, size=size)

    def crop(self, box: tuple[float, float, float, float] | None = None) -> Image:
        """Record ``PIL.Image.Image.crop``; areas outside the source are zero."""
        if box is None:
            return self.copy()
        left, top, right, bottom = _check_crop(self.mode, box)
        size = (right - left, bottom - top)
        return self._derive("crop", {"box": (left, top, right, bottom)}, size=size)

    def paste(
        self,
        im: Image | PILImage.Image | str | float | tuple[float, ...],
        box: Image | PILImage.Image | tuple[int, int] | tuple[int, int, int, int] | None = None,
        mask: Image | PILImage.Image | None = None,
    ) -> None:
        """``PIL.Image.Image.paste`` in place: paste ``im`` (an image or a colour) at ``box``.

        Pillow's forms: ``box`` None, a 2-tuple corner or a 4-tuple region, ``paste(im, mask)``;
        an image source of another mode is converted as Pillow converts it. ``im`` is read now:
        a pillow-gpu source keeps meaning the node it has at this call, a PIL source is copied.
        A colour fills the region (non-palette modes; palette modes raise ``Unsupported``).
        Errors are Pillow's and leave this image unchanged.
        """
        if isinstance(im, Image):  # Pillow's paste converts the source with its convert first
            im._write_palette_alpha(self.mode)
        self._node = self._pasted(im, box, mask)._node

    def _pasted(self, im: Any, box: Any = None, mask: Any = None) -> Image:
        """A new image with ``paste(im, box, mask)`` applied (this one is unchanged)."""
        pasted: Image = _edits.pasted(self, im, box, mask, wrap=_wrap, new=_new)
        return pasted

    def alpha_composite(
        self,
        im: Image | PILImage.Image,
        dest: Sequence[int] = (0, 0),
        source: Sequence[int] = (0, 0),
    ) -> None:
        """``PIL.Image.Image.alpha_composite`` in place: ``im`` (or its ``source`` box) over this
        image at ``dest``; recorded as Pillow runs it (crops, ``alpha_composite``, paste)."""
        overlay = _wrap(im)
        self._node = _edits.alpha_composited(self, overlay, dest, source, alpha_composite)._node

    def putpixel(self, xy: tuple[int, int], value: float | tuple[int, ...]) -> None:
        """``PIL.Image.Image.putpixel`` in place: set one pixel (errors leave it unchanged)."""
        self._node = self._with_pixel(xy, value)._node

    def _with_pixel(self, xy: tuple[int, int], value: float | tuple[int, ...]) -> Image:
        """A new image with ``putpixel(xy, value)`` applied (this one is unchanged).

        A colour for a P or PA image goes into its palette, and where that is full into an
        index the pixels leave unused, else Pillow raises ValueError: the completed image is
        asked then."""
        if self.mode in ("P", "PA") and putpixel_colour(value):
            probe = self._pixels().copy()
        else:
            probe = _probe_image(self.mode)
        probe.putpixel((0, 0), value)
        x, y = (int(coordinate) for coordinate in xy)
        x = x + self.width if x < 0 else x
        y = y + self.height if y < 0 else y
        if not (0 <= x < self.width and 0 <= y < self.height):
            msg = "image index out of range"
            raise IndexError(msg)
        return self._derive("putpixel", {"xy": (x, y), "value": value})

    def convert(
        self,
        mode: str | None = None,
        matrix: list[float] | tuple[float, ...] | None = None,
        dither: PILImage.Dither | None = None,
        palette: PILImage.Palette = PILImage.Palette.WEB,
        colors: int = 256,
    ) -> Image:
        """Record ``PIL.Image.Image.convert(mode, matrix, dither, palette, colors)``.

        As in Pillow, converting to the image's own mode (or to no mode) without a matrix is
        a copy: a new handle on the same node, which costs nothing to evaluate. ``dither``,
        ``palette`` and ``colors`` are recorded for the targets Pillow reads them for (P, PA
        and 1) and replayed as given.
        """
        probe = _probe(  # on an empty image where this one is: an adaptive palette's quantize
            lambda im: im.convert(mode, matrix, dither, palette, colors),  # of one returns
            self.mode,  # before it checks the mode
            size=probe_size(self.size),
        )
        target = probe.mode
        if mode and matrix:
            values = tuple(matrix)
            params: dict[str, Any] = {"mode": target, "matrix": values}
            info = convert_info(self._node, target, values)
        else:
            if not mode and self.mode == "P":  # Pillow picks the palette's mode (RGBA, ...)
                target = default_mode(self._node) or target
            if target == self.mode:
                return self.copy()
            options: dict[str, Any] = {}
            if target in _DITHERED_TARGETS:  # Pillow ignores them for every other target
                options = {"dither": dither, "palette": palette, "colors": colors}
            params = {"mode": target, **options}
            info = convert_info(self._node, target, options=options)  # "transparency" rewritten
        if info is None:
            # Pillow's conversion now, as Pillow converts (the result's info depends on the
            # pixels); the operations after it go to the GPU again.
            source = _cpu.unshared_palette(_cpu.evaluate(self._node), target)
            result = Image(pil_node(source.convert(mode, matrix, dither, palette, colors)))
        else:
            result = self._derive("convert", params, mode=target, info=info)
        self._write_palette_alpha(target)
        return result

    def _write_palette_alpha(self, target: str) -> None:
        """What Pillow's ``convert`` of a P image to LA, PA or RGBA does to the image itself
        (also where ``paste`` onto such an image converts it): its ``info["transparency"]``
        written into its own palette (recorded in place)."""
        source = self._node
        transparency = _cpu.written_palette_alpha(source.mode, source.info, target)
        if transparency is not None:
            self._node = self._derive("palette_alpha", {"transparency": transparency})._node

    def getchannel(self, channel: int | str) -> Image:
        """Record ``PIL.Image.Image.getchannel``: an L image of one band; of a one-band image
        (1, L, P), a copy in its own mode (Pillow's ``getband`` copies it, palette included)."""
        probe = _probe_image(self.mode)
        probe.getchannel(channel)  # Pillow's own errors: the channel, and I, F and 16-bit modes
        if len(probe.getbands()) == 1:
            return self.copy()
        index = channel if isinstance(channel, int) else probe.getbands().index(channel)
        return self._derive("getchannel", {"channel": index}, mode="L")

    def getbands(self) -> tuple[str, ...]:
        """Band names of the result, e.g. ``("R", "G", "B")`` (never evaluates)."""
        return ImageMode.getmode(self.mode).bands

    def split(self) -> tuple[Image, ...]:
        """Record ``PIL.Image.Image.split``: one ``getchannel`` per band (1 band: a copy)."""
        count = len(self.getbands())
        return (self.copy(),) if count == 1 else tuple(self.getchannel(i) for i in range(count))

    def putalpha(self, alpha: Image | PILImage.Image | int) -> None:
        """``PIL.Image.Image.putalpha`` in place: ``alpha`` (an L or 1 image, or an int).

        As in Pillow, an image without alpha is promoted first (L and 1 to LA, P to PA, RGB,
        RGBX and CMYK to RGBA), so the handle's mode changes; Pillow keeps that promotion
        (alpha 255) when ``alpha`` is then rejected, and so does this handle.
        """
        probe = _probe_image(self.mode)
        try:
            self._node = self._with_alpha(alpha, probe)._node
        except Exception:
            if probe.mode != self.mode:  # Pillow promoted its image before rejecting alpha
                self._node = self._with_alpha(255)._node
            raise

    def _with_alpha(
        self, alpha: Image | PILImage.Image | int, probe: PILImage.Image | None = None
    ) -> Image:
        """A new image with ``putalpha(alpha)`` applied (this one is unchanged).

        ``probe``, a 1x1 Pillow image of this mode, is where Pillow's checks run.
        """
        probe = _probe_image(self.mode) if probe is None else probe
        if isinstance(alpha, (Image, PILImage.Image)):
            source = _wrap(alpha)
            same = source.size == self.size
            probe.putalpha(_probe_image(source.mode, (1, 1) if same else (2, 1)))
            return self._derive("putalpha", {"alpha": None}, mode=probe.mode, extra=[source])
        probe.putalpha(alpha)
        stored = probe.getchannel(len(probe.getbands()) - 1).getpixel((0, 0))
        return self._derive("putalpha", {"alpha": alpha, "value": stored}, mode=probe.mode)

    def filter(self, filter: ImageFilter.Filter | type[ImageFilter.Filter]) -> Image:
        """Record ``PIL.Image.Image.filter`` with one of Pillow's own filter objects.

        The graph keeps a private copy of the filter: changing the filter object afterwards
        does not change this graph, as it would not change Pillow's result.
        """
        instance = filter() if isinstance(filter, type) else filter
        # Pillow skips some checks for images smaller than the kernel: probe at up to 8x8.
        probe_size = (min(self.width, 8), min(self.height, 8))
        recorded = recorded_filter(instance, self.mode, probe_size)
        return self._derive("filter", {"filter": recorded})


def alpha_composite(im1: Image | PILImage.Image, im2: Image | PILImage.Image) -> Image:
    """Record ``PIL.Image.alpha_composite``: ``im2`` over ``im1`` (RGBA or LA, one mode and
    size)."""
    first, second = _wrap(im1), _wrap(im2)
    _probe(PILImage.alpha_composite, first.mode, second.mode)
    if first.size != second.size:
        msg = "images do not match"
        raise ValueError(msg)
    return first._derive("alpha_composite", {}, extra=[second])


def _wrap(image: Image | PILImage.Image) -> Image:
    """``image``, or a lazy leaf of a private copy of a PIL image (as ``from_pil``)."""
    return image if isinstance(image, Image) else Image(pil_node(image))


def _new(mode: str, size: tuple[int, int], color: Any = 0) -> Image:
    """A lazy ``Image.new`` (as ``pillow_gpu.Image.new``)."""
    return Image(new_node(mode, size, color))
