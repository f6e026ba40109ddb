"""Edits of a lazy image's ``info`` dictionary, kept as Pillow keeps them.

Pillow's ``Image.info`` is the image's own dict: ``im.info["dpi"] = (300, 300)``,
``del im.info["exif"]`` or ``im.info = {...}`` last, reach the operations recorded after them
(``convert`` reads ``info["transparency"]``) and the encoders (PNG reads ``icc_profile`` and
``transparency`` from it). A lazy handle hands out one dict of its own too
(:attr:`pillow_gpu.Image.Image.info`); while it is unedited it follows the graph (an opened
PNG's chunks after its pixels join it once the file is loaded, as Pillow adds them to the same
dict). Once it differs from what the graph reports, the next use of the handle points it at a
:class:`RelabelledNode`: the same operation and inputs with the edited ``info``, which every
route then reports: the GPU routes read ``node.info``, and the CPU route gives the node's
result exactly this ``info`` (:func:`with_info`).

Where the image has pixels already (a loaded file, a completed result), the relabelled node
starts completed with those pixels and the edited ``info``, as Pillow's image is (a loaded
file stays a file: it still seeks). An opened file not loaded yet
decodes with the edited ``info`` in place (:func:`edited_header`): Pillow's plugins read and
extend that dict while loading (a PNG adds its chunks after the pixels, a TIFF turns its pixels
by the EXIF orientation it finds there). A file the edit makes load at another size or mode
than the one recorded at open (a TIFF whose orientation was edited) is refused when it decodes
(``Unsupported``): the graph recorded on it no longer holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from PIL import Image as PILImage

from pillow_gpu._graph import Node
from pillow_gpu._handed_exif import loading_orientation
from pillow_gpu._load_info import tiff_loaded_info
from pillow_gpu._png_tail import LATE_INFO, keys_set_by_load

__all__ = [
    "RelabelledNode",
    "edited_header",
    "handed_out",
    "relabelled",
    "same_info",
    "unloaded_header",
    "with_info",
]


class RelabelledNode(Node):
    """A node whose ``info`` the caller edited: its result carries ``info`` as it is."""

    __slots__ = ()


def handed_out(info: Mapping[str, Any]) -> dict[str, Any]:
    """The dict a handle gives its caller: a copy whose lists are copies too (as Pillow's
    ``copy()`` makes them), so editing one in place is seen as an edit."""
    return {key: list(value) if isinstance(value, list) else value for key, value in info.items()}


def same_info(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """True when two info mappings hold the same keys and values (values compared by identity
    first; a value whose ``==`` does not answer True, such as an array's, counts as changed)."""
    if first.keys() != second.keys():
        return False
    for key, value in first.items():
        other = second[key]
        if value is other:
            continue
        try:
            if not bool(value == other):
                return False
        except Exception:
            return False
    return True


def unloaded_header(node: Node) -> Mapping[str, Any] | None:
    """The header's ``info`` of an opened file not loaded yet whose loads add to it (its leaf
    keeps ``header_info`` beside the loaded ``info``), else None."""
    if node.op != "open" or node.cache.get() is not None:
        return None
    return cast("Mapping[str, Any] | None", node.params.get("header_info"))


def _set_by_load(node: Node) -> frozenset[str]:
    """The ``info`` keys an opened file's load sets whatever the header said: a PNG's from its
    chunks after the image data (:func:`pillow_gpu._png_tail.keys_set_by_load`), a WebP's or
    AVIF's frame timing; none for other leaves."""
    if node.op != "open":
        return frozenset()
    params = node.params
    if params.get("format") in ("WEBP", "AVIF"):
        return frozenset({"timestamp", "duration"})
    if params.get("format") == "PNG" and LATE_INFO in params.get("late", ()):
        return keys_set_by_load(params.get("path"), params.get("data"))
    return frozenset()


def relabelled(
    node: Node, info: Mapping[str, Any], header: Mapping[str, Any] | None = None
) -> RelabelledNode:
    """``node``'s result reporting ``info`` (see the module docstring).

    An opened file not loaded yet reports its header's info (and a frame sought and not used
    since, the ``header`` its handle showed); Pillow's plugins add what they read while
    loading to that same dict, so those entries join the edited info (over an edit of the
    same key, as in Pillow), and the header kept for the handle's later reads becomes the
    edited one.
    """
    done = node.cache.get()
    params: Mapping[str, Any] = node.params
    reported = dict(info)
    if header is None:
        header = unloaded_header(node)
    if node.op == "open" and done is None and params.get("format") == "TIFF":
        # Pillow's TIFF load ends with exif_transpose in place over the edited dict: a turn
        # strips the orientation from the XMP packet given (pillow_gpu._load_info).
        loaded = tiff_loaded_info(info, loading_orientation(node))
        if loaded is not None:
            reported = loaded
        params = {**params, "header_info": dict(info)}
    elif header is not None:
        again = _set_by_load(node)
        late = {
            key: value
            for key, value in node.info.items()
            if key not in header or key in again or not same_info({key: header[key]}, {key: value})
        }
        reported.update(late)
        if node.op == "open":  # the file decodes with the edited header in place
            params = {**params, "header_info": dict(info)}
    result = RelabelledNode(
        op=node.op,
        params=params,
        inputs=node.inputs,
        mode=node.mode,
        size=node.size,
        info=reported,
    )
    if done is not None:  # pixels already: those pixels carry the edited info (no new run)
        kept = done.copy()
        if done.palette is None:  # a P file without a palette keeps none (the copy has one)
            kept.palette = None
        kept.info = cast("dict[str | tuple[int, int], Any]", handed_out(info))
        result.cache.put(kept)
    return result


def edited_header(node: Node) -> Mapping[str, Any] | None:
    """The ``info`` the caller gave an opened file before it loaded (a relabelled ``open``
    leaf), to put in place of the opened header's before it loads; else None."""
    if type(node) is not RelabelledNode or node.op != "open":
        return None
    return cast("Mapping[str, Any]", node.params.get("header_info", node.info))


def with_info(image: PILImage.Image, node: Node, sources: Iterable[object] = ()) -> PILImage.Image:
    """``image`` carrying exactly a :class:`RelabelledNode`'s ``info`` (a copy when it is one
    of ``sources``, the images other nodes hold); other nodes' images as they are, unchecked."""
    if type(node) is not RelabelledNode:
        return image
    shared = any(image is source for source in sources)
    if shared and same_info(cast("Mapping[str, Any]", image.info), node.info):
        return image  # a relabelled leaf's own pixels, carrying its info already
    result = image.copy() if shared else image
    result.info = cast("dict[str | tuple[int, int], Any]", handed_out(node.info))
    return result
