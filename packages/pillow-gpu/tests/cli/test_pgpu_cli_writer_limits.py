"""``pillow-gpu apply`` on results Pillow's writers fail on with errors that name neither the
cause nor a fix (pillow_gpu.cli._writer_limits): a palette alpha into GIF, and a side longer
than the output format holds. Each is checked against Pillow's own writer first."""

from __future__ import annotations

import io
import pickle
import re
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PIL import features
from pillow_gpu.cli import main
from pillow_gpu.cli._writer_limits import LARGEST_SIZE
from pillow_gpu.gpu._device import SharedDevice


def _apply(folder: Path, out: Path, *extra: str, chain: str) -> int:
    argv = ["apply", chain, str(folder), "-o", str(out), "--no-progress", "--cpu-fallback"]
    return main([*argv, *extra])


def _failures(err: str) -> list[tuple[str, str]]:
    return re.findall(r"^pillow-gpu: failed: (.+?): (.+)$", err, re.M)


def _palette_alpha(folder: Path, frames: int) -> Path:
    """A P PNG (an APNG for ``frames`` > 1) whose tRNS chunk gives both of its palette's two
    colours an alpha (255 and 128), as Pillow's corpus file apng/mode_palette_1bit_alpha.png."""
    folder.mkdir(exist_ok=True)
    images = []
    for index in range(frames):
        image = PILImage.new("P", (12, 8))
        image.putpalette([0, 0, 255, 255, 255, 0])
        image.paste(1, (0, 0, 3 + 3 * index, 8))
        image.info["transparency"] = b"\xff\x80"
        images.append(image)
    path = folder / f"alpha-{frames}.png"
    images[0].save(path, save_all=frames > 1, append_images=images[1:], transparency=b"\xff\x80")
    with PILImage.open(path) as opened:
        assert (opened.mode, opened.info["transparency"]) == ("P", b"\xff\x80")
        with pytest.raises(TypeError):  # Pillow's GIF writer
            opened.save(io.BytesIO(), format="GIF")
    return path


@pytest.mark.parametrize("frames", [1, 2], ids=["png-first-frame", "apng-all-frames"])
def test_a_palette_alpha_into_gif_names_its_cause_and_the_fix_writes_it(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], frames: int
) -> None:
    path = _palette_alpha(tmp_path / "in", frames)
    which = "--all-frames" if frames > 1 else "--first-frame"
    code = _apply(path.parent, tmp_path / "out", which, "--format", "gif", chain="invert")
    captured = capsys.readouterr()
    assert code == 1
    failed = _failures(captured.err)
    frame = "frame 0 " if frames > 1 else ""
    # The writer's own error differs with the path it takes (a frame's header, or the
    # difference to the frame before it); the cause and the fix do not.
    assert [
        (where, re.sub(r"writer: .*\); fix: ", "writer: ...); fix: ", message))
        for where, message in failed
    ] == [
        (
            str(path),
            "PaletteAlphaForGif at save: why: the result's palette gives its entries alpha "
            "values (a PNG's tRNS chunk), which a GIF cannot hold (one transparent index at "
            f"most), and Pillow's GIF writer fails on them; observed: {frame}P 12x8 with 2 "
            "alpha values for its palette, as GIF (TypeError in Pillow's GIF writer: ...); fix: "
            "add convert:RGBA to the end of the chain (the GIF then keeps the fully transparent "
            "pixels transparent), or choose a --format that keeps the palette's alpha, such as "
            "png or webp",
        )
    ]
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())

    fixed = tmp_path / "fixed"
    code = _apply(path.parent, fixed, which, "--format", "gif", chain="invert,convert:RGBA")
    assert code == 0, capsys.readouterr().err
    with PILImage.open(fixed / path.with_suffix(".gif").name) as written:
        assert getattr(written, "n_frames", 1) == frames


#: The extension ``apply`` takes for the formats run end to end.
_EXTENSIONS = {"WEBP": "webp", "JPEG": "jpg", "GIF": "gif"}


def _source_mode(file_format: str) -> str:
    return "1" if file_format == "MSP" else "RGB"


@pytest.mark.parametrize("file_format", sorted(LARGEST_SIZE))
def test_each_limit_is_where_pillow_s_writer_starts_failing(file_format: str) -> None:
    if file_format == "AVIF" and not features.check("avif"):
        pytest.skip("this Pillow was built without AVIF")
    width, height = LARGEST_SIZE[file_format]
    mode = _source_mode(file_format)
    for size in ((width, 1), (1, height)):
        PILImage.new(mode, size).save(io.BytesIO(), file_format)  # at the limit: written
    for size in ((width + 1, 1), (1, height + 1)):
        with pytest.raises(Exception):  # noqa: B017, PT011 - each writer raises its own
            PILImage.new(mode, size).save(io.BytesIO(), file_format)


@pytest.mark.parametrize("file_format", ["WEBP", "JPEG", "GIF"])
def test_a_result_past_the_format_s_size_names_the_limit_and_the_fix_writes_it(
    file_format: str, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    limit, _ = LARGEST_SIZE[file_format]
    folder = tmp_path / "in"
    folder.mkdir()
    PILImage.new("RGB", (limit + 7, 3), (40, 90, 200)).save(folder / "wide.png")
    extension = _EXTENSIONS[file_format]
    code = _apply(folder, tmp_path / "out", "--format", extension, chain="invert")
    captured = capsys.readouterr()
    assert code == 1
    ((where, message),) = _failures(captured.err)
    assert where == str(folder / "wide.png")
    assert message.startswith(
        "TooLargeForFormat at save: why: the result is larger than the output format holds, "
        f"and Pillow's writer fails on it; observed: {limit + 7}x3 as {file_format}, whose "
        f"writer takes at most {limit}x{limit} ("
    )
    assert message.endswith(
        f"fix: add thumbnail:{limit}x{limit} to the end of the chain (it shrinks the result to "
        "fit, keeping its aspect), or choose a --format without that limit, such as png or tiff"
    )
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())

    fixed = tmp_path / "fixed"
    chain = f"invert,thumbnail:{limit}x{limit}"
    assert _apply(folder, fixed, "--format", extension, chain=chain) == 0, capsys.readouterr().err
    with PILImage.open(fixed / f"wide.{extension}") as written:
        assert written.width == limit


def test_only_a_result_past_the_size_is_explained_so() -> None:
    from pillow_gpu.cli._writer_limits import refuse_too_large

    image = PILImage.new("RGB", (LARGEST_SIZE["WEBP"][0] + 1, 1))
    assert refuse_too_large(ValueError("encoding error 5"), "WEBP", [image]) is not None
    assert refuse_too_large(ValueError("x"), "PNG", [image]) is None
    small = PILImage.new("RGB", (8, 8))
    assert refuse_too_large(ValueError("x"), "WEBP", [small]) is None
    thin = PILImage.new("RGB", (3, 300))  # an icon of its own size only, past 256
    with pytest.raises(ValueError, match="All sizes too large"):
        thin.save(io.BytesIO(), "ICO")
    PILImage.new("RGB", (16, 300)).save(io.BytesIO(), "ICO")  # icons of 16 pixels: written
    assert refuse_too_large(ValueError("x"), "ICO", [thin]) is not None
    assert refuse_too_large(ValueError("x"), "ICO", [PILImage.new("RGB", (16, 300))]) is None
    explained = refuse_too_large(ValueError("x"), "PCX", [PILImage.new("L", (65535, 2))])
    assert explained is not None  # PCX: a row's bytes in 16 bits
    again = pickle.loads(pickle.dumps(explained))  # as a Ray actor hands it back
    assert (str(again), again.fix) == (str(explained), explained.fix)
