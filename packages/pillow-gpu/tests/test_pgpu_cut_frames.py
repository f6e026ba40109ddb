"""Animations and multi-page files cut short: their frames fail where Pillow's fail.

A download cut off inside an animated GIF or PNG or a multi-page TIFF still opens, and Pillow
gives its whole frames (a WebP animation cut short does not open). A frame it cannot load
raises when it is first used, not at the seek (``ImageSequence`` included), so a loop that
catches errors where it uses each frame goes on to the next, and the file's next seek may
raise in turn. Every file is written by Pillow's encoders and cut at several points; both
loops (the iterator and explicit seeks, ``pillow_gpu._testing.frame_steps``) must give
Pillow's outcome at every step: each frame's mode, size and pixels, or the type of the error
at the same step; ``ImageSequence.all_frames`` and ``save(save_all=True)`` give Pillow's
frames and bytes or raise its error type. A frame that cannot be loaded fails its own job
in an executor run (``DecodeError``), and the run goes on. (``apply --all-frames`` reports
such a file at ``frames-decode``: tests/cli/test_pgpu_cli_apply_frames.py.)
"""

from __future__ import annotations

import io
import warnings
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image, ImageSequence
from pillow_gpu._testing import (
    FRAME_LOOPS,
    LAZY_MODULES,
    PILLOW_MODULES,
    WHOLE_FILE_CALLS,
    frame_steps,
    make_image,
    whole_file_outcome,
)
from pillow_gpu.errors import DecodeError

#: Where each file is cut, as a share of its bytes.
CUTS = (0.55, 0.7, 0.85, 0.95)


def _animation(kind: str) -> bytes:
    frames = [make_image("RGB", (48, 32), seed=seed) for seed in range(5)]
    out = io.BytesIO()
    if kind == "gif":
        quantized = [frame.quantize(32) for frame in frames]
        quantized[0].save(out, "GIF", save_all=True, append_images=quantized[1:], duration=40)
    elif kind == "apng":
        frames[0].save(out, "PNG", save_all=True, append_images=frames[1:], duration=40)
    elif kind == "webp":
        frames[0].save(out, "WEBP", save_all=True, append_images=frames[1:], lossless=True)
    else:  # uncompressed pages, so that a cut falls inside a page's pixels
        frames[0].save(out, "TIFF", save_all=True, append_images=frames[1:])
    return out.getvalue()


@pytest.fixture(
    params=[(kind, cut) for kind in ("gif", "apng", "tiff") for cut in CUTS],
    ids=lambda param: f"{param[0]}-cut{int(param[1] * 100)}",
)
def cut_file(request: pytest.FixtureRequest) -> bytes:
    """A Pillow-written animation or multi-page file, cut short."""
    kind, cut = request.param
    data = _animation(kind)
    return data[: int(len(data) * cut)]


@pytest.mark.parametrize("loop", FRAME_LOOPS)
def test_cut_file_fails_at_the_frame_pillow_fails(loop: str, cut_file: bytes) -> None:
    expected = frame_steps(PILLOW_MODULES, cut_file, loop)
    assert frame_steps(LAZY_MODULES, cut_file, loop) == expected
    assert any(step[0] == "ok" for step in expected)  # the cut falls after the first frame


@pytest.mark.parametrize("how", WHOLE_FILE_CALLS)
def test_whole_file_calls_fail_as_pillows(how: str, cut_file: bytes) -> None:
    expected = whole_file_outcome(PILLOW_MODULES, cut_file, how)
    assert whole_file_outcome(LAZY_MODULES, cut_file, how) == expected


@pytest.mark.parametrize("loop", FRAME_LOOPS)
def test_cut_webp_animation_fails_at_open_as_in_pillow(loop: str) -> None:
    # libwebp's demuxer needs the whole file: Pillow opens no frame of one cut short.
    data = _animation("webp")
    data = data[: int(len(data) * 0.9)]
    expected = frame_steps(PILLOW_MODULES, data, loop)
    assert expected == [("open", "OSError")]
    assert frame_steps(LAZY_MODULES, data, loop) == expected


def test_a_frame_that_fails_raises_at_each_use_not_at_the_seek() -> None:
    data = _animation("gif")
    cut = data[: int(len(data) * 0.7)]
    with PILImage.open(io.BytesIO(cut)) as pillows:
        pillows.seek(3)  # Pillow reads the frame's header here; its pixels at the first use
        header = (pillows.mode, pillows.size, pillows.tell())
        with pytest.raises(OSError, match="truncated") as expected:
            pillows.load()
    image = Image.open(io.BytesIO(cut))
    image.seek(3)
    assert (image.mode, image.size, image.tell()) == header
    for _ in range(2):  # the same error each time, not one object chaining every raise
        with pytest.raises(OSError, match="truncated") as raised:
            image.tobytes()
        assert str(raised.value) == str(expected.value)
        assert raised.value.__traceback__ is not None
        assert len(list(_traceback_frames(raised.value))) < 40


def _traceback_frames(error: BaseException) -> Any:
    tb = error.__traceback__
    while tb is not None:
        yield tb.tb_frame
        tb = tb.tb_next


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("kind", ["gif", "apng"])
def test_executor_fails_only_the_job_of_a_frame_that_fails(kind: str) -> None:
    """The frames before the cut run exactly; the cut one fails its own job at decode (also
    where the planner needs its palette), and the run delivers every result."""
    data = _animation(kind)
    cut = data[: int(len(data) * 0.7)]
    frames: list[Image.Image] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for frame in ImageSequence.Iterator(Image.open(io.BytesIO(cut))):
                frames.append(frame.copy())  # the image itself moves on to the next frame
        except OSError:  # Pillow's seek past the frame that fails loads it first
            pass
    jobs = [(index, frame.resize((12, 8))) for index, frame in enumerate(frames)]
    jobs += [(len(frames) + index, frame) for index, frame in enumerate(frames)]
    with GpuBatchExecutor() as executor:
        results = {result.input_key: result for result in executor.run(jobs, errors="deliver")}
        assert executor.run([(0, Image.new("L", (4, 4), 7))]).__next__().image.tobytes() == (
            bytes([7]) * 16
        )
    assert sorted(results) == [key for key, _ in jobs]
    failed = [key for key, result in results.items() if not result.ok]
    assert failed == [len(frames) - 1, 2 * len(frames) - 1]
    for key in failed:
        error = results[key].error
        assert isinstance(error, DecodeError)
        assert error.stage == "decode"
        assert error.observed.startswith("OSError: image file is truncated")
    for key, graph in jobs:
        if key not in failed:
            assert results[key].image.tobytes() == graph.to_pil().tobytes()
