"""``seek`` and ``tell`` on lazy images of multi-frame files, against Pillow's own loop.

Files are animations Pillow writes (GIF with a palette per frame and a transparent colour,
APNG, WebP, a multi-page TIFF of mixed modes); each frame reached by ``seek`` must have
Pillow's mode, size, ``info`` and pixels, and go to the GPU like any image.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from PIL import ImageSequence as PILImageSequence
from PIL import PngImagePlugin
from pillow_gpu import GpuBatchExecutor, Image, ImageOps, ImageSequence
from pillow_gpu._testing import assert_image_equal, make_image, png_without_chunk
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")


def _frames(count: int) -> list[PILImage.Image]:
    rng = np.random.default_rng(4)
    return [
        PILImage.fromarray(rng.integers(0, 256, (18, 24, 3), dtype=np.uint8)).rotate(9 * i)
        for i in range(count)
    ]


def _write(path: Path) -> Path:
    frames = _frames(5)
    if path.suffix == ".gif":
        paletted = [
            frame.convert("P", palette=PILImage.Palette.ADAPTIVE, colors=31 + i)
            for i, frame in enumerate(frames)
        ]
        paletted[0].save(
            path,
            save_all=True,
            append_images=paletted[1:],
            duration=[40, 80, 120, 60, 20],
            loop=0,
            transparency=3,
            disposal=2,
        )
    elif path.suffix == ".tiff":
        pages = [frames[0], frames[1].convert("L"), frames[2].convert("RGBA"), frames[3], frames[4]]
        pages[0].save(path, save_all=True, append_images=pages[1:])
    else:
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=50, loop=0)
    return path


FORMATS = [".gif", ".png", ".webp", ".tiff"]


@pytest.mark.parametrize("suffix", FORMATS)
def test_the_frame_count_is_counted_once(tmp_path: Path, suffix: str) -> None:
    """As Pillow's image keeps its count, so does a handle (counting walks a GIF's or TIFF's
    frames): asked again after its file is gone, it answers without reading it (an in-place
    edit keeps the file, and its count); a copy is no file, of one frame."""
    path = _write(tmp_path / f"anim{suffix}")
    lazy, edited = Image.open(path), Image.open(path)
    edited.thumbnail((9, 9))
    assert lazy.n_frames == edited.n_frames == 5
    path.unlink()
    assert (lazy.n_frames, lazy.is_animated, edited.n_frames) == (5, True, 5)
    assert lazy.copy().n_frames == 1


def _copy_frames(module: Any, sequence: Any, path: Path, sought: int) -> list[Any]:
    with module.open(path) as image:  # Pillow's multi-frame image keeps its file open
        image.seek(sought)
        copied = image.copy()
    answers = [getattr(copied, "n_frames", 1), getattr(copied, "is_animated", False)]
    answers += [copied.tell(), len(list(sequence.Iterator(copied)))]
    for frame in (1, 0):
        try:
            copied.seek(frame)
            answers.append(copied.tell())
        except EOFError as error:
            answers.append(str(error))
    return answers


@pytest.mark.parametrize("sought", [0, 2], ids=["unsought", "sought"])
@pytest.mark.parametrize("suffix", FORMATS)
def test_a_copy_of_an_animation_is_one_frame(tmp_path: Path, suffix: str, sought: int) -> None:
    """Pillow's copy is a plain image of the frame: one frame, which seeks nowhere else (the
    handle's node is still the file's, which a copy must not walk)."""
    path = _write(tmp_path / f"anim{suffix}")
    expected = _copy_frames(PILImage, PILImageSequence, path, sought)
    assert _copy_frames(Image, ImageSequence, path, sought) == expected
    assert expected[:4] == [1, False, 0, 1]


@pytest.mark.parametrize("suffix", FORMATS)
def test_a_seek_loop_matches_pillow_s(tmp_path: Path, suffix: str) -> None:
    path = _write(tmp_path / f"anim{suffix}")
    lazy = Image.open(path)
    with PILImage.open(path) as pillow:
        assert lazy.n_frames == pillow.n_frames == 5
        for index in [*range(5), 0, 2, 4]:  # forwards, back to the start, jumps forwards
            pillow.seek(index)
            lazy.seek(index)
            assert lazy.tell() == pillow.tell() == index
            assert (lazy.mode, lazy.size) == (pillow.mode, pillow.size)
            assert lazy.n_frames == 5
            expected = pillow.convert("RGBA").resize((12, 9))
            assert_image_equal(evaluate(lazy.convert("RGBA").resize((12, 9))), expected)
            frame = lazy.to_pil()
            assert_image_equal(frame, pillow.copy())
            assert frame.info == pillow.info  # loaded: WebP's and APNG's timing included


@pytest.mark.parametrize("suffix", FORMATS)
def test_seeking_past_the_end_raises_eof_and_keeps_the_frame(tmp_path: Path, suffix: str) -> None:
    """The pixels stay the frame's; tell() is Pillow's (its TIFF reader has moved on to the
    last page by then, its GIF reader has not)."""
    path = _write(tmp_path / f"anim{suffix}")
    lazy = Image.open(path)
    lazy.seek(2)
    before = lazy.to_pil()
    with PILImage.open(path) as pillow:
        pillow.seek(2)
        pillow.load()
        with pytest.raises(EOFError):
            pillow.seek(5)
        with pytest.raises(EOFError):
            lazy.seek(5)
        assert lazy.tell() == pillow.tell()
        assert_image_equal(lazy.to_pil(), before)
        assert_image_equal(lazy.to_pil(), pillow.copy())


def test_a_seek_pillow_refuses_is_refused_alike(tmp_path: Path) -> None:
    """The handle seeks in Pillow's own reader: an APNG it cannot step back in after a load
    fails the same way, and the handle keeps its frame."""
    path = _write(tmp_path / "anim.png")
    lazy = Image.open(path)
    with PILImage.open(path) as pillow:
        for image in (pillow, lazy):
            image.seek(3)
            image.load()
        with pytest.raises(SyntaxError, match="frame sequence"):
            pillow.seek(1)
        with pytest.raises(SyntaxError, match="frame sequence"):
            lazy.seek(1)
    with PILImage.open(path) as fresh:
        fresh.seek(3)
        assert_image_equal(lazy.to_pil(), fresh.copy())


def test_frames_go_through_the_executor(tmp_path: Path) -> None:
    path = _write(tmp_path / "anim.gif")
    lazy = Image.open(path)
    jobs = []
    for index in range(lazy.n_frames):
        lazy.seek(index)
        jobs.append((index, lazy.convert("RGB").rotate(90, expand=True)))
    with GpuBatchExecutor() as executor, executor.run(jobs) as results:
        found = {result.input_key: result.image for result in results}
    with PILImage.open(path) as pillow:
        for index, frame in enumerate(PILImageSequence.Iterator(pillow)):
            assert_image_equal(found[index], frame.convert("RGB").rotate(90, expand=True))


def test_an_in_place_edit_changes_the_current_frame(tmp_path: Path) -> None:
    path = _write(tmp_path / "anim.gif")
    lazy = Image.open(path)
    with PILImage.open(path) as pillow:
        for image in (pillow, lazy):
            image.seek(2)
            image.thumbnail((8, 8))
        assert (lazy.mode, lazy.size, lazy.tell()) == (pillow.mode, pillow.size, 2)
        assert_image_equal(lazy.to_pil(), pillow.copy())


#: In-place edits of the sought frame before the expand (Pillow keeps the palette through them).
EDITS: dict[str, Any] = {
    "none": lambda image: None,
    "thumbnail": lambda image: image.thumbnail((9, 9)),
}


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("frame", [0, 1, 3])
@pytest.mark.parametrize("fill", [0, (10, 20, 30)], ids=["index", "colour"])
def test_a_gif_frame_keeps_its_palette_beside_rgb_pixels_as_pillow(
    tmp_path: Path, frame: int, fill: object, edit: str
) -> None:
    """Pillow's GIF frames after the first load as RGB or RGBA and keep the frame's palette
    object, so ``ImageOps.expand`` (which puts it on its RGB result) raises for them."""
    path = _write(tmp_path / "anim.gif")
    outcomes = []
    for image, ops in ((PILImage.open(path), PILImageOps), (Image.open(path), ImageOps)):
        with image:
            image.seek(frame)
            EDITS[edit](image)
            kept = (image.mode, type(image.palette).__name__)
            try:
                out = ops.expand(image, 2, fill)
            except ValueError as error:
                outcomes.append((kept, str(error)))
            else:
                outcomes.append((kept, out.mode, out.tobytes(), out.getpalette()))
    assert outcomes[1] == outcomes[0]
    assert (outcomes[0][0][0] == "P") == (len(outcomes[0]) == 4)  # frame 0 expands; others raise


@pytest.mark.parametrize("suffix", FORMATS)
def test_a_sought_frame_shows_pillow_s_info_until_it_is_used(tmp_path: Path, suffix: str) -> None:
    """Before its first use a sought frame shows the info Pillow's image holds before loading
    it (an animated WebP's load adds ``duration`` and ``timestamp``), which a rotation copies
    as Pillow's does; the first use brings the loaded info into the same dict."""
    path = _write(tmp_path / f"anim{suffix}")
    seen = []
    for image in (PILImage.open(path), Image.open(path)):
        with image:
            image.seek(2)
            info = image.info
            before = dict(info)
            rotated = image.rotate(30, PILImage.Resampling.BILINEAR)
            if isinstance(rotated, Image.Image):
                routes = [rotated.info, rotated.to_pil().info, evaluate(rotated).info]
            else:
                routes = [rotated.info] * 3
            image.crop((0, 0, 4, 4))  # a use: Pillow's image loads the frame
            seen.append((before, routes, dict(image.info), image.info is info))
    assert seen[1] == seen[0]


#: Edits of a sought frame's info before its first use.
INFO_EDITS: dict[str, Any] = {
    "add-dpi": lambda info: info.update(dpi=(51, 51)),
    "clear": lambda info: info.clear(),
    "set-duration": lambda info: info.update(duration=5),  # the load sets it again
}


@pytest.mark.parametrize("edit", list(INFO_EDITS))
@pytest.mark.parametrize("suffix", FORMATS)
def test_an_info_edit_before_a_frame_is_used_meets_its_load_as_pillow_s(
    tmp_path: Path, suffix: str, edit: str
) -> None:
    """The keys a frame's load adds join the edited dict (over an edit of the same key)."""
    path = _write(tmp_path / f"anim{suffix}")
    seen = []
    for image in (PILImage.open(path), Image.open(path)):
        with image:
            image.seek(2)
            INFO_EDITS[edit](image.info)
            cropped = image.crop((0, 0, 4, 4))
            pixels = cropped if isinstance(cropped, PILImage.Image) else evaluate(cropped)
            seen.append((cropped.info, pixels.info, image.info))
    assert seen[1] == seen[0]


#: Seeks before any use of a frame: forward past frames, and back.
SEEK_PATTERNS = [(2, 1), (3, 1), (1, 2, 3, 1), (4, 2), (3, 0, 2)]


def _after_seeks(image: Any, frames: tuple[int, ...]) -> Any:
    """The image's mode, size, info and pixels after ``seek`` to each of ``frames`` (none of
    them used in between), or the type and text of what that raised."""
    try:
        with image:
            for frame in frames:
                image.seek(frame)
            pixels = image if isinstance(image, PILImage.Image) else image.to_pil()
            data = pixels.tobytes()  # a use: the frame loads
            return image.mode, image.size, dict(image.info), data
    except Exception as error:  # the error is the answer
        return f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("frames", SEEK_PATTERNS, ids=lambda frames: "-".join(map(str, frames)))
@pytest.mark.parametrize("suffix", FORMATS)
def test_frames_passed_without_a_use_are_not_loaded_as_in_pillow(
    tmp_path: Path, suffix: str, frames: tuple[int, ...]
) -> None:
    """A frame is loaded at its first use, not at the seek, as Pillow's: Pillow's APNG reader
    cannot go back to an earlier frame once the current one is loaded ("APNG contains frame
    sequence errors"), so seeking back past frames never used works in Pillow and must here."""
    path = _write(tmp_path / f"anim{suffix}")
    expected = _after_seeks(PILImage.open(path), frames)
    assert _after_seeks(Image.open(path), frames) == expected
    assert not isinstance(expected, str)


@pytest.mark.parametrize("suffix", FORMATS)
def test_reads_of_a_sought_frame_that_need_no_pixels_load_nothing(
    tmp_path: Path, suffix: str
) -> None:
    """``has_transparency_data``, ``repr`` and ``is_evaluated`` load no sought frame, as
    Pillow's reads do not: seeking back past it afterwards goes on as in Pillow's reader."""
    path = _write(tmp_path / f"anim{suffix}")
    seen: list[Any] = []
    for image in (PILImage.open(path), Image.open(path)):
        with image:
            image.seek(3)
            answers: list[Any] = [image.has_transparency_data]
            image.info["transparency"] = 0
            answers.append(image.has_transparency_data)
            if isinstance(image, Image.Image):
                answers.append((repr(image).startswith("<pillow_gpu"), image.is_evaluated))
            else:
                answers.append((True, False))
            try:
                image.seek(1)
                pixels = image if isinstance(image, PILImage.Image) else image.to_pil()
                answers.append(pixels.tobytes())
            except Exception as error:  # the error is the answer
                answers.append(f"{type(error).__name__}: {error}")
            seen.append(answers)
    assert seen[1] == seen[0]


@pytest.mark.parametrize("frames", SEEK_PATTERNS, ids=lambda frames: "-".join(map(str, frames)))
@pytest.mark.parametrize("suffix", [".gif", ".png"])
def test_seeks_with_the_palette_object_handed_out_are_pillow_s(
    tmp_path: Path, suffix: str, frames: tuple[int, ...]
) -> None:
    """With the palette object read after each seek, Pillow's GIF and APNG readers load the
    current frame before seeking forward, and rewind without loading it to seek back."""
    path = tmp_path / f"paletted{suffix}"
    paletted = [
        frame.convert("P", palette=PILImage.Palette.ADAPTIVE, colors=20 + index)
        for index, frame in enumerate(_frames(5))
    ]
    paletted[0].save(path, save_all=True, append_images=paletted[1:], duration=50, loop=0)
    seen = []
    for image in (PILImage.open(path), Image.open(path)):
        with image:
            try:
                for frame in frames:
                    image.seek(frame)
                    palette = image.palette
                pixels = image if isinstance(image, PILImage.Image) else image.to_pil()
                seen.append((pixels.tobytes(), image.getpalette(), palette is image.palette))
            except Exception as error:  # the error is the answer
                seen.append(f"{type(error).__name__}: {error}")
    assert seen[1] == seen[0]
    assert not isinstance(seen[0], str)


def test_an_info_edit_before_a_frame_is_used_reaches_its_pixels(tmp_path: Path) -> None:
    """An APNG frame blended over the one before reads ``info["transparency"]`` while it loads
    (the colour its mask leaves out): an edit between the seek and the first use changes the
    pixels, in Pillow and here."""
    path = tmp_path / "over.png"
    frames = _frames(3)
    frames[0].save(
        path, save_all=True, append_images=frames[1:], blend=PngImagePlugin.Blend.OP_OVER
    )
    colour = frames[1].getpixel((3, 3))
    seen = []
    for image in (PILImage.open(path), Image.open(path)):
        with image:
            image.seek(1)
            image.info["transparency"] = colour
            pixels = image if isinstance(image, PILImage.Image) else image.to_pil()
            seen.append((pixels.tobytes(), dict(image.info)))
    assert seen[1] == seen[0]
    with PILImage.open(path) as unedited:
        unedited.seek(1)
        assert unedited.tobytes() != seen[0][0]  # the edit reached Pillow's pixels


def test_other_images_have_one_frame(tmp_path: Path) -> None:
    path = _write(tmp_path / "anim.gif")
    opened = Image.open(path)
    opened.seek(3)
    for image in (Image.new("RGB", (4, 4)), opened.copy(), opened.convert("RGB")):
        assert image.tell() == 0
        assert image.n_frames == 1
        image.seek(0)
        with pytest.raises(EOFError):
            image.seek(1)
    with pytest.raises(EOFError):
        PILImage.new("RGB", (4, 4)).seek(1)  # as Pillow's


def _frame_answers(module: Any, sequence: Any, path: Path) -> list[Any]:
    """``tell``, ``n_frames``, ``is_animated``, ``seek(0)``, ``seek(1)`` and the frames an
    ``ImageSequence.Iterator`` loop reaches, of ``path`` opened and then deleted."""
    image = module.open(path)
    path.unlink()
    answers: list[Any] = []
    calls = [
        image.tell,
        lambda: getattr(image, "n_frames", 1),
        lambda: getattr(image, "is_animated", False),
        lambda: image.seek(0),
        lambda: image.seek(1),
        lambda: [frame.size for frame in sequence.Iterator(image)],
    ]
    for call in calls:
        try:
            answers.append(call())
        except Exception as error:  # the type is the answer
            answers.append(type(error).__name__)
    image.close()
    return answers


@pytest.mark.parametrize("name", ["photo.jpg", "scan.bmp", "icon.tga", "page.pcx"])
def test_a_file_whose_plugin_seeks_nothing_answers_without_its_file(
    tmp_path: Path, name: str
) -> None:
    """Pillow's image of a JPEG (or BMP, TGA, PCX) is one frame whatever the file holds now:
    its frame queries, seeks and iterator read nothing, so a file deleted (or replaced) after
    the open changes no answer; they opened the file again before."""
    expected, actual = tmp_path / "pillow" / name, tmp_path / "lazy" / name
    for path in (expected, actual):
        path.parent.mkdir()
        make_image("RGB", (24, 18), seed=5).save(path)
    answers = _frame_answers(PILImage, PILImageSequence, expected)
    assert answers == [0, 1, False, None, "EOFError", [(24, 18)]]
    assert _frame_answers(Image, ImageSequence, actual) == answers


def test_image_sequence_after_a_seek_iterates_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "anim.webp")
    lazy = Image.open(path)
    lazy.seek(3)
    frames = ImageSequence.all_frames(lazy)
    with PILImage.open(path) as pillow:
        expected = [frame.copy() for frame in PILImageSequence.Iterator(pillow)]
    assert len(frames) == len(expected) == 5
    for got, want in zip(frames, expected, strict=True):
        assert_image_equal(got.to_pil(), want)


@pytest.mark.parametrize("suffix", FORMATS)
def test_info_edited_before_a_seek_is_pillow_s(tmp_path: Path, suffix: str) -> None:
    # Pillow's seek updates the image's own dict in place (an APNG's through the dict its chunk
    # reader holds): the caller's keys stay, the frame's replace theirs.
    path = _write(tmp_path / f"anim{suffix}")
    answers = []
    for module in (PILImage, Image):
        image: Any = module.open(path)
        image.info["duration"] = 70
        image.info["comment"] = b"kept"
        found = []
        for index in (1, 3):
            image.seek(index)
            image.load()
            found.append((sorted(image.info.items()), image.tobytes()))
        answers.append(found)
        image.close()
    assert answers[1] == answers[0]
    assert all(("comment", b"kept") in info for info, _pixels in answers[0])


def _apng_without_palette() -> bytes:
    """An animated palette PNG whose PLTE chunk is gone (a damaged file): Pillow loads each
    frame with ``palette`` None."""
    base = make_image("RGB", (13, 9), 1).quantize(7)
    frames = [base, base.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT)]
    out = io.BytesIO()
    frames[0].save(out, "PNG", save_all=True, append_images=frames[1:])
    return png_without_chunk(out.getvalue(), b"PLTE")


def test_a_sought_frame_of_a_file_without_a_palette_has_none() -> None:
    data = _apng_without_palette()
    answers = []
    for library in (PILImage, Image):
        image = library.open(io.BytesIO(data))
        image.seek(1)
        image.load()
        with pytest.raises(AssertionError):  # Pillow's reads the missing palette's mode
            getattr(image, "has_transparency_data")  # noqa: B009 - the property raises
        turned = image.rotate(90)
        answers.append((image.mode, turned.has_transparency_data, turned.getpalette()))
    assert answers[1] == answers[0]


@pytest.mark.parametrize(
    ("before", "call"),
    [("opened", "thumbnail"), ("opened", "draft"), ("saved-as-tiff", "thumbnail")],
)
@pytest.mark.parametrize("frame", [0, 1, 2])
def test_a_sought_mpo_frame_drafts_as_pillow_s(
    tmp_path: Path, frame: int, call: str, before: str
) -> None:
    """An MPO's frames are JPEGs: Pillow's image sought to one (not loaded yet) drafts its
    decode for ``thumbnail`` and ``draft``, also after a writer walked its frames and came
    back; ours decoded the frame whole (other pixels) and, after the walk, lacked the
    ``mpoffset`` its re-read header gives. (A ``draft`` to another mode after such a walk is
    left out: Pillow's image keeps the walk's last frame's pixels beside the drafted mode.)"""
    path = tmp_path / "camera.mpo"
    frames = [make_image("RGB", (96, 64), seed) for seed in range(3)]
    frames[0].save(path, "MPO", save_all=True, append_images=frames[1:])
    found = []
    for module in (PILImage, Image):
        with module.open(path) as image:
            if before == "saved-as-tiff":
                image.save(io.BytesIO(), "TIFF", save_all=True)
            image.seek(frame)
            if call == "thumbnail":
                answer = image.thumbnail((20, 20))
            else:
                answer = image.draft("L", (30, 20))
            found.append((answer, image.mode, image.size, sorted(image.info), image.tobytes()))
    assert found[1] == found[0]
