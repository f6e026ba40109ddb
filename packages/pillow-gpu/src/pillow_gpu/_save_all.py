"""How a lazy image saves (:class:`Saving`: ``save``, ``encoderinfo``): Pillow's writers are
given what Pillow's image would give them (:func:`given_to_save`), every frame of an opened
file included (``save_all``).

Pillow's ``save(..., save_all=True)`` (or with ``append_images``, for a format that writes
several frames) hands the image to its plugin's multi-frame writer, which walks the image's own
frames (``ImageSequence.Iterator``, seeking the image) and then those of each appended image;
its AVIF writer walks them even without ``save_all`` (and then writes the first frame). The
writers leave the image at the frame where their walk ends, and ``save`` leaves each opened
file it was given there too. A lazy image is one frame, so an opened file of several frames
(an animated GIF, WebP, PNG or AVIF, a multi-page TIFF, an MPO) would be written as its
current frame alone.

For such a file the writer gets a Pillow image of it instead (:func:`every_frame`), standing as
Pillow's opened image would: read from the file's bytes (the file being written may be that
file), at the handle's current frame, with the handle's ``info``, handed-out ``Exif``, TIFF tag
directories and palette, and, where in-place edits changed the current frame, with its pixels
replaced by the handle's (as Pillow's in-place edits replace its image's). The writer then reads
and writes every frame exactly as Pillow's does. :mod:`pillow_gpu.ImageSequence` walks the
frames of the same image.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any, cast

from PIL import Image as PILImage

from pillow_gpu import _cpu
from pillow_gpu._crashing_saves import refuse_crashing_save
from pillow_gpu._graph import first_leaf
from pillow_gpu._leaves import loads_in_another_mode, pil_node
from pillow_gpu._not_recorded import missing_attribute
from pillow_gpu._opened_file import OpenedFile, kept_save_params, saved_format
from pillow_gpu._palette_state import PaletteState
from pillow_gpu._tiff_tags import carry

if TYPE_CHECKING:
    from pillow_gpu._image import Image

__all__ = ["Saving", "every_frame", "given_to_save", "lend_state", "writes_every_frame"]


#: Formats whose plain writer walks every frame of an animated image too (Pillow's AVIF plugin).
_WALKING_WRITERS = frozenset({"AVIF"})


def writes_every_frame(fp: Any, format: str | None, params: dict[str, Any]) -> bool:
    """Whether Pillow's ``save(fp, format, **params)`` writes every frame of the image: its
    plugin's multi-frame writer, or a plain writer that walks them anyway."""
    target = saved_format(fp, format)
    if target is None:
        return False
    if target in _WALKING_WRITERS:
        return True
    PILImage.init()  # every plugin registered, as Pillow's save does before choosing
    if target not in PILImage.SAVE_ALL:
        return False  # Pillow raises (save_all=True) or writes one frame: the usual path
    save_all = params.get("save_all")
    return bool(save_all or (save_all is None and params.get("append_images")))


def given_to_save(
    image: Image, *, every: bool, tiff: bool
) -> tuple[PILImage.Image, PILImage.Image | None]:
    """(the Pillow image ``save`` hands Pillow's writer for the lazy ``image``, the completed
    result it stands for or None): Pillow's image of its file where the writer walks
    ``every`` frame (:func:`every_frame`; no result), else the completed result or a carrier
    of it; either carrying what Pillow's writers read from the image itself: the
    ``encoderinfo`` set on it, and an opened TIFF's tag directories where it is written as a
    ``tiff`` (:mod:`pillow_gpu._tiff_tags`).

    A P or PA result goes in a carrier with its own C image: a writer that converts it to
    RGBA writes the transparency into its palette (Pillow's ``convert`` does that to its
    source), which must reach this handle alone, not the cached result other handles share
    (:meth:`Saving.save`)."""
    encoderinfo = image._encoderinfo
    if every or loads_in_another_mode(image._peek_node()):
        opened = every_frame(image)
        if opened is not None:
            if encoderinfo is not None:
                opened.encoderinfo = encoderinfo
            return opened, None
    result = _cpu.evaluate(image._node)
    tags = image._tags if tiff else None
    indexed = result.mode in ("P", "PA")
    if tags is None and encoderinfo is None and not indexed:
        return result, result
    # The same pixels, info and palette (a palette object outside P too); its own attributes.
    carrier = _cpu.with_palette_of(result._new(result.im.copy() if indexed else result.im), result)
    if tags is not None:
        carry(carrier, tags)
    if encoderinfo is not None:
        carrier.encoderinfo = encoderinfo
    return carrier, result


def _palette_changed(given: PILImage.Image, result: PILImage.Image | None) -> bool:
    """Whether the writer changed the C palette of ``given``, the P or PA carrier of
    ``result``."""
    if result is None or given.mode not in ("P", "PA"):
        return False
    before, after = PaletteState.of(result), PaletteState.of(given)
    if before is None or after is None:
        return before is not after
    return (before.mode, before.entries) != (after.mode, after.entries)


def every_frame(image: Image) -> PILImage.Image | None:
    """A Pillow image of ``image``'s file standing as Pillow's opened image would, for a
    multi-frame writer (see the module docstring) or to seek on from an edited frame, read
    from the file's whole bytes (it holds no file handle: the file written may be this one),
    or None where ``image`` is no opened file of several frames (its current pixels are all
    Pillow's image would have) that Pillow's image can seek in."""
    source = image._file_format.source
    if source is None:
        return None
    try:
        single = image.n_frames < 2
    except Exception:
        # Pillow counts by walking every frame, so a file cut short inside a later frame
        # raises here; its iterator and the writers that walk the frames (or count them)
        # meet the error themselves, at the frame Pillow's meet it.
        single = False
    # A file whose load leaves pixels of another mode than it says goes as Pillow's image of it
    # always: a writer's seek(0) on a plain image in that state drops its pixels.
    if single and _seeks_to_its_frames(source) and not loads_in_another_mode(image._peek_node()):
        return None
    opened = _cpu.open_whole(source)
    try:
        _stand_as(opened, image)
    except BaseException:
        opened.close()
        raise
    return opened


def _seeks_to_its_frames(source: Mapping[str, Any]) -> bool:
    """Whether Pillow's image of the file seeks to frame 0 and back to the frame it opens at,
    as the writers that walk the frames do. A SPIDER file that is no stack seeks nowhere, and
    a PSD file opens at frame 1 and has no frame 0: those writers (and ``all_frames``) raise
    Pillow's error or walk no frame, so such a file goes to them as Pillow's image too."""
    try:
        opened = _cpu.open_encoded(source)
    except Exception:  # the file is gone or changed: the usual path meets that itself
        return True
    with opened:
        current = opened.tell()
        try:
            opened.seek(0)
            opened.seek(current)
        except Exception:  # Pillow's writers meet it
            return False
    return True


def lend_state(opened: PILImage.Image, image: Image) -> None:
    """Give Pillow's ``opened`` image of ``image``'s file what its loads and seeks read from
    the image itself: the ``Exif`` handed out (a TIFF loads by it; TIFF and MPO seeks reload
    it) and a TIFF's tag directories with the caller's edits (a seek reloads them in place)."""
    if image._exif is not None:
        opened._exif = image._exif
    if image._tags is not None:
        carry(opened, image._tags)


def _stand_as(opened: PILImage.Image, image: Image) -> None:
    """Put Pillow's ``opened`` file at ``image``'s frame, with its state and pixels."""
    reader = image._frame
    lend_state(opened, image)
    if reader is not None:  # a sought file (else it stands at its first frame, as opened)
        opened.seek(reader.image.tell())
    if image._info is not None:  # the handle's own dict, edits included (a copy: the writer
        opened.info.clear()  # updates its image's dict at every frame)
        opened.info.update(image._info)
    node = image._peek_node()
    unedited = (
        node is reader.frame
        if reader is not None
        else node.op == "open" and "draft" not in node.params
    )
    if unedited and image._palette is None:
        return
    pixels = _cpu.evaluate(image._node)  # a use: Pillow's image was loaded by the edits
    leaf = first_leaf(node)  # the file the edits started from
    if reader is None and leaf.op == "open" and "draft" in leaf.params:
        opened.draft(*leaf.params["draft"])  # a thumbnail drafted the file (JPEG, MPO) first
    opened.load()
    opened.im = pixels.im.copy()  # the writer may paint later frames over it
    opened._size, opened._mode = pixels.size, pixels.mode
    if pixels.mode in ("P", "PA"):
        opened.palette = pixels.palette.copy() if pixels.palette else None
    opened.readonly = 0


class Saving:
    """``save`` and ``encoderinfo`` for :class:`pillow_gpu.Image.Image`: Pillow's writers
    given what Pillow's image would give them (see the module docstring)."""

    __slots__ = ()
    _encoderinfo: dict[str, Any] | None
    _file_format: OpenedFile

    def save(
        self, fp: str | os.PathLike[str] | IO[bytes], format: str | None = None, **params: Any
    ) -> None:
        """Evaluate with Pillow (once) and save like ``PIL.Image.Image.save``.

        Lazy images in ``append_images`` (the frames of ``save_all=True``) are completed too,
        and an opened file of several frames saved with ``save_all`` writes all of them, as
        Pillow's (:func:`every_frame`). An opened JPEG saved with ``quality``,
        ``subsampling`` or ``qtables`` ``"keep"`` keeps its header's tables and subsampling,
        as Pillow's (:mod:`pillow_gpu._opened_file`); an opened TIFF saved as TIFF keeps the
        tags Pillow's encoder copies (:mod:`pillow_gpu._tiff_tags`).
        """
        params = kept_save_params(self._file_format, fp, format, params)  # a JPEG's "keep"
        every = writes_every_frame(fp, format, params)
        target = saved_format(fp, format)
        tiff = target == "TIFF"
        try:
            # (handle, the image given for it, the result it stands for, its palette object
            # before the save)
            walked: list[tuple[Image, PILImage.Image, PILImage.Image | None, Any]] = []

            def given(image: Image) -> PILImage.Image:
                pillows, result = given_to_save(image, every=every, tiff=tiff)
                walked.append((image, pillows, result, pillows.palette))
                return pillows

            frames = params.get("append_images")
            if frames is not None:
                params["append_images"] = [
                    given(cast("Image", frame)) if isinstance(frame, Saving) else frame
                    for frame in frames
                ]
            mine = given(cast("Image", self))
            refuse_crashing_save(mine, target, params)
            mine.save(fp, format, **params)
            # Pillow's writers walk the frames of the images they are given (seeking them)
            # and leave them where the walk ends: the last frame (GIF, PNG, PDF), where it
            # started (WebP, TIFF), or where AVIF's check of the modes stopped. Each opened
            # file saved stands there now, as Pillow's image would: the image its writer
            # walked becomes its reader, with what the walk left in it (where it came back to
            # its frame too: an MPO's re-read header, a GIF's rewind). A palette the writer
            # changed (its conversion to RGBA wrote the transparency in) is this handle's
            # now, as Pillow's image keeps it.
            for image, pillows, result, palette in walked:
                if result is None:
                    image._stand_as_walked(pillows, palette)
                elif result is not pillows and _palette_changed(pillows, result):
                    image._node = pil_node(pillows)
        finally:
            if self._encoderinfo is None:  # Pillow's save leaves its image one
                self._encoderinfo = {}  # type: ignore[misc]  # the slot is Image's

    @property
    def encoderinfo(self) -> dict[str, Any]:
        """``Image.encoderinfo``: writer parameters set on the image itself, which Pillow's
        ``save`` reads (those of a frame in ``append_images`` too); ``{}`` after a ``save``, as
        Pillow leaves it. Unset until assigned or saved, as Pillow's."""
        if self._encoderinfo is None:
            raise missing_attribute(self, "encoderinfo")
        return self._encoderinfo

    @encoderinfo.setter
    def encoderinfo(self, value: dict[str, Any]) -> None:
        self._encoderinfo = value  # type: ignore[misc]  # the slot is Image's
