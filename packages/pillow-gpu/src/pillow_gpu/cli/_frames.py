"""Files of several frames in ``pillow-gpu apply``.

An output of one image would lose the frames after the first of an animation (GIF, APNG,
WebP, AVIF, FLI) or a multi-page file (TIFF, DCX). Such a file is reported and not written
unless the user asks for its first frame only (``--first-frame``), which is what
``Image.open(path)`` followed by the chain gives in Pillow, or for every frame
(``--all-frames``): each frame as Pillow's ``ImageSequence`` gives it, through the chain, saved
as Pillow's ``save_all`` saves a list of frames, with each frame's duration and the first's loop
count (:func:`animation_options`; Pillow's WebP writer would give every frame the first one's
duration otherwise).

Formats whose later frames derive from the first are never refused, since their first frame is
the picture: an MPO's (a camera's JPEG) previews and depth maps, and a PSD's layers beside its
composite image.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from PIL import Image as PILImage

from pillow_gpu import Image, ImageSequence
from pillow_gpu._graph import load_failure
from pillow_gpu.executor import BatchFailure

if TYPE_CHECKING:
    from pillow_gpu.executor import GpuBatchExecutor
    from pillow_gpu.executor._errors import BatchError

__all__ = [
    "DERIVED_FRAMES",
    "ONE_SIZE_ANIMATIONS",
    "WHOLE_MILLISECONDS",
    "ExtraFrames",
    "FrameRun",
    "FrameSizes",
    "OneFrameFormat",
    "animation_options",
    "frame_graphs",
    "refuse_extra_frames",
    "run_frames",
]

#: Formats whose frames after the first are derived from it (previews, depth maps, layers).
DERIVED_FRAMES = frozenset({"MPO", "PSD"})


class ExtraFrames(ValueError):
    """A file whose frames after the first an output of one image would lose; ``counted``
    is False where Pillow could not count them."""

    def __init__(self, message: str, *, counted: bool = True) -> None:
        super().__init__(message)
        self.counted = counted


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
        raise ExtraFrames(msg, counted=False) from error
    if frames > 1 and image.format not in DERIVED_FRAMES:
        msg = f"a {image.format} file of {frames} frames"
        raise ExtraFrames(msg)


#: Formats whose animations hold frames of one size: Pillow's GIF and APNG writers cut or pad
#: every frame to the first one's size (a GIF also draws it over the frames before), silently;
#: its WebP and AVIF writers refuse other sizes.
ONE_SIZE_ANIMATIONS = frozenset({"GIF", "PNG", "WEBP", "AVIF"})
#: Formats whose writers take whole milliseconds only: Pillow's AVIF writer raises TypeError
#: on an APNG frame's fractional duration (100.0, or 33.333...), so those are rounded.
WHOLE_MILLISECONDS = frozenset({"AVIF"})


class OneFrameFormat(ValueError):
    """Several frames of a file for a format whose files hold one image (JPEG, BMP, ...,
    which Pillow's ``save_all`` has no writer for); its message is what was observed."""


class FrameSizes(ValueError):
    """Results of a file's frames that differ in size, for a format whose animations hold
    frames of one size (:data:`ONE_SIZE_ANIMATIONS`); its message is what was observed."""


def animation_options(
    frames: Sequence[Any], output_format: str = "", left_out: list[str] | None = None
) -> dict[str, Any]:
    """``save`` options that write ``frames`` (results, in order) as one file: ``save_all``,
    the frames after the first, each frame's ``info["duration"]`` (where any has one; in
    whole milliseconds for :data:`WHOLE_MILLISECONDS`) and the first frame's ``info["loop"]``
    (where it has one; without it GIF plays once). A WebP output of a GIF whose background
    index lies outside its palette gets WebP's default background instead (Pillow's writer
    would fail looking the colour up), named in ``left_out``.

    Raises :class:`OneFrameFormat` where ``output_format``'s files hold one image, and
    :class:`FrameSizes` where the frames differ in size and its animations hold one size, so
    that no frame is cut or padded.
    """
    PILImage.init()  # every plugin's save_all writer registered
    if output_format and output_format not in PILImage.SAVE_ALL:
        msg = f"{len(frames)} frames for one {output_format} file, which holds one image"
        raise OneFrameFormat(msg)
    sizes = list(dict.fromkeys(frame.size for frame in frames))
    if len(sizes) > 1 and output_format in ONE_SIZE_ANIMATIONS:
        shown = ", ".join(f"{width}x{height}" for width, height in sizes[:4])
        more = f" and {len(sizes) - 4} more" if len(sizes) > 4 else ""
        msg = f"{len(frames)} frames of {len(sizes)} sizes ({shown}{more}) for one {output_format}"
        raise FrameSizes(msg)
    options: dict[str, Any] = {"save_all": True, "append_images": list(frames[1:])}
    durations = [frame.info.get("duration") for frame in frames]
    if any(duration is not None for duration in durations):
        options["duration"] = [duration or 0 for duration in durations]
        if output_format in WHOLE_MILLISECONDS:
            options["duration"] = [round(duration) for duration in options["duration"]]
    loop = frames[0].info.get("loop")
    if loop is not None:
        options["loop"] = loop
    if output_format == "WEBP" and _background_outside_palette(frames[0]):
        options["background"] = _WEBP_BACKGROUND
        if left_out is not None:
            left_out.append(
                "background colour (a palette index past the palette's colours, which "
                "Pillow's WebP writer cannot look up)"
            )
    return options


#: The background Pillow's WebP writer gives an animation whose first frame names none.
_WEBP_BACKGROUND = (0, 0, 0, 0)


def _background_outside_palette(image: Any) -> bool:
    """True where ``image``'s ``info["background"]`` is a palette index (a GIF's logical
    screen background) past the colours of its palette: a GIF may name any of 256 indexes
    over a shorter table, and Pillow's WebP writer looks the colour up there."""
    background = image.info.get("background")
    if not isinstance(background, int) or isinstance(background, bool):
        return False
    palette = image.getpalette()
    return bool(palette) and len(palette) < 3 * (background + 1)


def frame_graphs(
    build: Callable[[Image.Image], Image.Image],
    source: str | Path | IO[bytes],
    stopped: list[tuple[str, Exception]],
) -> Iterator[tuple[int, Image.Image]]:
    """``(frame number, build(copy of the frame))`` for every frame of the file ``source`` (a
    path or an open binary stream), each decoded when it is reached; ``build`` records a
    frame's graph (a chain's ``apply``) on a copy, as ``apply_pil`` runs on Pillow's copy of
    each frame (an in-place step such as ``thumbnail`` then leaves the opened file as it is
    for the next frame). A frame that cannot be decoded or recorded ends them, with ``(stage,
    error)`` appended to ``stopped``."""
    try:
        frames = iter(ImageSequence.Iterator(Image.open(source)))
    except Exception as error:
        stopped.append(("frames-decode", error))
        return
    number = 0
    while True:
        try:
            frame = next(frames)
        except StopIteration:
            return
        except Exception as error:  # a truncated later frame, MemoryError
            stopped.append(("frames-decode", error))
            return
        failure = load_failure(frame.node)  # a frame cut short raises at its use, as Pillow's
        if failure is not None:
            stopped.append(("frames-decode", failure))
            return
        try:
            graph = build(frame.copy())
        except Exception as error:  # a refusal at record time, or Pillow's own error
            stopped.append(("record", error))
            return
        yield number, graph
        number += 1


@dataclass(slots=True)
class FrameRun:
    """What :func:`run_frames` gave for one file: the results in frame order, or why not."""

    results: list[PILImage.Image] = field(default_factory=list)
    #: (stage, error) of the frame that could not be decoded or recorded, which ended them.
    stopped: tuple[str, Exception] | None = None
    #: The first frame's own failure the executor delivered (a refusal, a decode error).
    failure: BatchError | None = None


def run_frames(
    executor: GpuBatchExecutor,
    build: Callable[[Image.Image], Image.Image],
    source: str | Path | IO[bytes],
) -> FrameRun:
    """Run every frame of ``source`` (:func:`frame_graphs`) through ``executor`` as one stream
    of CPU outputs. A frame's own failure is delivered, and a frame that cannot be decoded or
    recorded ends the frames: either way the stream runs to its end (a stream left early
    cancels the executor). An error that is no frame's own (the executor cannot go on)
    raises."""
    stopped: list[tuple[str, Exception]] = []
    found: dict[int, PILImage.Image] = {}
    run = FrameRun()
    with executor.run(
        frame_graphs(build, source, stopped), output="cpu", errors="deliver"
    ) as stream:
        for result in stream:
            if isinstance(result, BatchFailure):
                run.failure = run.failure or result.error
            else:
                found[cast("int", result.input_key)] = cast("PILImage.Image", result.image)
    run.results = [found[number] for number in sorted(found)]
    run.stopped = stopped[0] if stopped else None
    return run
