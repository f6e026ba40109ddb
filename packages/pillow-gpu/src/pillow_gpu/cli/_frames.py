"""Files of several frames in ``pillow-gpu apply``.

An output holds one image, so the frames after the first of an animation (GIF, APNG, WebP,
AVIF, FLI) or a multi-page file (TIFF, DCX) would be lost. Such a file is reported and not
written unless the user asks for its first frame only (``--first-frame``), which is what
``Image.open(path)`` followed by the chain gives in Pillow.

Formats whose later frames derive from the first are never refused, since their first frame is
the picture: an MPO's (a camera's JPEG) previews and depth maps, and a PSD's layers beside its
composite image.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DERIVED_FRAMES", "ExtraFrames", "refuse_extra_frames"]

#: Formats whose frames after the first are derived from it (previews, depth maps, layers).
DERIVED_FRAMES = frozenset({"MPO", "PSD"})


class ExtraFrames(ValueError):
    """A file whose frames after the first an output of one image would lose."""


def refuse_extra_frames(image: Any) -> None:
    """Raise :class:`ExtraFrames` when ``image`` (opened, header only) holds frames after the
    first that are not derived from it, or frames Pillow cannot count (an animation cut short
    after its first frame); its message is what was observed."""
    try:
        frames = getattr(image, "n_frames", 1)
    except Exception as error:  # Pillow reads past the first frame to count them
        msg = (
            f"a {image.format} file whose frames after the first could not be counted "
            f"({type(error).__name__}: {error})"
        )
        raise ExtraFrames(msg) from error
    if frames > 1 and image.format not in DERIVED_FRAMES:
        msg = f"a {image.format} file of {frames} frames"
        raise ExtraFrames(msg)
