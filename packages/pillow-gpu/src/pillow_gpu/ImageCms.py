"""``PIL.ImageCms`` for lazy images: colour management by LittleCMS, run by Pillow.

LittleCMS transforms an image's C buffer, so a lazy image given to :func:`profileToProfile`,
:func:`applyTransform` or an :class:`ImageCmsTransform` is completed with Pillow first (its
graph runs once, as for ``to_pil()``) and Pillow's own code runs on it, its checks and errors
(``PyCMSError``) included. A new image it returns comes back as a lazy image (with the output
profile in its ``info``, as Pillow's), ready for further operations on the GPU; ``inPlace=True``
and ``apply_in_place`` change the lazy handle's pixels, as Pillow's change its image. Pillow's
images pass through as in Pillow. The transforms the ``build*`` functions return take lazy
images too. Every other name (profiles, ``createProfile``, the ``getProfile*`` queries, the
enums) is Pillow's.

Converting a photo to sRGB by its embedded profile::

    im = Image.open("photo.jpg")
    source = ImageCms.ImageCmsProfile(io.BytesIO(im.info["icc_profile"]))
    im = ImageCms.profileToProfile(im, source, ImageCms.createProfile("sRGB"), outputMode="RGB")
    im.thumbnail((512, 512))  # on the GPU
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from PIL import Image as PILImage
from PIL import ImageCms as _PILImageCms

from pillow_gpu._image import Image
from pillow_gpu._pixel_edits import edit_in_place, lazy_result, pillow_image

__all__ = [
    "ImageCmsTransform",
    "applyTransform",
    "buildProofTransform",
    "buildProofTransformFromOpenProfiles",
    "buildTransform",
    "buildTransformFromOpenProfiles",
    "profileToProfile",
]

_Intent = _PILImageCms.Intent
_Flags = _PILImageCms.Flags


class ImageCmsTransform(_PILImageCms.ImageCmsTransform):
    """``PIL.ImageCms.ImageCmsTransform`` that also takes lazy images."""

    # No state of its own: a transform Pillow built can take this class (``_ours``).
    __slots__ = ()

    def point(self, im: Any) -> Any:
        """``apply(im)``, as Pillow's ``point``."""
        return self.apply(im)

    def apply(self, im: Any, imOut: Any = None) -> Any:
        """The transform of ``im`` into a new image (lazy for a lazy ``im``) or into ``imOut``
        (a lazy ``imOut``'s pixels become the result)."""
        apply = _PILImageCms.ImageCmsTransform.apply
        if isinstance(imOut, Image):
            edit_in_place(imOut, lambda out: apply(self, pillow_image(im), out))
            return imOut
        result = apply(self, pillow_image(im), imOut)
        return lazy_result(result) if imOut is None and isinstance(im, Image) else result

    def apply_in_place(self, im: Any) -> Any:
        """The transform of ``im`` in place (a lazy handle's pixels change)."""
        if isinstance(im, Image):
            edit_in_place(im, super().apply_in_place)
            return im
        return super().apply_in_place(im)


def _ours(build: Callable[..., _PILImageCms.ImageCmsTransform]) -> Callable[..., Any]:
    """Pillow's ``build`` whose transform is an :class:`ImageCmsTransform` (the same object,
    built by Pillow with its checks; only its class changes, which adds no state)."""

    @functools.wraps(build)
    def built(*args: Any, **kwargs: Any) -> ImageCmsTransform:
        transform = build(*args, **kwargs)
        transform.__class__ = ImageCmsTransform
        return transform  # type: ignore[return-value]  # its class is ours now

    return built


buildTransform = _ours(_PILImageCms.buildTransform)
buildTransformFromOpenProfiles = _ours(_PILImageCms.buildTransformFromOpenProfiles)
buildProofTransform = _ours(_PILImageCms.buildProofTransform)
buildProofTransformFromOpenProfiles = _ours(_PILImageCms.buildProofTransformFromOpenProfiles)


def profileToProfile(  # noqa: PLR0917 - Pillow's signature
    im: Any,
    inputProfile: Any,
    outputProfile: Any,
    renderingIntent: _PILImageCms.Intent = _Intent.PERCEPTUAL,
    outputMode: str | None = None,
    inPlace: bool = False,
    flags: _PILImageCms.Flags = _Flags.NONE,
) -> Any:
    """``PIL.ImageCms.profileToProfile`` of a lazy or PIL image (see the module docstring)."""
    return _converted(
        im,
        inPlace,
        lambda image, in_place: _PILImageCms.profileToProfile(
            image, inputProfile, outputProfile, renderingIntent, outputMode, in_place, flags
        ),
    )


def applyTransform(
    im: Any,
    transform: _PILImageCms.ImageCmsTransform,
    inPlace: bool = False,
) -> Any:
    """``PIL.ImageCms.applyTransform`` of a lazy or PIL image (see the module docstring)."""
    return _converted(
        im,
        inPlace,
        lambda image, in_place: _PILImageCms.applyTransform(image, transform, in_place),
    )


def _converted(im: Any, in_place: bool, convert: Callable[[PILImage.Image, bool], Any]) -> Any:
    """Pillow's ``convert(image, in_place)`` of ``im``: a PIL image as in Pillow; a lazy one's
    pixels changed in place (None), or converted into a new lazy image."""
    if not isinstance(im, Image):
        return convert(im, in_place)
    if in_place:
        edit_in_place(im, lambda pixels: convert(pixels, True))
        return None
    return lazy_result(convert(pillow_image(im), False))


def __getattr__(name: str) -> Any:
    """Pillow's other names (profiles, ``createProfile``, queries, enums) are its own."""
    return getattr(_PILImageCms, name)
