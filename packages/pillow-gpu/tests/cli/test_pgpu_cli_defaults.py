"""``pillow-gpu`` defaults that feel like Pillow: resize's filter, ``--quality``, ``--version``,
and wgpu's adapter-creation chatter kept off stderr unless asked for."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image as PILImage
from pillow_gpu import __version__
from pillow_gpu._testing import make_image
from pillow_gpu.cli import VERBOSE_ENV, main
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.gpu._device import SharedDevice

#: Lines wgpu-native logs at WARNING while creating a lavapipe adapter (measured).
CHATTER = ("Unable to find extension", "No config found!", "surfaceless platform")


def _source(tmp_path: Path, mode: str = "RGB", name: str = "a.png") -> Path:
    path = tmp_path / "in" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    make_image(mode, (41, 29), seed=7).save(path)
    return path


def test_resize_defaults_to_pillows_default_filter(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    assert parse_chain("resize:20x13").steps[0].args == ((20, 13), "bicubic")
    source = _source(tmp_path)
    out = tmp_path / "out"
    assert main(["apply", "resize:20x13", str(source), "-o", str(out)]) == 0, capsys.readouterr()
    with PILImage.open(source) as opened:
        expected = opened.resize((20, 13))  # Pillow's default: BICUBIC
    with PILImage.open(out / "a.png") as written:  # a file keeps no RGB padding byte
        assert (written.mode, written.size) == (expected.mode, expected.size)
        assert written.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("fmt", "quality"),
    [("jpg", 35), ("jpg", 95), ("webp", 20), ("avif", 30)],
    ids=["jpeg-35", "jpeg-95", "webp-20", "avif-30"],
)
def test_quality_is_passed_to_pillows_save(
    fmt: str, quality: int, tmp_path: Path, device: SharedDevice
) -> None:
    source = _source(tmp_path)
    out = tmp_path / "out"
    argv = ["apply", "flip", str(source), "-o", str(out), "--format", fmt]
    assert main([*argv, "--quality", str(quality)]) == 0
    with PILImage.open(source) as opened:
        flipped = opened.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)
    expected, default = io.BytesIO(), io.BytesIO()
    pillow_format = {"jpg": "JPEG", "webp": "WEBP", "avif": "AVIF"}[fmt]
    flipped.save(expected, pillow_format, quality=quality)
    flipped.save(default, pillow_format)
    written = (out / f"a.{fmt}").read_bytes()
    assert written == expected.getvalue()
    assert written != default.getvalue()  # the option changed the file


def test_quality_is_ignored_by_formats_without_it(tmp_path: Path, device: SharedDevice) -> None:
    source = _source(tmp_path)
    out = tmp_path / "out"
    assert main(["apply", "flip", str(source), "-o", str(out), "--quality", "10"]) == 0
    with PILImage.open(out / "a.png") as written, PILImage.open(source) as opened:
        flipped = opened.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)
        assert written.tobytes() == flipped.tobytes()


@pytest.mark.parametrize("fmt", ["png", "tiff", "gif", "bmp"])
def test_quality_with_a_format_that_takes_none_is_a_usage_error(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _source(tmp_path)
    out = tmp_path / "out"
    argv = ["apply", "flip", str(source), "-o", str(out), "--format", fmt, "--quality", "80"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "invalid --quality: why: only JPEG, WebP and AVIF outputs take a quality" in err
    assert f"--quality 80 with --format {fmt}" in err
    assert not out.exists()  # refused before any file is read or written


@pytest.mark.parametrize("value", ["-1", "101", "high"], ids=["negative", "over-100", "text"])
def test_quality_out_of_range_is_a_usage_error(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["apply", "flip", str(tmp_path), "--quality", value])
    assert caught.value.code == 2
    assert "--quality" in capsys.readouterr().err


def test_version_names_pillow_gpu_pillow_and_wgpu(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"pillow-gpu {__version__} (Pillow {PILImage.__version__}, wgpu ")


def _info_stderr(*flags: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pillow_gpu", *flags, "info", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_adapter_chatter_is_hidden_unless_asked_for(device: SharedDevice) -> None:
    quiet = _info_stderr(env={VERBOSE_ENV: ""})
    assert not [line for line in quiet.splitlines() if any(text in line for text in CHATTER)]
    verbose = _info_stderr("-v")
    if "llvmpipe" in str(device.adapter_info.get("device", "")):  # lavapipe: measured chatter
        assert "No config found!" in verbose
        assert "No config found!" in _info_stderr(env={VERBOSE_ENV: "1"})


def test_main_restores_the_wgpu_log_level(
    device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    logger = logging.getLogger("wgpu")
    before = logger.level
    assert main(["info", "--json"]) == 0
    assert logger.level == before
    capsys.readouterr()
