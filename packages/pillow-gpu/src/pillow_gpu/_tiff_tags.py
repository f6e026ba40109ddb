"""An opened TIFF's tag directories, as Pillow's ``TiffImageFile`` keeps them.

Pillow's TIFF image has ``tag_v2`` (the current frame's ``ImageFileDirectory_v2``) and
``tag`` (also ``ifd``: its legacy ``ImageFileDirectory_v1``, sharing the raw tag data), the same
objects through its in-place edits. Loading deletes the orientation from ``tag_v2`` (the pixels
were turned by it), a ``seek`` reloads them for the new frame, and ``save`` as TIFF copies tags
from them: resolution, IPTC, Photoshop and XMP always, every tag where libtiff writes the file.

A lazy handle keeps the directories Pillow read from the header when it opened the file (the
reader's after a ``seek``, :mod:`pillow_gpu._seek`) and hands out those objects, the caller's
edits included; the orientation leaves ``tag_v2`` at the handle's first use, where Pillow's
image loads (:func:`loaded`, called with :mod:`pillow_gpu._handed_exif`'s end of following),
and ``save`` gives Pillow's encoder an image that carries them (:func:`carry`,
:func:`pillow_gpu._save_all.given_to_save`), so a TIFF saved from an opened TIFF keeps Pillow's
tags. :mod:`pillow_gpu.ImageSequence` seeks the handle, as Pillow's iterator seeks its image.
A copy or an operation's result has none, as in Pillow.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from PIL import Image as PILImage
from PIL import TiffImagePlugin
from PIL.TiffImagePlugin import ImageFileDirectory_v1, ImageFileDirectory_v2
from PIL.TiffTags import TAGS_V2_GROUPS

from pillow_gpu._handed_exif import ORIENTATION
from pillow_gpu._not_recorded import missing_attribute

__all__ = [
    "TiffDirectories",
    "TiffTags",
    "carry",
    "header_directories",
    "loaded",
    "read_groups",
]

#: ``(tag_v2, tag)`` of an opened TIFF's current frame.
TiffDirectories = tuple[ImageFileDirectory_v2, ImageFileDirectory_v1]


def header_directories(header: PILImage.Image) -> TiffDirectories | None:
    """The directories of a header Pillow has just opened, or None where it is no TIFF (its
    plugin keeps no ``tag_v2``)."""
    tags = getattr(header, "tag_v2", None)
    legacy = getattr(header, "tag", None)
    if not isinstance(tags, ImageFileDirectory_v2) or not isinstance(legacy, ImageFileDirectory_v1):
        return None
    return tags, legacy


def read_groups(exif: PILImage.Exif) -> None:
    """Read a TIFF's sub-IFDs (EXIF, GPS, ...) before the header's file closes, as Pillow's
    TIFF plugin does before closing its own; ``tobytes()`` and ``get_ifd`` read them later."""
    for tag in TAGS_V2_GROUPS:
        if tag in exif:
            with contextlib.suppress(Exception):  # Pillow raises when it is read, if ever
                exif.get_ifd(tag)


def loaded(tags: TiffDirectories | None) -> None:
    """The handle's image loads now: Pillow's TIFF plugin deletes the orientation from
    ``tag_v2`` (and so from the raw data ``tag`` shares) once the pixels are turned by it."""
    if tags is not None and ORIENTATION in tags[0]:
        del tags[0][ORIENTATION]


def carry(image: PILImage.Image, tags: TiffDirectories) -> None:
    """Give ``image`` the directories ``tags`` as Pillow's ``TiffImageFile`` has them."""
    carrier: Any = image
    carrier.tag_v2, carrier.tag = tags
    carrier.ifd = tags[1]


class TiffTags:
    """``tag_v2``, ``tag``, ``ifd`` and ``get_photoshop_blocks()`` of an opened TIFF for
    :class:`pillow_gpu.Image.Image` (see the module docstring)."""

    __slots__ = ()
    _tags: TiffDirectories | None

    def _directories(self, name: str) -> TiffDirectories:
        tags = self._tags
        if tags is None:
            raise missing_attribute(self, name)
        return tags

    @property
    def tag_v2(self) -> ImageFileDirectory_v2:
        """``TiffImageFile.tag_v2``: the current frame's tags (``{tag: value}``), the same
        object on every read; edits are kept and ``save`` as TIFF reads them, as Pillow's."""
        return self._directories("tag_v2")[0]

    @property
    def tag(self) -> ImageFileDirectory_v1:
        """``TiffImageFile.tag``: the legacy directory (values as tuples) of the current frame."""
        return self._directories("tag")[1]

    @property
    def ifd(self) -> ImageFileDirectory_v1:
        """``TiffImageFile.ifd``: the same object as :attr:`tag`."""
        return self._directories("ifd")[1]

    @property
    def get_photoshop_blocks(self) -> Callable[[], dict[int, dict[str, bytes]]]:
        """``TiffImageFile.get_photoshop_blocks``: the Photoshop image resource blocks of the
        current frame's tags, by resource id."""
        tags = self._directories("get_photoshop_blocks")[0]
        blocks = TiffImagePlugin.TiffImageFile.get_photoshop_blocks
        return lambda: blocks(SimpleNamespace(tag_v2=tags))  # type: ignore[arg-type]
