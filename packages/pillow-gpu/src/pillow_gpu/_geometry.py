"""Recording of Pillow's geometry: ``resize``, ``reduce``, ``transform``, ``rotate``, and the
in-place ``thumbnail`` and ``draft``, for :class:`pillow_gpu.Image.Image`.

Each method runs Pillow's own argument and mode checks on a probe image (``pillow_gpu._probes``)
and the arithmetic Pillow's Python code does before its C layer (sizes, boxes, the rotation
matrix, the draft's scale), then records one node; ``thumbnail`` and ``draft`` point the handle
at the result, as Pillow changes its image.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from PIL import Image as PILImage

from pillow_gpu import _cpu, _edits
from pillow_gpu._graph import Node, undecoded_file
from pillow_gpu._probes import _probe, _tiny_size
from pillow_gpu._rotate import rotate_call

if TYPE_CHECKING:
    from pillow_gpu._image import Image

__all__ = ["Geometry"]

#: Modes Pillow resizes and transforms with NEAREST whatever filter is asked for.
_NEAREST_ONLY = ("1", "P")
#: Modes Pillow transforms premultiplied (through this mode) with an interpolating filter.
_PREMULTIPLIED = {"LA": "La", "RGBA": "RGBa"}
NEAREST = PILImage.Resampling.NEAREST


class Geometry:
    """Pillow's geometry methods for :class:`pillow_gpu.Image.Image` (see the module
    docstring)."""

    __slots__ = ()
    _used: bool
    _derive: Callable[..., Image]  # Image._derive(op, params, *, mode, size, extra, info)
    _handle: Callable[[Node], Image]
    _peek_node: Callable[[], Node]
    _unloaded_frame_reader: Callable[[], Any]  # pillow_gpu._seek: a sought frame not loaded
    _draft_frame: Callable[..., Any]  # pillow_gpu._seek: Pillow's draft of that frame
    copy: Callable[[], Image]
    crop: Callable[..., Image]
    transpose: Callable[[int], Image]
    convert: Callable[..., Image]

    if TYPE_CHECKING:  # what the handle provides

        @property
        def _node(self) -> Node: ...
        @_node.setter
        def _node(self, node: Node) -> None: ...
        @property
        def mode(self) -> str: ...
        @property
        def size(self) -> tuple[int, int]: ...
        @property
        def width(self) -> int: ...
        @property
        def height(self) -> int: ...
        @property
        def info(self) -> dict[str, Any]: ...

    def resize(
        self,
        size: tuple[int, int],
        resample: int | None = None,
        box: tuple[float, float, float, float] | None = None,
        reducing_gap: float | None = None,
    ) -> Image:
        """Record ``PIL.Image.Image.resize`` (GPU routes: every filter but MKS2013/MKS2021)."""
        if resample is None:
            resample = PILImage.Resampling.BICUBIC
        tiny, edges = _tiny_size(size)
        same = (tiny if edges is None else edges) == self.size
        if same and (box is None or box == (0, 0, *self.size)):
            # Pillow returns a copy before its C layer checks the size (its type; an empty
            # image's zero edge)
            tiny, edges = (1, 1), self.size
        # The probe is 1x1: a non-integer size equal to that must not take Pillow's copy.
        source_size = (2, 1) if edges is None and tiny == (1, 1) else (1, 1)
        probe = _probe(
            lambda im: im.resize(tiny, resample, None, reducing_gap), self.mode, size=source_size
        )
        out_size = probe.size if edges is None else (edges[0], edges[1])
        if box is None:
            box = (0.0, 0.0, float(self.width), float(self.height))
        if len(box) != 4:
            msg = "box must be a 4-tuple"
            raise ValueError(msg)
        if box[0] < 0 or box[1] < 0 or box[2] > self.width or box[3] > self.height:
            msg = "box can't exceed original image size"
            raise ValueError(msg)
        if box[2] - box[0] < 0 or box[3] - box[1] < 0:
            msg = "box can't be empty"
            raise ValueError(msg)
        if self.mode in _NEAREST_ONLY:  # Pillow resizes palette and bilevel images NEAREST
            resample = NEAREST
        if reducing_gap is not None and resample != NEAREST:
            reduces = any(
                int((box[axis + 2] - box[axis]) / out_size[axis] / reducing_gap) > 1
                for axis in (0, 1)
            )
            if reduces:  # Pillow reduces first: its error for the modes it cannot reduce
                _probe(lambda im: im.reduce(2), self.mode)
        params = {
            "size": out_size,
            "resample": int(resample),
            "box": tuple(box),
            "reducing_gap": reducing_gap,
        }
        return self._derive("resize", params, size=out_size)

    def reduce(
        self, factor: int | tuple[int, int], box: tuple[int, int, int, int] | None = None
    ) -> Image:
        """Record ``PIL.Image.Image.reduce``: ``factor`` x ``factor`` block averages of ``box``.

        Arguments raise what Pillow raises; a factor of (1, 1) (tuple or int) is ``crop(box)``.
        """
        factors = factor if isinstance(factor, (list, tuple)) else (factor, factor)
        if factors == (1, 1):
            return self.crop(box)
        mode_error: ValueError | None = None
        try:  # Pillow's type and mode checks (the box values are checked below, in its order)
            _probe(lambda im: im.reduce(factors, box), self.mode)
        except ValueError as error:
            mode_error = error  # Pillow's C layer checks scale and box first
            if "box" in str(error):  # the box did not fit the probe: its mode check, without
                mode_error = None
                try:
                    _probe(lambda im: im.reduce(factors), self.mode)
                except ValueError as unboxed:
                    mode_error = unboxed
        scale = (operator.index(factors[0]), operator.index(factors[1]))
        area = (0, 0, *self.size) if box is None else tuple(operator.index(v) for v in box)
        for failed, message in (
            (min(scale) < 1, "scale must be > 0"),
            (area[0] < 0 or area[1] < 0, "box offset can't be negative"),
            (area[2] > self.width or area[3] > self.height, "box can't exceed original image size"),
            (area[2] <= area[0] or area[3] <= area[1], "box can't be empty"),
        ):
            if failed:
                raise ValueError(message)
        if mode_error is not None:
            raise mode_error
        size = (-(-(area[2] - area[0]) // scale[0]), -(-(area[3] - area[1]) // scale[1]))
        return self._derive("reduce", {"factor": scale, "box": area}, size=size)

    def transform(  # noqa: PLR0917 - Pillow's positional signature
        self,
        size: tuple[int, int],
        method: int,
        data: Sequence[Any] | None = None,
        resample: int = PILImage.Resampling.NEAREST,
        fill: int = 1,
        fillcolor: float | tuple[float, ...] | str | None = None,
    ) -> Image:
        """Record ``PIL.Image.Image.transform`` (GPU route: AFFINE with NEAREST; see routes).

        ``method`` is a ``Transform`` member, an object with ``getdata()``, or an
        ``ImageTransformHandler`` (``PIL.ImageTransform``'s, or the caller's own), which Pillow
        hands the image: here the lazy one, so what it calls on it is recorded.
        """
        if isinstance(method, PILImage.ImageTransformHandler):
            if self.mode in _PREMULTIPLIED and resample != NEAREST:  # as Pillow's transform
                converted = self.convert(_PREMULTIPLIED[self.mode])
                transformed = converted.transform(size, method, data, resample, fill, fillcolor)
                return transformed.convert(self.mode)
            handed: Any = self  # what the handler calls on it is recorded
            return cast("Image", method.transform(size, handed, resample=resample, fill=fill))
        if hasattr(method, "getdata"):
            method, data = method.getdata()
        PILImage._check_size(size)
        _probe(lambda im: im.transform((1, 1), method, data, resample, fill, fillcolor), self.mode)
        out_size = (int(size[0]), int(size[1]))
        if method == PILImage.Transform.EXTENT:  # Pillow's __transformer makes it affine
            x0, y0, x1, y1 = cast(Sequence[Any], data)
            scale_x, scale_y = (x1 - x0) / out_size[0], (y1 - y0) / out_size[1]
            method, data = PILImage.Transform.AFFINE, (scale_x, 0, x0, 0, scale_y, y0)
        if self.mode in _NEAREST_ONLY:  # Pillow transforms palette and bilevel images NEAREST
            resample = NEAREST
        params = {
            "size": out_size,
            "method": int(method),
            "data": tuple(cast(Sequence[Any], data)),  # the probe rejected None
            "resample": int(resample),
            "fill": fill,
            "fillcolor": fillcolor,
        }
        # Pillow's transform copies the info before it loads the source (LA and RGBA filtered
        # go through convert, which loads first): an opened file's result keeps its header's.
        premultiplied = self.mode in _PREMULTIPLIED and resample != NEAREST
        info = None if premultiplied else dict(self.info)  # as it stands before the load
        return self._derive("transform", params, size=out_size, info=info)

    def rotate(  # noqa: PLR0917 - Pillow's positional signature
        self,
        angle: float,
        resample: int = PILImage.Resampling.NEAREST,
        expand: int | bool = False,
        center: tuple[float, float] | None = None,
        translate: tuple[int, int] | None = None,
        fillcolor: float | tuple[float, ...] | str | None = None,
    ) -> Image:
        """Record ``PIL.Image.Image.rotate`` as Pillow's code calls it.

        The 0/90/180/270 shortcuts record a copy or a transpose; other angles record the affine
        ``transform`` with the matrix and expanded size Pillow's own code computes.
        """
        call = rotate_call(self.size, angle, expand, center, translate)
        if call is None:
            return self.copy()
        if isinstance(call, int):
            return self.transpose(call)
        size, matrix = call
        return self.transform(
            size, PILImage.Transform.AFFINE, matrix, resample, fillcolor=fillcolor
        )

    def thumbnail(
        self,
        size: tuple[float, float],
        resample: int = PILImage.Resampling.BICUBIC,
        reducing_gap: float | None = 2.0,
    ) -> None:
        """``PIL.Image.Image.thumbnail`` in place: shrink to fit ``size``, keeping the aspect.

        Replays Pillow's code (same size, ``draft`` and ``resize`` calls); an image that already
        fits is left as it is. An unevaluated ``open`` leaf (JPEG, MPO) is decoded with Pillow's
        ``draft``, as Pillow does, and stays drafted when the resize then raises, as in Pillow.
        """
        final_size = _edits.thumbnail_size(self.size, size)
        if final_size is None:
            return
        box = None
        if reducing_gap is not None:
            drafted, box = self._draft((int(size[0] * reducing_gap), int(size[1] * reducing_gap)))
            if drafted is not self:
                self._node = drafted._node
        if self.size != final_size:
            resized = self.resize(final_size, resample, box=box, reducing_gap=reducing_gap)
            self._node = resized._node

    def draft(
        self, mode: str | None, size: tuple[int, int] | None
    ) -> tuple[str, tuple[int, int, float, float]] | None:
        """``PIL.Image.Image.draft`` in place: configure the decoder of an opened file (JPEG:
        decode reduced and/or in ``mode``), returning Pillow's ``(mode, box)`` or None.

        As in Pillow it acts only before the first load and only once; a derived, evaluated or
        already drafted image is left as it is.
        """
        drafted, answer = self._drafted(mode, size)
        if drafted is not self:
            self._node = drafted._node
        return answer

    def _drafted(
        self, mode: str | None, size: tuple[int, int] | None
    ) -> tuple[Image, tuple[str, tuple[int, int, float, float]] | None]:
        """(a handle on the drafted leaf, Pillow's answer), or (self, None) where it cannot:
        Pillow's draft acts only before the image's first load, which any use of the handle
        (an operation, a copy, an evaluation) stands for."""
        if self._unloaded_frame_reader() is not None:  # a sought frame, not loaded yet
            return cast("Image", self), self._draft_frame(mode, size)
        node = self._peek_node()  # a draft is no use of the image: Pillow's loads nothing
        if self._used or not undecoded_file(node) or "draft" in node.params:
            return cast("Image", self), None
        if not node.params.get("drafts"):  # the plugin keeps Image.draft, which does nothing
            return cast("Image", self), None
        kept = node.params.get("kept_header")
        moved = None if kept is None else kept.take()  # Image.open's parse, if not used yet
        parsed = None if moved is None else moved.image
        with _cpu.open_encoded(node.params) if parsed is None else parsed as header:
            answer = header.draft(mode, size)
            if answer is None:
                return cast("Image", self), None
            params = {**node.params, "draft": (mode, size)}
            if moved is not None:  # drafted, it goes on to the drafted leaf's decode
                params["kept_header"] = moved
            leaf = type(node)(  # a relabelled leaf stays one (pillow_gpu._info_edits)
                op="open",
                params=params,
                mode=header.mode,
                size=header.size,
                info=node.info,
            )
        return self._handle(leaf), answer

    def _draft(
        self, request: tuple[int, int]
    ) -> tuple[Image, tuple[float, float, float, float] | None]:
        """Pillow's ``draft(None, request)`` as ``thumbnail`` calls it: (leaf, box) or (self,
        None)."""
        drafted, answer = self._drafted(None, request)
        return drafted, None if answer is None else answer[1]
