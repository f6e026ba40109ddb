"""Saves that would crash the process in the installed Pillow are refused before they run
(``pillow_gpu._crashing_saves``): Pillow's AVIF writer given several frames and an Exif
orientation of 2 to 8.

Pillow's side of a refused case is only ever run in a child process (it ends the process it
runs in); every case the guard lets through is saved by both libraries in this one and must
give the same bytes.
"""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from PIL import features
from pillow_gpu import Image, ImageOps
from pillow_gpu import _crashing_saves as crashing
from pillow_gpu._crashing_saves import CrashingSave, refuse_crashing_save
from pillow_gpu._testing import make_image, unstamped

pytestmark = pytest.mark.skipif(
    not features.check("avif"), reason="this Pillow was built without AVIF support"
)


def _exif(orientation: int | None) -> PILImage.Exif:
    exif = PILImage.Exif()
    exif[0x010E] = "two frames"  # an image description: an Exif that is never empty
    if orientation is not None:
        exif[0x0112] = orientation
    return exif


def _child(code: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, timeout=300, check=False
    )


@pytest.fixture
def crashes() -> Iterator[None]:
    """The probe's answer taken as 'this Pillow's writer crashes' (the rule is then what is
    checked, whatever the installed Pillow does)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(crashing, "_avif_sequence_crashes", lambda: True)
        yield


def test_the_probe_answers_what_pillow_s_writer_does_in_a_child_process() -> None:
    crashed = _child(crashing._PROBE)
    assert crashing._avif_sequence_crashes() == (crashed.returncode != 0), crashed.stderr


# (orientation, frames, how the second frame is given, exif given as)
CASES = [
    (orientation, frames, given, exif_as)
    for orientation in (None, 0, 1, 2, 3, 6, 8, 9)
    for frames in (1, 2)
    for given in ("save_all", "append_only", "encoderinfo")
    for exif_as in ("bytes", "Exif")
]


def _save_kwargs(frames: int, given: str, exif: Any, library: Any) -> tuple[Any, dict[str, Any]]:
    """The first frame and ``save``'s keyword arguments of a case for ``library``'s images."""
    first = make_image("RGB", (9, 7), 1)
    second = make_image("RGB", (9, 7), 2)
    if library is Image:
        first, second = Image.from_pil(first), Image.from_pil(second)
    appended = [second] if frames == 2 else []
    if given == "save_all":
        return first, {"save_all": True, "append_images": appended, "exif": exif}
    if given == "append_only":  # save_all unset: Pillow's multi-frame writer where appended
        return first, {"append_images": appended, "exif": exif}
    first.encoderinfo = {"exif": exif, "append_images": appended}  # set on the image itself
    return first, {"save_all": True}


@pytest.mark.parametrize(
    ("orientation", "frames", "given", "exif_as"),
    CASES,
    ids=[f"orientation-{o}-{f}-frames-{g}-{e}" for o, f, g, e in CASES],
)
def test_only_several_frames_with_a_turning_orientation_are_refused(
    crashes: None, orientation: int | None, frames: int, given: str, exif_as: str
) -> None:
    def value() -> Any:  # each save its own: Pillow's writer pops the orientation it reads
        exif = _exif(orientation)
        return exif if exif_as == "Exif" else exif.tobytes()

    refused = frames == 2 and orientation in range(2, 9)
    lazy, kwargs = _save_kwargs(frames, given, value(), Image)
    out = io.BytesIO()
    if refused:
        with pytest.raises(CrashingSave) as raised:
            lazy.save(out, "AVIF", **kwargs)
        assert isinstance(raised.value, OSError)
        assert str(raised.value) == (
            "why: Pillow's AVIF writer crashes the Python process (a segmentation fault in its "
            "encoder, shown by a probe of this Pillow in a child process) when it writes "
            f"several frames with an Exif orientation; observed: 2 frames and orientation "
            f"{orientation} in the exif given to the writer; fix: turn the frames upright "
            "first (ImageOps.exif_transpose) and save with an exif without the orientation "
            "(tag 274), or without exif, or write one frame"
        )
        assert out.getvalue() == b""  # refused before the writer wrote anything
        return
    lazy.save(out, "AVIF", **kwargs)
    pillows, pillow_kwargs = _save_kwargs(frames, given, value(), PILImage)
    expected = io.BytesIO()
    pillows.save(expected, "AVIF", **pillow_kwargs)
    assert unstamped(out.getvalue()) == unstamped(expected.getvalue())


@pytest.mark.parametrize("target", ["WEBP", "PNG", "GIF", "TIFF"])
def test_other_formats_write_the_same_frames_and_orientation(crashes: None, target: str) -> None:
    frames = [make_image("RGB", (9, 7), seed) for seed in (1, 2)]
    exif = _exif(6).tobytes()
    out = io.BytesIO()
    lazy = [Image.from_pil(frame) for frame in frames]
    lazy[0].save(out, target, save_all=True, append_images=lazy[1:], exif=exif)
    expected = io.BytesIO()
    frames[0].save(expected, target, save_all=True, append_images=frames[1:], exif=exif)
    assert unstamped(out.getvalue()) == unstamped(expected.getvalue())


def test_the_check_leaves_the_caller_s_exif_as_it_was(crashes: None) -> None:
    # Pillow's AVIF writer pops the orientation from an Exif it is given; the check reads it.
    exif = _exif(6)
    image = make_image("RGB", (9, 7), 1)
    with pytest.raises(CrashingSave):
        refuse_crashing_save(image, "AVIF", {"append_images": [image], "exif": exif})
    assert dict(exif) == {0x010E: "two frames", 0x0112: 6}


def test_an_opened_animation_counts_its_own_frames(crashes: None, tmp_path: Path) -> None:
    path = tmp_path / "two.webp"
    first, second = (make_image("RGB", (9, 7), seed) for seed in (1, 2))
    first.save(path, save_all=True, append_images=[second], duration=40)
    exif = _exif(6).tobytes()
    with pytest.raises(CrashingSave, match="observed: 2 frames and orientation 6"):
        Image.open(path).save(io.BytesIO(), "AVIF", save_all=True, exif=exif)
    # Without save_all the writer encodes the first frame only, and writes it.
    out = io.BytesIO()
    Image.open(path).save(out, "AVIF", exif=exif)
    expected = io.BytesIO()
    with PILImage.open(path) as opened:
        opened.save(expected, "AVIF", exif=exif)
    assert unstamped(out.getvalue()) == unstamped(expected.getvalue())


def test_a_refused_save_to_a_path_creates_no_file(crashes: None, tmp_path: Path) -> None:
    lazy = Image.from_pil(make_image("RGB", (9, 7), 1))
    target = tmp_path / "out.avif"
    with pytest.raises(CrashingSave):
        lazy.save(target, save_all=True, append_images=[ImageOps.mirror(lazy)], exif=_exif(3))
    assert not target.exists()


_SCENARIO = """
    import io, sys
    from PIL import Image as PILImage
    from pillow_gpu import Image
    library = {library}
    exif = PILImage.Exif()
    exif[0x0112] = {orientation}
    frames = [PILImage.new("RGB", (9, 7), "red"), PILImage.new("RGB", (9, 7), "blue")]
    if library is Image:
        frames = [Image.from_pil(frame) for frame in frames]
    try:
        frames[0].save(io.BytesIO(), "AVIF", save_all=True, append_images=frames[1:], exif=exif)
    except OSError as error:
        print(type(error).__name__)
    else:
        print("written")
"""


@pytest.mark.parametrize("orientation", [2, 8])
def test_the_process_survives_where_pillow_s_does_not(orientation: int) -> None:
    # Both libraries in a child process, with the real probe: pillow-gpu's refuses exactly
    # where Pillow's ends its process, and writes Pillow's file where Pillow's writer survives.
    pillows = _child(_SCENARIO.format(library="PILImage", orientation=orientation))
    ours = _child(_SCENARIO.format(library="Image", orientation=orientation))
    assert ours.returncode == 0, ours.stderr
    if pillows.returncode != 0:
        assert b"Traceback" not in pillows.stderr, pillows.stderr  # a crash, not an error
        assert ours.stdout.strip() == b"CrashingSave"
    else:
        assert (pillows.stdout.strip(), ours.stdout.strip()) == (b"written", b"written")


def test_transposed_frames_are_written_as_pillow_writes_them() -> None:
    # The fix the error names: frames turned upright, an exif without the orientation.
    frames = [make_image("RGB", (9, 7), seed) for seed in (1, 2)]
    for frame in frames:
        frame.info["exif"] = _exif(6).tobytes()
    upright = [PILImageOps.exif_transpose(frame) for frame in frames]
    lazy = [ImageOps.exif_transpose(Image.from_pil(frame)) for frame in frames]
    out, expected = io.BytesIO(), io.BytesIO()
    exif = upright[0].info["exif"]
    lazy[0].save(out, "AVIF", save_all=True, append_images=lazy[1:], exif=exif)
    upright[0].save(expected, "AVIF", save_all=True, append_images=upright[1:], exif=exif)
    assert unstamped(out.getvalue()) == unstamped(expected.getvalue())


#: JPEG 2000 saves: (mode, size, options). Irreversible, tiles that do not divide the image:
#: whether an edge tile keeps a sample at every resolution decides.
JPEG2000_CASES = {
    "edge-tiles-emptied": ("RGB", (127, 64), {"tile_size": (31, 30)}),
    "edge-tiles-emptied-L": ("L", (127, 64), {"tile_size": (31, 30)}),
    "edge-tiles-emptied-offsets": (
        "L",
        (62, 33),
        {"tile_size": (21, 20), "tile_offset": (3, 1), "offset": (5, 2)},
    ),
    "edge-tiles-kept-offsets": (
        "L",
        (90, 33),
        {"tile_size": (20, 20), "tile_offset": (3, 1), "offset": (5, 2)},
    ),
    "edge-tiles-emptied-3-resolutions": (
        "L",
        (50, 50),
        {"tile_size": (7, 7), "num_resolutions": 3},
    ),
    "tiles-divide-the-image": ("RGB", (124, 60), {"tile_size": (31, 30)}),
    "wide-edge-tiles": ("L", (80, 80), {"tile_size": (32, 32)}),
    "no-tiles": ("RGB", (127, 64), {}),
}


def _jpeg2000_child(mode: str, size: tuple[int, int], options: dict[str, Any]) -> int:
    """The exit code of Pillow's save of ``mode``/``size`` pixels in a child process."""
    program = f"""
        import io
        from PIL import Image
        Image.new({mode!r}, {size!r}, 7).save(io.BytesIO(), "JPEG2000", **{options!r})
    """
    return _child(program).returncode


@pytest.mark.skipif(not features.check("jpg_2000"), reason="this Pillow has no JPEG 2000 writer")
@pytest.mark.parametrize("case", list(JPEG2000_CASES))
@pytest.mark.parametrize("irreversible", [True, False], ids=["irreversible", "reversible"])
def test_a_jpeg2000_save_is_refused_exactly_where_pillow_s_crashes(
    case: str, irreversible: bool
) -> None:
    mode, size, options = JPEG2000_CASES[case]
    options = {**options, "irreversible": irreversible}
    crashed = _jpeg2000_child(mode, size, options) < 0
    source = make_image(mode, size, 5)
    lazy = Image.from_pil(source)
    out = io.BytesIO()
    if crashed:
        with pytest.raises(CrashingSave, match=r"observed: \d+x\d+ tiles over a \d+x\d+ image, "):
            lazy.save(out, "JPEG2000", **options)
        assert out.getvalue() == b""
        return
    lazy.save(out, "JPEG2000", **options)
    expected = io.BytesIO()
    source.save(expected, "JPEG2000", **options)
    assert out.getvalue() == expected.getvalue()


@pytest.mark.skipif(
    features.version("jpg_2000") != "2.5.4", reason="the crash was measured with OpenJPEG 2.5.4"
)
def test_the_jpeg2000_cases_hold_crashes_and_saves() -> None:
    # The table above holds both kinds with this OpenJPEG (else the test above checks one).
    outcomes = {
        case: _jpeg2000_child(mode, size, {**options, "irreversible": True}) < 0
        for case, (mode, size, options) in JPEG2000_CASES.items()
    }
    assert outcomes == {
        "edge-tiles-emptied": True,
        "edge-tiles-emptied-L": True,
        "edge-tiles-emptied-offsets": True,
        "edge-tiles-emptied-3-resolutions": True,
        "edge-tiles-kept-offsets": False,
        "tiles-divide-the-image": False,
        "wide-edge-tiles": False,
        "no-tiles": False,
    }


def test_a_predicted_jpeg2000_crash_that_this_pillow_survives_is_saved() -> None:
    image = make_image("RGB", (127, 64), 1)
    options = {"tile_size": (31, 30), "irreversible": True}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(crashing, "_jpeg2000_crashes", lambda *_args: False)
        refuse_crashing_save(image, "JPEG2000", options)  # no error: the writer is called
    with pytest.raises(CrashingSave):  # the child process of this Pillow says it crashes
        refuse_crashing_save(image, "JPEG2000", options)
