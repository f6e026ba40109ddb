"""The parts of Pillow's ``Image`` a lazy image does not record, each with why and what to do.

Normal attribute lookup finds everything a lazy image provides; a name it does not find comes
here, and a name of Pillow's gets an ``AttributeError`` that says why it is missing and names
the way to do it (any other name gets Python's usual message).
"""

from __future__ import annotations

__all__ = ["NOT_RECORDED", "missing_attribute"]

#: Pillow's ``Image`` attributes a lazy image does not provide, and why.
NOT_RECORDED = {
    "getim": "is the C image's handle",
    "im": "is the C image",
    "readonly": "is a flag of the C image",
}
_TO_PIL = "call it on image.to_pil(), a PIL.Image.Image with the same pixels"
_NOT_RECORDED_FIX: dict[str, str] = {}


def missing_attribute(image: object, name: str) -> AttributeError:
    """The error for attribute ``name`` of ``image``, which normal lookup did not find."""
    why = NOT_RECORDED.get(name)
    if why is None:
        return AttributeError(f"{type(image).__name__!r} object has no attribute {name!r}")
    return AttributeError(
        f"why: a lazy image records operations for the GPU, and Pillow's {name} {why}; "
        f"observed: {image!r}.{name}; fix: {_NOT_RECORDED_FIX.get(name, _TO_PIL)}"
    )
