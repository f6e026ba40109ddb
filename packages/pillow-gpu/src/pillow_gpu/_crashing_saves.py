"""Saves that would crash the Python process in the installed Pillow, refused before they run.

Two of Pillow 13.0's writers end the process on some saves instead of raising:

* its AVIF writer (with libavif 1.4.2), with a segmentation fault in its encoder's
  ``finish``, when it writes two frames or more (``save_all``, or ``append_images``) with an
  ``exif`` whose orientation (tag 274) is 2 to 8: the writer turns the orientation into the
  AVIF image's rotation and mirroring, which its sequence encoder does not survive. Without
  the orientation, with one frame, or with an orientation of 1 (or 0, or past 8) it writes
  the file;
* its JPEG 2000 writer (with OpenJPEG 2.5.4), with an assertion in the irreversible (9/7)
  wavelet transform, when a tile at the image's right or bottom edge (``tile_size`` that does
  not divide the image) has no samples left at one of the resolutions the transform
  decomposes: Pillow checks the number of resolutions against the tile size only, and
  OpenJPEG checks the whole image, not its edge tiles.

A lazy image's ``save`` and ``pillow-gpu apply`` check first (:func:`refuse_crashing_save`)
and raise :class:`CrashingSave` (an OSError), saying why and how to write the file, where this
Pillow's writer crashes on that save. The writer itself tells, in a child process: the AVIF
save of two 1x1 frames once per process; the JPEG 2000 save of the image's mode, size and
options (blank pixels: the transform's geometry is what fails) where the edge tiles are small
enough for it to fail. A Pillow whose writer survives is called as usual.
"""

from __future__ import annotations

import ast
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
    if target == "AVIF":
        orientation, frames = _avif_orientation_and_frames(image, params)
        if orientation is None or frames < 2 or not _avif_sequence_crashes():
            return
        raise CrashingSave(
            "Pillow's AVIF writer crashes the Python process (a segmentation fault in its "
            "encoder, shown by a probe of this Pillow in a child process) when it writes "
            "several frames with an Exif orientation",
            observed=f"{frames} frames and orientation {orientation} in the exif given to the "
            "writer",
            fix="turn the frames upright first (ImageOps.exif_transpose) and save with an exif "
            "without the orientation (tag 274), or without exif, or write one frame",
        )
    if target == "JPEG2000":
        _refuse_jpeg2000(image, params)


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


def _refuse_jpeg2000(image: PILImage.Image, params: Mapping[str, Any]) -> None:
    """Raise :class:`CrashingSave` where Pillow's JPEG 2000 writer would crash on ``image``
    saved with ``params`` (see the module docstring)."""
    info = {**getattr(image, "encoderinfo", {}), **params}
    tiles = info.get("tile_size")
    if not info.get("irreversible") or not tiles:
        return
    try:
        width, height = image.size
        tile_width, tile_height = (int(value) for value in tiles)
        resolutions = _resolutions(info.get("num_resolutions"), tile_width, tile_height)
        left, top = (int(value) for value in info.get("offset") or (0, 0))
        tile_left, tile_top = (int(value) for value in info.get("tile_offset") or (0, 0))
    except (TypeError, ValueError):  # Pillow's writer raises its own error for these
        return
    if tile_width < 1 or tile_height < 1 or resolutions < 2:
        return
    spans = [
        *_tile_spans(left, left + width, tile_left, tile_width),
        *_tile_spans(top, top + height, tile_top, tile_height),
    ]
    if not any(_emptied(start, end, resolutions) for start, end in spans):
        return
    literal = _literal_options(info)
    if not _jpeg2000_crashes(image.mode, image.size, repr(literal)):
        return
    raise CrashingSave(
        "Pillow's JPEG 2000 writer crashes the Python process (an assertion in OpenJPEG's "
        "irreversible wavelet transform, shown by this save's mode, size and options in a "
        "child process) when a tile at the image's edge is too small for the resolutions "
        "the transform decomposes",
        observed=f"{tile_width}x{tile_height} tiles over a {width}x{height} image, "
        f"{resolutions} resolutions, irreversible",
        fix="choose a tile_size that divides the image (or none), fewer num_resolutions, or "
        "the reversible transform (irreversible=False)",
    )


def _resolutions(asked: Any, tile_width: int, tile_height: int) -> int:
    """The resolutions Pillow's encoder asks OpenJPEG for: ``num_resolutions``, else
    OpenJPEG's 6 lowered until the tile holds 2 ** (n - 1) samples each way."""
    if asked:
        return int(asked)
    resolutions = 6
    while resolutions > 1 and min(tile_width, tile_height) < 1 << (resolutions - 1):
        resolutions -= 1
    return resolutions


def _tile_spans(start: int, end: int, tile_start: int, tile: int) -> list[tuple[int, int]]:
    """The ``[first, last)`` spans of the tiles over ``[start, end)`` on one axis."""
    spans = []
    origin = tile_start + max(0, (start - tile_start) // tile) * tile
    while origin < end:
        first, last = max(origin, start), min(origin + tile, end)
        if first < last:
            spans.append((first, last))
        origin += tile
    return spans


def _emptied(start: int, end: int, resolutions: int) -> bool:
    """Whether the span ``[start, end)`` has no sample left at a resolution the transform
    decomposes (each halves the coordinates, rounding up)."""
    return any(
        -(-end // (1 << level)) == -(-start // (1 << level)) for level in range(resolutions - 1)
    )


def _literal_options(info: Mapping[str, Any]) -> dict[str, Any]:
    """The writer's options that a child process can be given as Python literals."""
    literal = {}
    for name, value in info.items():
        try:
            if ast.literal_eval(repr(value)) == value:
                literal[name] = value
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return literal


@functools.lru_cache(maxsize=64)
def _jpeg2000_crashes(mode: str, size: tuple[int, int], options: str) -> bool:
    """Whether Pillow's JPEG 2000 writer crashes a process saving a blank ``mode`` image of
    ``size`` with ``options`` (a literal's ``repr``)."""
    program = (
        "import ast, io, sys\n"
        "from PIL import Image\n"
        "mode, size, options = ast.literal_eval(sys.argv[1])\n"
        "Image.new(mode, size).save(io.BytesIO(), 'JPEG2000', **options)\n"
    )
    return _crashes(program, f"({mode!r}, {size!r}, {options})")


@functools.cache
def _avif_sequence_crashes() -> bool:
    """Whether this Pillow's AVIF writer crashes a process writing two frames with an Exif
    orientation (probed once, in a child process; True where no probe can run)."""
    return _crashes(_PROBE)


def _crashes(program: str, *args: str) -> bool:
    """Whether ``program`` ends a child process of this interpreter by a signal (True where
    no child process can run)."""
    if getattr(sys, "frozen", False) or not sys.executable:
        return True
    try:
        probe = subprocess.run(  # this interpreter, a fixed program
            [sys.executable, "-c", program, *args],
            capture_output=True,
            timeout=_PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return True
    # Ended by a signal (a negative code here, a large one on Windows) rather than by an
    # exception of Pillow's (no AVIF support, say), which the save itself raises.
    return probe.returncode != 0 and b"Traceback" not in probe.stderr
