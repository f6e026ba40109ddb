"""Frame access on lazy images, as Pillow's: ``seek``, ``tell``, ``n_frames``, ``is_animated``.

A handle on an opened file reads its frames in place, as Pillow's image does: ``seek(n)`` has
Pillow open the file and decode up to frame ``n`` (its errors raised, the handle then
unchanged), and the handle becomes that frame (its mode, palette and ``info``), to be resized
or filtered on the GPU like any image; ``seek(0)`` is the file's first frame again, undecoded.
As in Pillow, operations done in place after a seek (``paste``, ``thumbnail``, ...) change the
current frame and a later ``seek`` reads the file again, and any other image (an operation's
result, a ``copy()``) has one frame. :mod:`pillow_gpu.ImageSequence` iterates them too.

Each seek reads the file afresh up to its frame, so it does not depend on the frame before:
where Pillow's own APNG reader, seeking backwards to a frame other than the first after a
load, raises "APNG contains frame sequence errors", this one reads the frame. Past the last
frame the ``EOFError`` is Pillow's (its message is the one a fresh file gives).
"""

from __future__ import annotations

from typing import Any

from PIL import Image as PILImage

from pillow_gpu import _cpu
from pillow_gpu._graph import Node
from pillow_gpu._leaves import pil_node

__all__ = ["Seekable"]


class Seekable:
    """Frame access for :class:`pillow_gpu.Image.Image` (see the module docstring)."""

    __slots__ = ()
    _node: Any
    _frame: tuple[Node, int] | None

    def _file(self) -> Node:
        """The node of the opened file this handle reads frames of (its own until a seek)."""
        return self._node if self._frame is None else self._frame[0]

    @property
    def n_frames(self) -> int:
        """Frames of an opened file (its header's count; 1 for other images)."""
        file = self._file()
        if file.op != "open":
            return 1
        with _cpu.open_encoded(file.params) as header:
            return int(getattr(header, "n_frames", 1))

    @property
    def is_animated(self) -> bool:
        """Whether an opened file holds more than one frame."""
        return self.n_frames > 1

    def tell(self) -> int:
        """``PIL.Image.Image.tell``: the current frame."""
        return 0 if self._frame is None else self._frame[1]

    def seek(self, frame: int) -> None:
        """``PIL.Image.Image.seek``: make this handle frame ``frame`` of its opened file."""
        file = self._file()
        if file.op != "open":
            PILImage.Image.seek(PILImage.new("L", (1, 1)), frame)  # Pillow's: frame 0 only
            return
        if frame == self.tell():
            return  # Pillow's _seek_check: the current frame is not read again
        if frame == 0:
            node = file
        else:
            with _cpu.open_encoded(file.params) as opened:
                opened.seek(frame)
                node = pil_node(opened)
        self._node = node
        self._frame = (file, frame)  # type: ignore[misc]  # the slot is Image's
