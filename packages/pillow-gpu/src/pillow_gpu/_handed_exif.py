"""The ``Exif`` a lazy image hands out, kept as Pillow's image keeps its own.

Pillow's ``getexif()`` parses the EXIF once and returns that object on every later call, so a
caller's edits of it last: ``ImageOps.exif_transpose`` reads the orientation from it (and in
place deletes the orientation from it), and a TIFF's plugin turns the pixels while loading by
the orientation it finds there. A lazy handle keeps the ``Exif`` it handed out too
(:meth:`pillow_gpu._queries.ImageQueries.getexif`).

An opened TIFF's handle watches from ``open`` to its first use (an operation, an evaluation),
where Pillow's image loads: that is where the orientation leaves the handed ``Exif`` and the
tag directories (:mod:`pillow_gpu._tiff_tags`), and where an ``Exif`` handed out later comes
without it. Until then the file loads by that ``Exif``, as Pillow's does: while the handle
still points at the file, a changed orientation in it points the handle at the same leaf with
``exif_orientation`` among its parameters (:func:`follow_orientation`), which the decoder sets
in the header's ``Exif`` before loading (:func:`apply_orientation`); once loaded, later edits
turn nothing. Reads that load nothing in Pillow (``info``, ``getexif``, ``n_frames``, ``repr``,
...) follow the edits without ending them. A turn that changes the size the graph was recorded
on is refused when the file decodes.
"""

from __future__ import annotations

from typing import Any

from PIL import Image as PILImage

from pillow_gpu._graph import Node, undecoded_file
from pillow_gpu._load_info import tiff_loaded_info
from pillow_gpu._transposed_info import ORIENTATION

__all__ = [
    "NOTHING_HANDED",
    "ORIENTATION",
    "apply_orientation",
    "follow_orientation",
    "loading_orientation",
    "turned_while_loading",
]

#: What an opened TIFF's handle follows until it hands out an ``Exif``: the handle's
#: ``_exif_watch`` from ``open`` to its first use (None once loaded, and for other images).
NOTHING_HANDED: tuple[Any] = (object(),)


def follow_orientation(
    node: Node, exif: PILImage.Exif | None, watched: tuple[Any], *, use: bool
) -> tuple[Node, tuple[Any] | None]:
    """``(node, watched)`` at a read of an opened TIFF's handle not loaded yet: the leaf
    loading by the orientation of the handed-out ``exif`` now (nothing to follow while none is
    handed out, or once the handle no longer points at the unloaded file). A ``use`` (an
    operation, an evaluation: where Pillow's image loads) ends the following, and the
    orientation the file was turned by leaves ``exif``, as Pillow's TIFF plugin deletes it
    while loading."""
    if exif is not None and undecoded_file(node):
        orientation = exif.get(ORIENTATION)
        if orientation != watched[0]:
            # The load by this orientation strips it from the XMP packet, or not
            # (pillow_gpu._load_info): the info the operations start from follows it.
            header = node.params.get("header_info", node.info)
            loaded = tiff_loaded_info(header, orientation)
            params = {**node.params, "exif_orientation": orientation}
            params.pop("header_info", None)
            if loaded is not None:
                params["header_info"] = header
            node = type(node)(  # a relabelled leaf stays one (pillow_gpu._info_edits)
                op=node.op,
                params=params,
                mode=node.mode,
                size=node.size,
                info=header if loaded is None else loaded,
            )
        watched = (orientation,)
    if use:
        if exif is not None:
            turned_while_loading(exif)
        return node, None
    return node, watched


def loading_orientation(node: Node) -> Any:
    """The orientation an opened TIFF leaf's load turns its pixels by: the handed ``Exif``'s
    as edited before the load, else the file's (None for other leaves)."""
    params = node.params
    if "exif_orientation" in params:
        return params["exif_orientation"]
    return params.get("load_orientation")


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
