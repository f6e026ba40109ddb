"""``pillow-gpu apply`` end to end on small PNG files (the GPU work runs on the adapter)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.cli import main
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.gpu._device import SharedDevice


def _write(folder: Path, name: str, mode: str, size: tuple[int, int], seed: int) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    make_image(mode, size, seed).save(path)
    return path


def _expected_invert_blur_gray(path: Path) -> PILImage.Image:
    with PILImage.open(path) as source:
        inverted = PILImageOps.invert(source.convert(source.mode))
    return PILImageOps.grayscale(inverted.filter(PILImageFilter.GaussianBlur(2)))


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    _write(folder, "a.png", "L", (31, 17), 1)
    _write(folder, "b.png", "RGB", (20, 24), 2)
    _write(folder, "nested/c.png", "RGB", (9, 33), 3)
    return folder


CHAIN = "invert,gaussian_blur:2,grayscale"


def test_apply_folder_into_output_dir_matches_pillow(
    inputs: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(["apply", CHAIN, str(inputs), "-r", "-o", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "3 written, 0 failed" in captured.out
    for relative in ("a.png", "b.png", "nested/c.png"):
        with PILImage.open(out / relative) as written:
            assert_image_equal(written.copy(), _expected_invert_blur_gray(inputs / relative))


def test_apply_writes_beside_inputs_with_suffix(
    inputs: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["apply", "flip", str(inputs / "a.png"), str(inputs / "b.png"), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    for name in ("a", "b"):
        with (
            PILImage.open(inputs / f"{name}.gpu.png") as written,
            PILImage.open(inputs / f"{name}.png") as source,
        ):
            assert_image_equal(written.copy(), PILImageOps.flip(source))
    # A second run over the folder skips the outputs written beside their inputs.
    code = main(["apply", "flip", str(inputs), "--no-progress", "--overwrite"])
    assert code == 0
    assert "2 written" in capsys.readouterr().out
    assert not (inputs / "a.gpu.gpu.png").exists()


def test_apply_format_option_changes_the_extension(
    inputs: Path, tmp_path: Path, device: SharedDevice
) -> None:
    out = tmp_path / "bmp"
    code = main(["apply", "mirror", str(inputs / "b.png"), "-o", str(out), "--format", "bmp"])
    assert code == 0
    with PILImage.open(out / "b.bmp") as written, PILImage.open(inputs / "b.png") as source:
        assert written.format == "BMP"
        assert_image_equal(written.copy(), PILImageOps.mirror(source))


def _failing_inputs(folder: Path) -> None:
    _write(folder, "1-good.png", "L", (8, 8), 4)
    (folder / "2-broken.png").write_bytes(b"this is not an image")
    good = folder / "1-good.png"
    (folder / "3-truncated.png").write_bytes(good.read_bytes()[:60])  # header ok, data cut
    _write(folder, "4-rgba.png", "RGBA", (8, 8), 5)  # ImageOps.invert refuses RGBA
    _write(folder, "5-good.png", "RGB", (8, 8), 6)


def test_apply_keeps_going_and_reports_each_failed_input_by_path(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mixed"
    _failing_inputs(folder)
    out = tmp_path / "out"
    code = main(["apply", "invert", str(folder), "-o", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 1
    failed = [line for line in captured.err.splitlines() if line.startswith("pillow-gpu: failed")]
    assert len(failed) == 3, captured.err
    assert f"{folder / '2-broken.png'}: UnidentifiedImageError at open" in failed[0]
    truncated = next(line for line in failed if "3-truncated.png" in line)
    assert " at decode: why: " in truncated
    assert "; observed: " in truncated
    assert "; fix: " in truncated
    rgba = next(line for line in failed if "4-rgba.png" in line)  # Pillow refuses it too
    assert "OSError at record: why: the chain cannot be applied to this file" in rgba
    assert "not supported for mode RGBA" in rgba
    assert sorted(path.name for path in out.iterdir()) == ["1-good.png", "5-good.png"]
    assert "2 written, 3 failed, 0 refused" in captured.out


def test_apply_stop_on_error_stops_at_the_first_failure(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mixed"
    _failing_inputs(folder)
    out = tmp_path / "out"
    code = main(["apply", "invert", str(folder), "-o", str(out), "--stop-on-error"])
    captured = capsys.readouterr()
    assert code == 1
    failed = [line for line in captured.err.splitlines() if line.startswith("pillow-gpu: failed")]
    assert len(failed) == 1
    assert "2-broken.png" in failed[0]
    assert not (out / "5-good.png").exists()


def test_apply_stop_on_error_after_a_decode_failure(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "decode"
    _write(folder, "1-good.png", "L", (8, 8), 4)
    (folder / "2-truncated.png").write_bytes((folder / "1-good.png").read_bytes()[:60])
    code = main(["apply", "invert", str(folder), "-o", str(tmp_path / "out"), "--stop-on-error"])
    captured = capsys.readouterr()
    assert code == 1
    failed = [line for line in captured.err.splitlines() if line.startswith("pillow-gpu: failed")]
    assert len(failed) == 1
    assert "2-truncated.png" in failed[0]
    assert " at decode: " in failed[0]


def test_apply_refuses_existing_outputs_without_overwrite(
    inputs: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["apply", "flip", str(inputs / "a.png"), "-o", str(out)]) == 0
    assert main(["apply", "flip", str(inputs / "a.png"), "-o", str(out)]) == 1
    assert "FileExistsError at output" in capsys.readouterr().err
    assert main(["apply", "flip", str(inputs / "a.png"), "-o", str(out), "--overwrite"]) == 0


def test_apply_reports_a_missing_input(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.png"
    assert main(["apply", "flip", str(missing)]) == 1
    assert f"{missing}: FileNotFoundError at input" in capsys.readouterr().err


def test_apply_says_standard_input_is_not_an_input(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # no file named "-" here
    assert main(["apply", "flip", "-", "-o", "out"]) == 1
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "failed:" in line]
    assert line.startswith("pillow-gpu: failed: -: FileNotFoundError at input: ")
    assert line.endswith(
        "; fix: inputs are files or folders, not standard input: save the stream to a file"
    )


def test_unsupported_chain_is_refused_before_any_file_is_read(
    inputs: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def no_reads(*args: object, **kwargs: object) -> None:
        raise AssertionError("a file was opened for a refused chain")

    monkeypatch.setattr(PILImage, "open", no_reads)
    out = tmp_path / "out"
    code = main(["apply", "median:9", str(inputs), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 2
    assert "chain refused before reading any file" in captured.err
    assert "rank filter size 9 exceeds 7" in captured.err
    assert not out.exists()


def test_invalid_chain_syntax_exits_2_with_the_reason(
    inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["apply", "gaussian_blurr:2", str(inputs)])
    assert caught.value.code == 2
    assert "did you mean 'gaussian_blur'" in capsys.readouterr().err


def test_apply_progress_bar_shows_throughput(
    inputs: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["apply", "flip", str(inputs), "-o", str(tmp_path / "o"), "--progress"])
    err = capsys.readouterr().err
    assert code == 0
    assert "img/s" in err
    assert "MB/s" in err
    assert "2/2" in err


def test_decode_threads_are_an_executor_setting(
    inputs: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["apply", "flip", str(inputs), "-o", str(out), "--decode-threads", "-1"]) == 2
    assert "decode_threads must be at least 0" in capsys.readouterr().err
    assert not out.exists()
    assert main(["apply", "flip", str(inputs), "-o", str(out), "--decode-threads", "2"]) == 0
    files = sorted(path for path in inputs.iterdir() if path.is_file())
    assert sorted(path.name for path in out.iterdir()) == [path.name for path in files]
    for source in files:
        with PILImage.open(source) as opened, PILImage.open(out / source.name) as written:
            assert written.tobytes() == PILImageOps.flip(opened).tobytes()


def test_invalid_executor_setting_exits_2_before_reading(
    inputs: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["apply", "flip", str(inputs), "-o", str(out), "--max-jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert "invalid executor setting" in err
    assert "max_jobs must be at least 1" in err
    assert not out.exists()


def test_max_submission_work_bounds_each_file_and_is_checked_before_reading(
    inputs: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    # The shader-work bound is the executor's: a tiny one refuses every file at admission
    # (named on stderr, nothing written), a usable one writes them, zero is a usage error.
    out = tmp_path / "out"
    argv = ["apply", "gaussian_blur:2", str(inputs), "-o", str(out)]
    assert main([*argv, "--max-submission-work", "0"]) == 2
    assert "max_submission_work must be at least 1" in capsys.readouterr().err
    assert not out.exists()
    assert main([*argv, "--max-submission-work", "1000"]) == 1
    err = capsys.readouterr().err
    assert "shader work exceeds the per-submission bound" in err
    assert "or raise --max-submission-work on a fast GPU" in err  # the option, not the class
    assert not out.exists() or not any(out.iterdir())
    assert main([*argv, "--max-submission-work", str(10**10)]) == 0
    files = sorted(path for path in inputs.iterdir() if path.is_file())
    assert sorted(path.name for path in out.iterdir()) == [path.name for path in files]


def test_a_size_dependent_step_fails_only_the_files_it_does_not_fit(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "sizes"
    large = _write(folder, "large.png", "RGB", (31, 17), 1)
    small = _write(folder, "small.png", "RGB", (8, 8), 2)
    out = tmp_path / "out"
    code = main(["apply", "crop:5", str(folder), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 1
    assert f"{small}: ValueError at record" in captured.err
    with PILImage.open(out / "large.png") as written, PILImage.open(large) as source:
        assert_image_equal(written.copy(), PILImageOps.crop(source, 5))
    assert not (out / "small.png").exists()


#: A result mode an output format cannot hold, the step that fixes it and the formats named.
UNWRITABLE = [
    ("RGBA", "jpg", "flatten", "png, webp or tiff"),
    ("LA", "jpg", "flatten", "png, webp or tiff"),
    ("P", "jpg", "flatten", "png, webp or tiff"),
    ("I;16", "jpg", "", "png or tiff"),  # convert:L clips: no step is named
    ("CMYK", "png", "convert:RGB", "tiff"),
]


@pytest.mark.parametrize(
    ("mode", "output", "step", "formats"),
    UNWRITABLE,
    ids=[f"{row[0]}-{row[1]}" for row in UNWRITABLE],
)
def test_an_output_the_format_cannot_hold_is_reported_at_save_with_the_step_that_fixes_it(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    mode: str,
    output: str,
    step: str,
    formats: str,
) -> None:
    folder = tmp_path / "modes"
    _write(folder, "gray.png", "L", (8, 8), 1)
    unwritable = folder / f"odd.{'tif' if mode == 'CMYK' else 'png'}"
    wide = mode == "I;16"  # a 16-bit PNG, as a scanner writes it
    make_image("L" if wide else mode, (8, 8), 2).convert(mode).save(unwritable)
    out = tmp_path / "out"
    argv = ["apply", "flip", str(folder), "-o", str(out), "--format", output, "--cpu-fallback"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    file_format = PILImage.registered_extensions()[f".{output}"]
    assert f"{unwritable}: OSError at save: why: the output's format cannot hold the chain's " in (
        captured.err
    )
    fix = f"fix: add {step} to the end " if step else "fix: choose a --format that holds"
    assert f"observed: cannot write mode {mode} as {file_format}; {fix}" in captured.err
    assert f"such as {formats} ({file_format} cannot hold {mode} images" in captured.err
    assert (out / f"gray.{output}").exists()
    assert "1 written, 1 failed" in captured.out
    with PILImage.open(unwritable) as opened:  # the step fixes it, as in Pillow
        fixed = parse_chain(f"flip,{step}" if step else "flip").apply_pil(opened)
        fixed.save(io.BytesIO(), format=file_format if step else formats.split(maxsplit=1)[0])


#: Writers that word the refusal otherwise: the mode and format named by PCX, neither by QOI,
#: SGI and GIF, nor by the JPEG 2000 encoder, whose message is a generic one; the report fills
#: them in from the result and the output.
OTHERWISE_WORDED = [
    ("RGBA", "pcx", "Cannot save RGBA images as PCX", "flatten"),
    ("L", "qoi", "Unsupported QOI image mode", "convert:RGB"),
    ("LA", "sgi", "Unsupported SGI image mode", "flatten"),
    ("CMYK", "gif", "image has wrong mode", "convert:RGB"),
    ("P", "jp2", "broken data stream when writing image file", "flatten"),
    ("1", "jp2", "broken data stream when writing image file", "convert:RGB"),
]


@pytest.mark.parametrize(
    ("mode", "output", "observed", "step"),
    OTHERWISE_WORDED,
    ids=[f"{row[0]}-{row[1]}" for row in OTHERWISE_WORDED],
)
def test_other_writers_refusals_of_a_mode_name_the_step_that_fixes_it(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    mode: str,
    output: str,
    observed: str,
    step: str,
) -> None:
    folder = tmp_path / "modes"
    folder.mkdir()
    make_image(mode, (8, 8), 2).save(folder / "odd.tif")  # a TIFF holds each mode
    out = tmp_path / "out"
    assert main(["apply", "flip", str(folder), "-o", str(out), "--format", output]) == 1
    err = capsys.readouterr().err
    file_format = PILImage.registered_extensions()[f".{output}"]
    assert "at save: why: the output's format cannot hold the chain's result in its mode" in err
    assert f"observed: {observed}; fix: add {step} to the end of the chain" in err
    assert f"({file_format} cannot hold {mode} images)" in err
    with PILImage.open(folder / "odd.tif") as opened:  # the step fixes it, as in Pillow
        fixed = parse_chain(f"flip,{step}").apply_pil(opened)
        fixed.save(io.BytesIO(), format=file_format)


def test_flatten_turns_a_folder_with_transparency_into_jpegs_like_pillow(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    """RGBA and LA PNGs, a palette PNG with a transparent index and an RGB JPEG, written as
    JPEG files (which cannot hold alpha) after pasting their transparency over orange."""
    folder = tmp_path / "in"
    _write(folder, "rgba.png", "RGBA", (40, 30), 1)
    _write(folder, "la.png", "LA", (33, 21), 2)
    make_image("RGB", (28, 19), 3).quantize(16).save(folder / "palette.png", transparency=5)
    make_image("RGB", (25, 25), 4).save(folder / "photo.jpg", quality=90)
    out = tmp_path / "out"
    chain = "exif_transpose,flatten:#ff8000,thumbnail:16x16"
    code = main(["apply", chain, str(folder), "-o", str(out), "--format", "jpg", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "4 written, 0 failed, 0 refused" in captured.out
    assert "4 on the GPU (byte-exact)" in captured.out
    for source in sorted(folder.iterdir()):
        with PILImage.open(source) as opened:
            image = PILImageOps.exif_transpose(opened)
        if image.mode in ("RGBA", "LA") or "transparency" in image.info:
            rgba = image.convert("RGBA")
            image = PILImage.new("RGB", rgba.size, "#ff8000")
            image.paste(rgba, (0, 0), rgba)
        else:
            image = image.convert("RGB")
        image.thumbnail((16, 16))
        expected = tmp_path / f"{source.stem}.expected.jpg"
        image.save(expected)
        assert (out / f"{source.stem}.jpg").read_bytes() == expected.read_bytes()
