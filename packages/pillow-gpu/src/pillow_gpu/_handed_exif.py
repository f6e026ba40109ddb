"""The ``Exif`` a lazy image hands out, kept as Pillow's image keeps its own.

Pillow's ``getexif()`` parses the EXIF once and returns that object on every later call, so a
caller's edits of it last: ``ImageOps.exif_transpose`` reads the orientation from it (and in
place deletes the orientation from it), and a TIFF's plugin turns the pixels while loading by
the orientation it finds there. A lazy handle keeps the ``Exif`` it handed out too
(:meth:`pillow_gpu._queries.ImageQueries.getexif`).

An opened TIFF not loaded yet loads by that ``Exif``, as Pillow's loads when first used: while
the handle still points at the file, a changed orientation in it points the handle at the same
leaf with ``exif_orientation`` among its parameters (:func:`follow_orientation`), which the
decoder sets in the header's ``Exif`` before loading (:func:`apply_orientation`). The first use
of the handle (an operation, an evaluation) is where Pillow's image loads: later edits turn
nothing, and the orientation leaves the ``Exif``, as Pillow's plugin deletes it. Reads that
load nothing in Pillow (``info``, ``getexif``, ``n_frames``, ``repr``, ...) follow the edits
without ending them. A turn that changes the size the graph was recorded on is refused when
the file decodes.
"""

from __future__ import annotations

from typing import Any

from PIL import Image as PILImage

from pillow_gpu._graph import Node

__all__ = [
    "ORIENTATION",
    "apply_orientation",
    "follow_orientation",
    "turned_while_loading",
    "watched_orientation",
]

#: The EXIF orientation tag.
ORIENTATION = 0x0112


def watched_orientation(
    node: Node, header: PILImage.Image, exif: PILImage.Exif
) -> tuple[Any] | None:
    """``(orientation,)`` the leaf ``node`` loads by, to follow in the handed-out ``exif``, or
    None where loading reads no ``Exif`` (not a TIFF, or decoded already)."""
    if node.op != "open" or node.cache.get() is not None or not hasattr(header, "tag_v2"):
        return None
    return (exif.get(ORIENTATION),)


def follow_orientation(
    node: Node, exif: PILImage.Exif, watched: tuple[Any], *, use: bool
) -> tuple[Node, tuple[Any] | None]:
    """``(node, watched)`` at a read of the handle: the leaf loading by the orientation of
    ``exif`` now. A ``use`` (an operation, an evaluation: where Pillow's image loads) ends the
    following, and the orientation the file was turned by leaves ``exif``, as Pillow's TIFF
    plugin deletes it while loading. A read once the handle no longer points at the unloaded
    file ends it too (nothing is left to turn)."""
    if node.op != "open" or node.cache.get() is not None:
        return node, None
    orientation = exif.get(ORIENTATION)
    if orientation != watched[0]:
        node = type(node)(  # a relabelled leaf stays one (pillow_gpu._info_edits)
            op=node.op,
            params={**node.params, "exif_orientation": orientation},
            mode=node.mode,
            size=node.size,
            info=node.info,
        )
    if use:
        turned_while_loading(exif)
        return node, None
    return node, (orientation,)


def apply_orientation(node: Node, header: PILImage.Image) -> bool:
    """Set the orientation a handle's ``Exif`` gave the leaf in the opened ``header``'s own
    ``Exif`` before it loads; True when there was one."""
    if "exif_orientation" not in node.params:
        return False
    orientation = node.params["exif_orientation"]
    exif = header.getexif()
    if orientation is None:
        exif.pop(ORIENTATION, None)
    else:
        exif[ORIENTATION] = orientation
    return True


def turned_while_loading(exif: PILImage.Exif) -> None:
    """A loaded TIFF's ``Exif``: Pillow's plugin turned the pixels by the orientation while
    loading and deleted it from the image's ``Exif``."""
    if exif.get(ORIENTATION, 1) in range(2, 9):
        del exif[ORIENTATION]
