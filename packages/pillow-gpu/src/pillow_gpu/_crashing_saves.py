"""Saves that would crash the Python process in the installed Pillow, refused before they run.

Pillow 13.0's AVIF writer (with libavif 1.4.2) ends the process with a segmentation fault,
in its encoder's ``finish``, when it writes two frames or more (``save_all``, or
``append_images``) with an ``exif`` whose orientation (tag 274) is 2 to 8: the writer turns
the orientation into the AVIF image's rotation and mirroring, which its sequence encoder does
not survive. Without the orientation, with one frame, or with an orientation of 1 (or 0, or
past 8) it writes the file.

A lazy image's ``save`` and ``pillow-gpu apply`` check for that save first
(:func:`refuse_crashing_save`) and raise OSError, saying why and how to write the file, where
this Pillow's writer crashes on it: a probe runs that save of two 1x1 frames once per process,
in a child process (:func:`_avif_sequence_crashes`). A Pillow whose writer survives the probe
is called as usual.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from PIL import Image as PILImage

__all__ = ["CrashingSave", "refuse_crashing_save"]

#: Exif's orientation tag, and the values that turn or mirror the image.
_ORIENTATION = 274
_TURNING = range(2, 9)

#: The probe: Pillow's AVIF writer given two frames and an Exif orientation.
_PROBE = (
    "import io\n"
    "from PIL import Image\n"
    "exif = Image.Exif()\n"
    "exif[274] = 6\n"
    "frames = [Image.new('L', (1, 1)), Image.new('L', (1, 1), 255)]\n"
    "frames[0].save(io.BytesIO(), 'AVIF', save_all=True, append_images=frames[1:],"
    " exif=exif.tobytes())\n"
)
_PROBE_SECONDS = 120


class CrashingSave(OSError):
    """A save refused because Pillow's writer would crash the process on it."""

    def __init__(self, why: str, *, observed: str, fix: str) -> None:
        self.why, self.observed, self.fix = why, observed, fix
        super().__init__(f"why: {why}; observed: {observed}; fix: {fix}")


def refuse_crashing_save(
    image: PILImage.Image, target: str | None, params: Mapping[str, Any]
) -> None:
    """Raise :class:`CrashingSave` where Pillow's ``image.save(fp, target, **params)``
    (``target`` the format the save writes, in capitals) would crash the process."""
    if target != "AVIF":
        return
    orientation, frames = _avif_orientation_and_frames(image, params)
    if orientation is None or frames < 2 or not _avif_sequence_crashes():
        return
    raise CrashingSave(
        "Pillow's AVIF writer crashes the Python process (a segmentation fault in its "
        "encoder, shown by a probe of this Pillow in a child process) when it writes several "
        "frames with an Exif orientation",
        observed=f"{frames} frames and orientation {orientation} in the exif given to the writer",
        fix="turn the frames upright first (ImageOps.exif_transpose) and save with an exif "
        "without the orientation (tag 274), or without exif, or write one frame",
    )


def _avif_orientation_and_frames(
    image: PILImage.Image, params: Mapping[str, Any]
) -> tuple[int | None, int]:
    """The Exif orientation (2 to 8) Pillow's AVIF writer would encode, or None, and how many
    frames it would write (0 where a count raises: the writer meets that error itself)."""
    save_all = params.get("save_all")
    info = {**getattr(image, "encoderinfo", {}), **params}  # as Pillow's save merges them
    if not (save_all or (save_all is None and params.get("append_images"))):
        return None, 1  # the writer of one frame
    exif = info.get("exif")
    if not exif:
        return None, 1
    try:
        if isinstance(exif, PILImage.Exif):
            orientation = exif.get(_ORIENTATION)
        else:
            loaded = PILImage.Exif()
            loaded.load(exif)
            orientation = loaded.get(_ORIENTATION)
        frames = sum(
            int(getattr(frame, "n_frames", 1))
            for frame in [image, *list(info.get("append_images") or [])]
        )
    except Exception:  # Pillow's writer raises the same reading them, before its encoder runs
        return None, 0
    if type(orientation) is not int or orientation not in _TURNING:
        return None, frames
    return orientation, frames


@functools.cache
def _avif_sequence_crashes() -> bool:
    """Whether this Pillow's AVIF writer crashes a process writing two frames with an Exif
    orientation (probed once, in a child process; True where no probe can run)."""
    if getattr(sys, "frozen", False) or not sys.executable:
        return True
    try:
        probe = subprocess.run(  # this interpreter, a fixed program
            [sys.executable, "-c", _PROBE],
            capture_output=True,
            timeout=_PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return True
    # Ended by a signal (a negative code here, a large one on Windows) rather than by an
    # exception of Pillow's (no AVIF support, say), which the save itself raises.
    return probe.returncode != 0 and b"Traceback" not in probe.stderr
