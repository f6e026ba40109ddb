"""``pillow-gpu apply`` on files of several frames: animations and multi-page files.

An output of one image would lose the frames after the first of an animated GIF, APNG or
WebP, or a multi-page TIFF, so such a file is reported and not written by default.
``--first-frame`` writes the first frame, byte-equal to what Pillow writes for ``Image.open``
followed by the chain. ``--all-frames`` runs every frame and writes them as one file,
byte-equal to Pillow's ``save_all`` of the chain's results for the frames ``ImageSequence``
gives, with each frame's duration and the loop count. An MPO (a camera's JPEG with a preview)
and single-frame files are written either way.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image as PILImage
from PIL import ImageSequence as PILImageSequence
from PIL import features
from pillow_gpu import _crashing_saves as crashing_saves
from pillow_gpu._testing import make_image
from pillow_gpu.cli import main
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.cli._frames import ExtraFrames, animation_options, refuse_extra_frames
from pillow_gpu.cli._metadata import metadata_options
from pillow_gpu.gpu._device import SharedDevice

CHAIN = "rotate:90"
#: Files of three frames whose later frames are pictures of their own.
SEVERAL = ("anim.gif", "anim.png", "anim.webp", "pages.tif")
#: Written whatever the option: one frame, or a first frame that is the picture (MPO).
SINGLE = ("still.gif", "camera.mpo", "photo.png")
#: Each animation's frame durations (ms), kept by --all-frames.
DURATIONS = [40, 80, 120]


def _frames(seed: int) -> list[PILImage.Image]:
    return [make_image("RGB", (36, 24), seed + index) for index in range(3)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("frames") / "in"
    folder.mkdir()
    for seed, name in enumerate(SEVERAL):
        first, *rest = _frames(10 * seed)
        first.save(folder / name, save_all=True, append_images=rest, duration=DURATIONS, loop=2)
    make_image("RGB", (30, 20), 70).save(folder / "still.gif")
    first, preview, _ = _frames(80)
    first.save(folder / "camera.mpo", save_all=True, append_images=[preview])
    make_image("RGB", (30, 20), 90).save(folder / "photo.png")
    for name in SEVERAL:
        with PILImage.open(folder / name) as opened:
            assert opened.n_frames == 3, name  # what the writers made
    with PILImage.open(folder / "camera.mpo") as opened:
        assert (opened.format, opened.n_frames) == ("MPO", 2)
    return folder


def _pillow_bytes(path: Path, chain: str = CHAIN, *, every_frame: bool = False) -> bytes:
    """What Pillow writes for ``Image.open(path)`` and the chain, in the file's own format;
    with ``every_frame``, for the chain applied to each frame and the results saved as one."""
    with PILImage.open(path) as opened:
        steps = parse_chain(chain)
        if every_frame and getattr(opened, "n_frames", 1) > 1 and opened.format != "MPO":
            frames = [steps.apply_pil(frame.copy()) for frame in PILImageSequence.Iterator(opened)]
            options = {**metadata_options(frames[0]), **animation_options(frames)}
        else:
            frames = [steps.apply_pil(opened)]
            options = metadata_options(frames[0])
        buffer = io.BytesIO()
        frames[0].save(buffer, format=opened.format, **options)
    return buffer.getvalue()


def _apply(folder: Path, out: Path, *extra: str, chain: str = CHAIN) -> int:
    argv = ["apply", chain, str(folder), "-o", str(out), "--no-progress", "--cpu-fallback"]
    return main([*argv, *extra])


def test_files_of_several_frames_are_reported_and_not_written(
    folder: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = _apply(folder, out)
    captured = capsys.readouterr()
    assert code == 1
    assert sorted(path.name for path in out.iterdir()) == sorted(SINGLE)
    for name in SINGLE:
        assert (out / name).read_bytes() == _pillow_bytes(folder / name), name
    failed = re.findall(r"^pillow-gpu: failed: (.+?): (.+)$", captured.err, re.M)
    assert sorted(Path(path).name for path, _ in failed) == sorted(SEVERAL)
    formats = {"anim.gif": "GIF", "anim.png": "PNG", "anim.webp": "WEBP", "pages.tif": "TIFF"}
    for path, message in failed:
        assert message.startswith(
            "ExtraFrames at frames: why: the file holds several frames (an animation or "
            "pages) and apply writes one image per input, so every frame after the first "
            "would be lost; "
        )
        assert f"; observed: a {formats[Path(path).name]} file of 3 frames; " in message
        assert message.endswith(
            "; fix: pass --first-frame to write its first frame only, "
            "or split the frames into files first (Pillow's ImageSequence)"
        )
    assert f"{len(SINGLE)} written, {len(SEVERAL)} failed, 0 refused" in captured.out
    assert f"failed: {len(SEVERAL)} ExtraFrames" in captured.out


def test_first_frame_writes_each_file_s_first_frame_as_pillow(
    folder: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert _apply(folder, out, "--first-frame") == 0, capsys.readouterr().err
    names = sorted(path.name for path in folder.iterdir())
    assert sorted(path.name for path in out.iterdir()) == names
    for name in names:
        assert (out / name).read_bytes() == _pillow_bytes(folder / name), name
        with PILImage.open(out / name) as written:
            assert getattr(written, "n_frames", 1) == 1, name


def _rgba_animations(folder: Path) -> Path:
    """APNG, WebP and TIFF files of three RGBA frames (GIF holds no RGBA)."""
    folder.mkdir()
    for seed, name in enumerate(("anim.png", "anim.webp", "pages.tif")):
        first, *rest = [make_image("RGBA", (36, 24), 10 * seed + index) for index in range(3)]
        first.save(folder / name, save_all=True, append_images=rest, duration=DURATIONS, loop=2)
    return folder


@pytest.mark.parametrize(
    ("chain", "where"),
    [("rotate:90", "on the GPU"), ("convert:P", "on the CPU fallback")],
    ids=["on-the-gpu", "refused-then-cpu-fallback"],
)
def test_all_frames_writes_every_frame_with_its_timing_as_pillow(
    folder: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    chain: str,
    where: str,
) -> None:
    # convert:P of RGBA frames quantizes, which the GPU refuses: every frame of the file then
    # runs on Pillow.
    if chain == "convert:P":
        folder = _rgba_animations(tmp_path / "rgba")
    out = tmp_path / "out"
    assert _apply(folder, out, "--all-frames", chain=chain) == 0, capsys.readouterr().err
    names = sorted(path.name for path in folder.iterdir())
    assert sorted(path.name for path in out.iterdir()) == names
    for name in names:
        expected = _pillow_bytes(folder / name, chain, every_frame=True)
        assert (out / name).read_bytes() == expected, name
    for name in sorted(set(SEVERAL) & set(names)):
        with PILImage.open(out / name) as written:
            assert written.n_frames == 3, name
            durations = []
            for index in range(3):
                written.seek(index)
                written.load()
                durations.append(written.info.get("duration"))
            if name != "pages.tif":  # pages have no timing
                assert durations == DURATIONS, name
                assert written.info.get("loop") == 2, name
    summary = capsys.readouterr().out
    assert f"{len(names)} written, 0 failed, 0 refused" in summary
    if where == "on the GPU":
        assert f"written: {len(names)} on the GPU (byte-exact)" in summary
    else:
        assert f"written: 0 on the GPU (byte-exact), {len(names)} on the CPU fallback" in summary


def test_all_frames_is_not_first_frame(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["apply", CHAIN, str(folder), "--first-frame", "--all-frames"])
    assert raised.value.code == 2
    assert "not allowed with argument --first-frame" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("file_format", "frames", "refused"),
    [
        ("GIF", 2, True),
        ("TIFF", 40, True),
        ("SOMEPLUGIN", 2, True),  # a format nobody listed: its frames are kept safe
        ("MPO", 3, False),  # previews and depth maps of the first frame
        ("PSD", 5, False),  # layers beside the composite image
        ("GIF", 1, False),
    ],
    ids=["gif", "tiff", "unknown-format", "mpo", "psd", "one-frame"],
)
def test_which_files_count_as_several_frames(file_format: str, frames: int, refused: bool) -> None:
    image = SimpleNamespace(format=file_format, n_frames=frames)
    if not refused:
        refuse_extra_frames(image)
        return
    with pytest.raises(ExtraFrames, match=f"^a {file_format} file of {frames} frames$"):
        refuse_extra_frames(image)


def test_an_animation_cut_short_is_reported_and_its_first_frame_written_on_request(
    folder: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    # Pillow cannot count the frames of a GIF cut inside its second frame's colour table (it
    # reads past the first frame to count them), though the first frame decodes.
    cut = tmp_path / "in" / "cut.gif"
    cut.parent.mkdir()
    with PILImage.open(folder / "anim.gif") as opened:
        opened.seek(1)
        second = opened.tile[0][2]  # where the second frame's pixel data starts
    cut.write_bytes((folder / "anim.gif").read_bytes()[: second - 100])
    with PILImage.open(cut) as opened:
        with pytest.raises(IndexError):
            _ = opened.n_frames
        opened.seek(0)
        opened.load()
    out = tmp_path / "out"
    assert _apply(cut.parent, out) == 1
    (line,) = re.findall(r"^pillow-gpu: failed: .*$", capsys.readouterr().err, re.M)
    assert ": ExtraFrames at frames: why: the file holds several frames" in line
    assert "; observed: a GIF file whose frames after the first could not be counted " in line
    assert not out.exists() or not list(out.iterdir())
    assert _apply(cut.parent, out, "--all-frames") == 1  # frames it cannot count: refused
    assert "could not be counted" in capsys.readouterr().err
    assert _apply(cut.parent, out, "--first-frame") == 0
    assert (out / "cut.gif").read_bytes() == _pillow_bytes(cut)


def test_all_frames_reports_an_animation_whose_last_frame_is_cut(
    folder: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    # Pillow counts three frames, and decoding the third finds the file truncated.
    cut = tmp_path / "in" / "cut.gif"
    cut.parent.mkdir()
    cut.write_bytes((folder / "anim.gif").read_bytes()[:-60])
    with PILImage.open(cut) as opened:
        assert opened.n_frames == 3
    out = tmp_path / "out"
    assert _apply(cut.parent, out, "--all-frames") == 1
    (line,) = re.findall(r"^pillow-gpu: failed: .*$", capsys.readouterr().err, re.M)
    assert ": OSError at frames-decode: why: Pillow could not decode every frame" in line
    assert "observed: image file is truncated" in line
    assert "fix: check that the file is complete, pass --first-frame" in line
    assert not out.exists() or not list(out.iterdir())


@pytest.mark.parametrize("output", ["jpg", "bmp"])
def test_all_frames_into_a_format_of_one_image_names_the_formats_that_hold_them(
    folder: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    output: str,
) -> None:
    # Pillow's save_all has no JPEG or BMP writer: it raised KeyError('JPEG').
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("anim.gif", "pages.tif", "photo.png"):
        shutil.copy(folder / name, inputs / name)
    out = tmp_path / "out"
    assert _apply(inputs, out, "--all-frames", "--format", output) == 1
    failed = re.findall(r"^pillow-gpu: failed: .*$", capsys.readouterr().err, re.M)
    assert len(failed) == 2
    file_format = PILImage.registered_extensions()[f".{output}"]
    for line in failed:
        assert ": OneFrameFormat at save: why: the output's format holds one image" in line
        assert f"observed: 3 frames for one {file_format} file, which holds one image" in line
        assert "fix: choose a --format that holds them all, such as tiff" in line
    # The file of one frame is written; no temporary file is left.
    assert [path.name for path in out.iterdir()] == [f"photo.{output}"]


@pytest.mark.parametrize("output", ["webp", "avif", "gif", "png"])
def test_all_frames_of_several_sizes_into_one_size_animations_name_tiff(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    # A multi-page scan's pages differ in size; GIF, APNG, WebP and AVIF animations hold one
    # size (Pillow's GIF and APNG writers cut the second page to the first one's width).
    folder = tmp_path / "in"
    folder.mkdir()
    pages = [make_image("RGB", (36, 24), 1), make_image("RGB", (20, 30), 2)]
    pages[0].save(folder / "scan.tif", save_all=True, append_images=pages[1:])
    out = tmp_path / "out"
    assert _apply(folder, out, "--all-frames", "--format", output, chain="invert") == 1
    (line,) = re.findall(r"^pillow-gpu: failed: .*$", capsys.readouterr().err, re.M)
    assert ": FrameSizes at save: why: the chain's results for this file's frames differ" in line
    observed = f"observed: 2 frames of 2 sizes (36x24, 20x30) for one {output.upper()}; "
    assert observed in line
    assert "fix: choose --format tiff, whose pages keep each frame's size" in line
    assert not out.exists() or not list(out.iterdir())  # nothing written, no temporary file
    # The same pages written as a TIFF keep their sizes.
    assert _apply(folder, out, "--all-frames", "--format", "tif", chain="invert") == 0
    with PILImage.open(out / "scan.tif") as written:
        sizes = [page.size for page in PILImageSequence.Iterator(written)]
    assert sizes == [(36, 24), (20, 30)]


#: An animated WebP and an APNG (distinct stems: each is written as <stem>.avif).
TURNED = ("turned-webp.webp", "turned-apng.png")


def _turned_animations(folder: Path) -> Path:
    """An animated WebP and an APNG of three frames whose Exif says "turn 90 degrees"."""
    folder.mkdir()
    exif = PILImage.Exif()
    exif[0x0112] = 6
    for seed, name in enumerate(TURNED):
        first, *rest = _frames(10 * seed)
        first.save(folder / name, save_all=True, append_images=rest, duration=DURATIONS, exif=exif)
    return folder


@pytest.mark.skipif(not features.check("avif"), reason="this Pillow was built without AVIF")
def test_all_frames_into_avif_with_an_exif_orientation_is_refused_not_a_crash(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    # Pillow's AVIF writer ends the process (a segmentation fault) writing several frames
    # with an Exif orientation; apply reported nothing and left its temporary file behind.
    folder = _turned_animations(tmp_path / "in")
    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as patch:  # the rule, whatever this Pillow's probe says
        patch.setattr(crashing_saves, "_avif_sequence_crashes", lambda: True)
        code = _apply(folder, out, "--all-frames", "--format", "avif", chain="invert")
    captured = capsys.readouterr()
    assert code == 1
    failed = re.findall(r"^pillow-gpu: failed: (.+?): (.+)$", captured.err, re.M)
    assert sorted(Path(path).name for path, _ in failed) == sorted(TURNED)
    for _path, message in failed:
        assert message == (
            "CrashingSave at save: why: Pillow's AVIF writer crashes the Python process (a "
            "segmentation fault in its encoder, shown by a probe of this Pillow in a child "
            "process) when it writes several frames with an Exif orientation; observed: 3 "
            "frames and orientation 6 in the exif given to the writer; fix: start the chain "
            "with exif_transpose (it turns the frames upright and removes the orientation), "
            "pass --strip-metadata, choose another --format such as webp, png or tiff, or "
            "pass --first-frame"
        )
    assert not out.exists() or not list(out.iterdir())  # nothing written, no temporary file
    assert "0 written, 2 failed, 0 refused" in captured.out


@pytest.mark.skipif(not features.check("avif"), reason="this Pillow was built without AVIF")
@pytest.mark.parametrize("fix", ["exif_transpose", "--strip-metadata"])
def test_the_named_fixes_write_every_frame_into_avif(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], fix: str
) -> None:
    folder = _turned_animations(tmp_path / "in")
    out = tmp_path / "out"
    chain, extra = ("exif_transpose,invert", ()) if fix == "exif_transpose" else ("invert", (fix,))
    code = _apply(folder, out, "--all-frames", "--format", "avif", *extra, chain=chain)
    assert code == 0, capsys.readouterr().err
    for name in ("turned-webp.avif", "turned-apng.avif"):
        with PILImage.open(out / name) as written:
            assert written.n_frames == 3
            durations = []
            for index in range(3):
                written.seek(index)
                written.load()
                durations.append(written.info["duration"])
            # An APNG's durations are fractions of a second (40.0): AVIF's are whole
            # milliseconds, which Pillow's writer refused as a float (TypeError).
            assert durations == DURATIONS
            turned = fix == "exif_transpose"
            assert written.size == ((24, 36) if turned else (36, 24))


def test_an_apng_s_fractional_durations_are_rounded_for_avif_only() -> None:
    frames = [make_image("RGB", (4, 3), seed) for seed in range(3)]
    for frame, duration in zip(frames, (33.333, 40.0, 66.5), strict=True):
        frame.info["duration"] = duration
    assert animation_options(frames, "AVIF")["duration"] == [33, 40, 66]  # half to even
    assert animation_options(frames, "PNG")["duration"] == [33.333, 40.0, 66.5]
    assert animation_options(frames, "GIF")["duration"] == [33.333, 40.0, 66.5]


def _background_outside_palette(folder: Path) -> Path:
    """A GIF of two frames whose background index (200) lies past its palette's four
    colours: Pillow writes the index it is given, and its WebP writer cannot look it up."""
    folder.mkdir()
    frames = []
    for colours in ([0, 0, 0, 255, 255, 255], [255, 0, 0, 0, 0, 255]):
        frame = PILImage.new("P", (12, 8))
        frame.putpalette(colours)
        frame.paste(1, (0, 0, 6, 8))
        frames.append(frame.rotate(90 * len(frames), expand=False))
    path = folder / "background.gif"
    frames[0].save(path, save_all=True, append_images=frames[1:], background=200, duration=50)
    with PILImage.open(path) as opened:
        assert (opened.n_frames, opened.info["background"]) == (2, 200)
        assert len(opened.getpalette() or []) < 3 * 201
    return path


def test_a_gif_background_outside_its_palette_is_left_out_of_a_webp_animation(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _background_outside_palette(tmp_path / "in")
    steps = parse_chain(CHAIN)
    with PILImage.open(path) as opened:
        frames = [steps.apply_pil(frame.copy()) for frame in PILImageSequence.Iterator(opened)]
    options = {**metadata_options(frames[0], output_format="WEBP"), **animation_options(frames)}
    with pytest.raises(ValueError, match="not enough values to unpack"):  # Pillow's writer
        frames[0].save(io.BytesIO(), format="WEBP", **options)
    expected = io.BytesIO()
    frames[0].save(expected, format="WEBP", **options, background=(0, 0, 0, 0))

    out = tmp_path / "out"
    code = _apply(path.parent, out, "--all-frames", "--format", "webp")
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert (out / "background.webp").read_bytes() == expected.getvalue()
    with PILImage.open(out / "background.webp") as written:
        assert (written.n_frames, written.info["background"]) == (2, (0, 0, 0, 0))
    assert (
        "    1x background colour (a palette index past the palette's colours, which Pillow's "
        "WebP writer cannot look up)\n"
    ) in captured.out


def test_a_background_inside_the_palette_is_left_to_pillow_s_webp_writer() -> None:
    frames = [make_image("P", (6, 4), seed) for seed in range(2)]
    frames[0].putpalette(range(12))  # four colours
    frames[0].info["background"] = 3
    left_out: list[str] = []
    options = animation_options(frames, "WEBP", left_out)
    assert "background" not in options
    assert left_out == []
    frames[0].info["background"] = 4  # one past the last
    assert animation_options(frames, "WEBP", left_out)["background"] == (0, 0, 0, 0)
    assert len(left_out) == 1
    assert "background" not in animation_options(frames, "GIF", [])  # GIF keeps its index
