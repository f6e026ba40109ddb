"""The parts of Pillow's ``Image`` a lazy image does not record, each with why and what to do.

Normal attribute lookup finds everything a lazy image provides; a name it does not find comes
here, and a name of Pillow's gets an ``AttributeError`` that says why it is missing and names
the way to do it (any other name gets Python's usual message).
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["FILE_ONLY", "NOT_RECORDED", "PILLOW_INTERNALS", "Refused", "missing_attribute"]

#: Pillow's ``Image`` attributes a lazy image does not provide, and why.
NOT_RECORDED = {
    "getim": "is the C image's handle",
    "im": "is the C image",
    "readonly": "is a flag of the C image",
}
_TO_PIL = "call it on image.to_pil(), a PIL.Image.Image with the same pixels"
_NOT_RECORDED_FIX: dict[str, str] = {}


#: Attributes of Pillow's opened files (``ImageFile``) a lazy image does not keep, and why.
FILE_ONLY = {
    "filename": (
        "only an image Image.open returned has a filename, as Pillow's ImageFile (a copy or "
        "an operation's result is no file)",
        "keep the path you passed to Image.open",
    ),
    "get_format_mimetype": (
        "only an image Image.open returned has a format MIME type, as Pillow's ImageFile (a "
        "copy or an operation's result is no file)",
        "keep the opened image's get_format_mimetype(), or use PIL.Image.MIME",
    ),
    "_getexif": (
        "Pillow's JPEG, MPO, PNG and WebP files have the legacy _getexif(); other images do not",
        "call image.getexif() (image.getexif()._get_merged_dict() for the same dict)",
    ),
    "quantization": (
        "only an opened JPEG (or MPO) has quantization tables, as Pillow's JpegImageFile (a "
        "copy or an operation's result is no file)",
        "keep the opened image's quantization",
    ),
    "fp": (
        "a lazy image holds no open file: open() read the header and closed it, and the "
        "decoder reopens the file when the graph is evaluated",
        "open the file yourself, or use PIL.Image.open for its fp",
    ),
    "tile": (
        "the decoder's tile list belongs to Pillow's loader, which runs when the graph is "
        "evaluated",
        "call PIL.Image.open(path).tile",
    ),
    "text": (
        "only an opened PNG has text chunks, as Pillow's PngImageFile",
        "read image.info (the same entries), or PIL.Image.open(...).text",
    ),
}
_TIFF_ONLY = (
    "only an opened TIFF has tag directories, as Pillow's TiffImageFile (a copy or an "
    "operation's result is no file)",
    "keep the opened image's tag_v2 (or read PIL.Image.open(path).tag_v2), and pass "
    "tiffinfo=... to save",
)
FILE_ONLY.update(dict.fromkeys(("tag_v2", "tag", "ifd", "get_photoshop_blocks"), _TIFF_ONLY))


#: Private names of Pillow's ``Image`` that Pillow's own module functions call on the images
#: they are given, and why a lazy image has none (what a caller of those functions should do).
PILLOW_INTERNALS = {
    "_new": (
        "Pillow's module functions (PIL.Image.blend, alpha_composite and merge, PIL.ImageChops, "
        "PIL.ImageEnhance) work on C images and wrap their result with _new; a lazy image "
        "records operations for the GPU and has no C image",
        "call pillow_gpu's function of the same name (pillow_gpu.Image.blend, "
        "pillow_gpu.ImageChops, pillow_gpu.ImageEnhance), which takes lazy images, or pass "
        "image.to_pil() to Pillow's",
    ),
}


def missing_attribute(image: object, name: str) -> AttributeError:
    """The error for attribute ``name`` of ``image``, which normal lookup did not find."""
    explained = FILE_ONLY.get(name) or PILLOW_INTERNALS.get(name)
    if explained is not None:
        return AttributeError(
            f"why: {explained[0]}; observed: {image!r} has no {name}; fix: {explained[1]}"
        )
    why = NOT_RECORDED.get(name)
    if why is None:
        return AttributeError(f"{type(image).__name__!r} object has no attribute {name!r}")
    return AttributeError(
        f"why: a lazy image records operations for the GPU, and Pillow's {name} {why}; "
        f"observed: {image!r}.{name}; fix: {_NOT_RECORDED_FIX.get(name, _TO_PIL)}"
    )


class Refused:
    """A name of :data:`NOT_RECORDED` (``im``, ``readonly``) on the lazy image's class: reading
    it raises :func:`missing_attribute`'s error, and so does assigning it, which a lazy image's
    own ``__dict__`` (where code keeps its attributes, as on Pillow's image) would otherwise
    take silently, changing none of the pixels Pillow's assignment changes."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        raise missing_attribute(instance, self._name)

    def __set__(self, instance: object, value: object) -> NoReturn:
        raise missing_attribute(instance, self._name)
