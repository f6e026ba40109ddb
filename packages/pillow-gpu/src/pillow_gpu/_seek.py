"""Frame access on lazy images, as Pillow's: ``seek``, ``tell``, ``n_frames``, ``is_animated``.

A handle on an opened file reads its frames in place, as Pillow's image does. The first
``seek`` opens a Pillow reader of the file's bytes (no file handle is held) that the handle
keeps; every ``seek`` is that reader's, so Pillow's own frame logic applies (its checks and
errors, the first frame of PSD being 1, a frame's disposal depending on the frames before), and
the handle becomes the frame as Pillow loads it (mode, palette, ``info``), to be resized or
filtered on the GPU like any image. As Pillow's image, the handle loads the frame at its first
use (an operation, an evaluation, a read of its pixels or ``getpalette()``), not at the seek:
frames passed over are never loaded (Pillow's APNG reader cannot seek back once its current
frame is loaded), and the reader is lent the handle's ``info`` before the load, so an edit
since the seek reaches the pixels (an APNG frame's blending reads ``info["transparency"]``).
Until its first use the handle's ``info`` is what Pillow's image shows before loading the
frame, and the keys the load adds join it then. A frame that cannot be loaded (a file cut short
inside it) raises Pillow's error at its first use, as in Pillow, not at the seek: a loop that
catches errors where it uses each frame keeps going. As in Pillow, operations done in place
after a seek change the current frame; any other image (an operation's result, a ``copy()``)
has one frame. :mod:`pillow_gpu.ImageSequence` iterates them too. ``close()`` drops the reader.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, cast

from PIL import Image as PILImage

from pillow_gpu import _cpu
from pillow_gpu._graph import Node, first_leaf
from pillow_gpu._info_edits import handed_out
from pillow_gpu._leaves import frame_node
from pillow_gpu._save_all import every_frame, lend_state
from pillow_gpu._tiff_tags import header_directories

__all__ = ["Seekable"]


class _Reader:
    """The Pillow image a handle seeks in, the opened file's node it reads, and the node of
    the frame the last seek made (what the handle points at until edited in place)."""

    __slots__ = ("file", "frame", "header", "image", "loaded", "text")

    def __init__(self, file: Node, image: PILImage.Image | None = None) -> None:
        self.file = file
        self.frame: Node | None = None
        # Whether ``frame`` holds the sought frame's pixels; until its first use it is a leaf
        # of what the seek read (mode, size, info), as Pillow's image has not loaded it.
        self.loaded = True
        # The ``info`` Pillow's image shows right after the seek, before the sought frame
        # loads (the handle's until its next use; the load adds to it), else None.
        self.header: dict[str, Any] | None = None
        # A PNG's text chunks as Pillow's image holds them right after the seek, before the
        # sought frame loads (its ``text`` until the handle's next use), else None.
        self.text: dict[str, Any] | None = None
        if image is None:  # read whole: the reader then holds no file handle
            image = _cpu.open_whole(file.params)
        self.image = image


def _unloaded_frame(image: PILImage.Image, info: dict[str, Any]) -> Node:
    """A leaf of the frame Pillow's reader ``image`` was just sought to, before it loads: its
    mode, size and ``info`` only (:meth:`Seekable._load_frame` replaces it at its first use;
    its pixels, if ever read, raise why)."""
    error = RuntimeError(
        "why: the pixels of a sought frame were read before the frame was loaded; observed: "
        f"frame {image.tell()}, {image.mode} {image.size}; fix: this is a pillow-gpu bug, "
        "please report it (Image.open(...).seek(n) then a use loads the frame)"
    )
    return Node(op="pil", params={"failed": error}, mode=image.mode, size=image.size, info=info)


def _seek_one_frame(frame: int) -> None:
    """Pillow's ``seek`` of an image of one frame: frame 0 stays, any other raises EOFError."""
    PILImage.Image.seek(PILImage.new("L", (1, 1)), frame)


class Seekable:
    """Frame access for :class:`pillow_gpu.Image.Image` (see the module docstring)."""

    __slots__ = ()
    _node: Any
    _peek_node: Callable[[], Node]
    _frame: _Reader | None
    _info: dict[str, Any] | None
    _exif: PILImage.Exif | None
    _exif_watch: tuple[Any] | None
    _palette: Any
    _tags: Any
    _file_format: Any
    _used: bool
    _graph: Node
    _info_base: Mapping[str, Any]

    def _file(self) -> Node:
        """The node of the opened file this handle reads frames of (its own until a seek)."""
        return self._peek_node() if self._frame is None else self._frame.file

    def _read(self, read: Callable[[PILImage.Image], int], default: int) -> int:
        """``read`` of the reader of a sought file (Pillow keeps what it counted), else of
        the file's header opened now (an opened file edited in place included); ``default``
        for an image that is no file (a copy, as Pillow's copy is a plain image) or a file
        whose plugin has no frames to seek (Pillow's image answers without its file)."""
        if self._frame is not None:
            return read(self._frame.image)
        # An opened file edited in place is still that file, as Pillow's image is; a copy
        # (or an operation's result) is none, though its node may be the file's.
        params = self._file_format.source
        if params is None or not self._file_format.seeks:
            return default
        with _cpu.open_encoded(params) as header:
            return read(header)

    @property
    def n_frames(self) -> int:
        """Frames of an opened file (its header's count, counted once; 1 for other images)."""
        counted = self._file_format.counted if self._frame is None else None
        if counted and "n_frames" in counted:
            return counted["n_frames"]
        frames = self._read(lambda image: int(getattr(image, "n_frames", 1)), 1)
        if counted is not None:
            counted["n_frames"] = frames
        return frames

    @property
    def is_animated(self) -> bool:
        """Whether an opened file holds more than one frame."""
        return self.n_frames > 1

    def tell(self) -> int:
        """``PIL.Image.Image.tell``: the current frame (Pillow's first for a file not sought)."""
        return self._read(lambda image: int(image.tell()), 0)

    def seek(self, frame: int) -> None:
        """``PIL.Image.Image.seek``: make this handle frame ``frame`` of its opened file."""
        if self._frame is None and not self._file_format.seeks:
            _seek_one_frame(frame)  # no file, or one whose plugin has no frames to seek
            return
        used = self._used  # before this seek applies a handed palette below (no use of it)
        file = self._file()
        reader = self._frame
        if file.op != "open":
            # An opened file of several frames edited in place seeks as Pillow's image does,
            # from where it stands (its edited frame included, pillow_gpu._save_all).
            leaf = first_leaf(file)
            standing = every_frame(cast("Any", self)) if leaf.op == "open" else None
            if standing is None:
                _seek_one_frame(frame)
                return
            reader = _Reader(leaf, standing)
        if self._palette is not None and frame > (0 if reader is None else reader.image.tell()):
            # Pillow's GIF and APNG plugins load the current frame before seeking forward (not
            # back: they rewind): a handed palette that is dirty applies to it now
            # (pillow_gpu._palettes).
            _ = self._node
        fresh = reader is None
        reader = self._lend(reader or _Reader(file))
        before, palette = reader.image.tell(), reader.image.palette
        try:
            reader.image.seek(frame)  # Pillow's checks, errors and frame logic
        except EOFError:
            raise  # outside the sequence: Pillow checks before it loads anything
        except Exception:
            if not (fresh and used):
                # Pillow's plugins load the current frame before reading the next: a use
                self._used = self._used or frame != before  # type: ignore[misc]  # Image's slot
                raise
            # Used, Pillow's image has loaded its first frame. Where that load failed, Pillow
            # dropped the frame's tiles, and its seek goes on where a new reader's load of the
            # same frame fails again: the seek is Pillow's on a reader that has tried it too.
            reader = self._lend(_Reader(file))
            with contextlib.suppress(Exception):
                reader.image.load()
            before, palette = reader.image.tell(), reader.image.palette
            reader.image.seek(frame)
        if reader.image.tell() == before:
            return  # Pillow read nothing: the current frame stays as it is (not loaded)
        self._stand_on(reader, palette)

    def _stand_as_walked(self, image: PILImage.Image, palette: Any) -> None:
        """Stand where ``image``, Pillow's image of this handle's file that a writer walked
        (``save``), stands now, as Pillow's writer leaves Pillow's own image: ``image`` becomes
        the reader, with all the walk left in it (a GIF's rewind puts the first frame's
        transparency back into ``info`` before the next frame is read, so a second walk reads
        the frames after it as a plain seek from an edited ``info`` would not). ``palette``
        is the palette object ``image`` held before the walk."""
        file = self._file()
        self._stand_on(_Reader(file if file.op == "open" else first_leaf(file), image), palette)

    def _stand_on(self, reader: _Reader, palette: Any) -> None:
        """Make the frame ``reader`` was just sought to the handle's, not loaded yet (Pillow
        loads it at its first use); ``palette`` is the reader's palette object before."""
        read = getattr(reader.image, "_text", None)  # what the frames before it read (a dict
        reader.text = None if read is None else dict(read)  # the next loads add to in place)
        self._used = False  # type: ignore[misc]  # Pillow's image has not loaded this frame
        reader.header = cast("dict[str, Any]", dict(reader.image.info))
        # Pillow's image loads the frame at its first use (_load_frame): until then the handle
        # stands on a leaf of what the seek read.
        reader.frame, reader.loaded = _unloaded_frame(reader.image, reader.header), False
        self._frame = reader  # type: ignore[misc]  # the slot is Image's
        self._node = reader.frame
        self._exif_watch = None  # type: ignore[misc]  # loaded (by Pillow's reader)
        if self._tags is not None:  # tag_v2 the same object, tag a new one
            self._tags = header_directories(reader.image)
        self._follow_palette(palette)

    def _follow_palette(self, before: Any) -> None:
        """Hand out the reader's palette object where Pillow's seek or load replaced
        ``before`` with another (else the handle keeps the one it handed out)."""
        reader = cast("_Reader", self._frame)
        if self._palette is not None and reader.image.palette is not before:
            self._palette = (reader.image.palette,)

    def _unloaded_frame_reader(self) -> _Reader | None:
        """The reader, where the handle stands on the frame it was last sought to and that
        frame is not loaded yet (Pillow's image has not loaded it); else None."""
        reader = self._frame
        if reader is None or reader.loaded or self._graph is not reader.frame:
            return None
        return reader

    def _draft_frame(
        self, mode: str | None, size: tuple[int, int] | None
    ) -> tuple[str, tuple[int, int, float, float]] | None:
        """Pillow's ``draft`` of the sought frame it has not loaded yet (an MPO's: its frames
        are JPEGs): the reader's decoder is configured, and the handle stands on the frame
        as drafted (mode and size), to load it so at its first use; Pillow's answer."""
        reader = cast("_Reader", self._frame)
        answer: tuple[str, tuple[int, int, float, float]] | None = reader.image.draft(mode, size)
        if answer is not None:
            reader.frame = _unloaded_frame(reader.image, cast("dict[str, Any]", reader.header))
            self._node = reader.frame
        return answer

    def _load_frame(self) -> Node:
        """The sought frame loaded, at its first use (an operation, an evaluation,
        ``getpalette()``), as Pillow's image loads it: the reader is lent the handle's ``info``
        and state first, so an edit made since the seek reaches the load (an APNG frame's
        blending reads ``info["transparency"]``). A frame that fails to load raises at its
        use."""
        reader = cast("_Reader", self._frame)
        palette = self._lend(reader).image.palette
        reader.frame, reader.loaded = frame_node(reader.image), True
        self._follow_palette(palette)
        info = self._info
        if info is not None:  # Pillow's load adds to the image's own dict, edits included
            info.clear()
            info.update(handed_out(reader.frame.info))
            self._info_base = dict(reader.frame.info)  # type: ignore[misc]  # Image's slot
        return reader.frame

    def _lend(self, reader: _Reader) -> _Reader:
        """``reader``, given what Pillow's image would hold when it seeks: the handle's
        ``info`` and the state its loads and seeks read."""
        if self._info is not None:  # the handle's own dict, edits included: Pillow's seek
            reader.image.info.clear()  # updates the reader's in place (an APNG's through the
            reader.image.info.update(self._info)  # dict its chunk reader holds)
        lend_state(reader.image, cast("Any", self))  # the handed Exif, a TIFF's directories
        return reader

    def close(self) -> None:
        """Drop the reader of a sought file (loading the sought frame first, if not yet);
        otherwise nothing to close (a lazy image holds no open file). The image stays usable."""
        if self._unloaded_frame_reader() is not None:
            self._graph = self._load_frame()  # type: ignore[misc]  # the slot is Image's
        self._frame = None  # type: ignore[misc]  # the slot is Image's

    def __enter__(self) -> Any:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
