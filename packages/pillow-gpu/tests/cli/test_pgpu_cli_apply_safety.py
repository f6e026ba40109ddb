"""``pillow-gpu apply`` never loses or damages a file, whatever the inputs, flags or Ctrl-C.

One regression test per item of issue 15's first part: output-name collisions, duplicate
inputs, atomic writes, symlinks at and above output names, the output folder inside an input
folder, per-file failures (a decompression-bomb GIF, MemoryError), usage errors, hostile file
names and a real SIGINT sent to a running ``python -m pillow_gpu apply``. The kernels run on
the adapter (lavapipe without a GPU), as in the other CLI tests.
"""

from __future__ import annotations

import errno
import io
import os
import re
import signal
import stat
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image
from pillow_gpu._testing import make_image
from pillow_gpu.cli import _outputs, main
from pillow_gpu.cli._apply import TEMP_SUFFIX
from pillow_gpu.cli._chain import Chain
from pillow_gpu.gpu._device import SharedDevice

README = Path(__file__).resolve().parents[2] / "README.md"


def _write(path: Path, mode: str = "L", size: tuple[int, int] = (8, 8), seed: int = 1) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    make_image(mode, size, seed).save(path)
    return path


def _inverted(path: Path) -> PILImage.Image:
    with PILImage.open(path) as source:
        return PILImageOps.invert(source.convert(source.mode))


def _assert_inverted(output: Path, source: Path) -> None:
    expected = _inverted(source)
    with PILImage.open(output) as written:
        assert (written.mode, written.size) == (expected.mode, expected.size)
        assert written.tobytes() == expected.tobytes()


def _failed_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("pillow-gpu: failed: ")]


def _temp_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.name.endswith(TEMP_SUFFIX)]


def _apply(*argv: str | Path) -> int:
    return main(["apply", *(str(arg) for arg in argv), "--no-progress"])


# -- collisions and duplicates ----------------------------------------------------------------


def test_same_name_in_two_input_folders_is_a_collision_not_an_overwrite(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _write(tmp_path / "d1" / "a.png", seed=1)
    second = _write(tmp_path / "d2" / "a.png", seed=2)
    out = tmp_path / "out"
    code = _apply("invert", tmp_path / "d1", tmp_path / "d2", "-o", out)
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{second}: OutputCollision at output: why: two inputs" in failed
    assert f"observed: {out / 'a.png'} is already the output of {first}; fix: " in failed
    assert "1 written, 1 failed" in captured.out
    _assert_inverted(out / "a.png", first)  # the first input keeps the name


@pytest.mark.parametrize("into_folder", [True, False], ids=["into-output-dir", "beside-inputs"])
def test_inputs_differing_only_in_extension_collide_under_format(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], into_folder: bool
) -> None:
    folder = tmp_path / "x"
    jpg = folder / "a.jpg"
    jpg.parent.mkdir()
    make_image("RGB", (8, 8), 3).save(jpg)
    png = _write(folder / "a.png", "RGB", seed=4)
    out = tmp_path / "out"
    target = out / "a.png" if into_folder else folder / "a.gpu.png"
    extra: list[str | Path] = ["-o", out] if into_folder else []
    code = _apply("invert", jpg, png, "--format", "png", *extra)
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{png}: OutputCollision at output" in failed
    assert "1 written, 1 failed" in captured.out
    _assert_inverted(target, jpg)


def test_an_output_name_that_is_another_input_is_a_collision(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / "a.png", seed=1)
    earlier = _write(tmp_path / "a.gpu.png", seed=2)
    before = earlier.read_bytes()
    code = _apply("invert", source, earlier, "--overwrite")
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{source}: OutputCollision at output" in failed
    assert f"is already the input {earlier}" in failed
    assert earlier.read_bytes() == before
    _assert_inverted(tmp_path / "a.gpu.gpu.png", earlier)


@pytest.mark.parametrize(
    ("spelling", "outputs", "duplicates"),
    [
        pytest.param(("many/000.png", "many"), 2, 1, id="file-and-its-folder"),
        pytest.param(("many/000.png", "./many/000.png"), 1, 1, id="dot-slash"),
        pytest.param(("many", "many/../many/"), 2, 2, id="folder-twice"),
        pytest.param(("many/000.png", "link.png"), 1, 1, id="symlink-to-the-same-file"),
    ],
)
def test_the_same_input_given_twice_is_processed_once(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    spelling: tuple[str, str],
    outputs: int,
    duplicates: int,
) -> None:
    monkeypatch.chdir(tmp_path)
    for index in range(2):
        _write(tmp_path / "many" / f"{index:03d}.png", seed=index)
    (tmp_path / "link.png").symlink_to(tmp_path / "many" / "000.png")
    code = _apply("invert", *spelling, "-o", "out")
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert (
        f"{outputs} written, 0 failed, 0 refused, {duplicates} duplicate input(s) ignored"
        in captured.out
    )
    assert len(list((tmp_path / "out").iterdir())) == outputs
    _assert_inverted(tmp_path / "out" / "000.png", tmp_path / "many" / "000.png")


# -- atomic writes ----------------------------------------------------------------------------


def test_a_failed_save_with_overwrite_keeps_the_previous_output(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / "in" / "rgba.png", "RGBA", seed=2)
    out = tmp_path / "out"
    previous = _write(out / "rgba.jpg", "RGB", seed=9).read_bytes()
    code = _apply("chops_invert", tmp_path / "in", "-o", out, "--format", "jpg", "--overwrite")
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{source}: OSError at save: why: the output's format cannot hold" in failed
    assert (out / "rgba.jpg").read_bytes() == previous
    assert _temp_files(out) == []


@pytest.mark.parametrize(
    ("number", "why", "stops"),
    [
        (
            errno.ENOSPC,
            "the output's disk is full; observed: [Errno 28] No space left on device; "
            "fix: free space on it or choose another --output-dir",
            True,
        ),
        (errno.EROFS, "the output folder is on a read-only file system", True),
        (errno.ENAMETOOLONG, "the output's name is longer than its file system allows", False),
    ],
    ids=["disk-full", "read-only", "name-too-long"],
)
def test_a_save_the_file_system_refuses_says_so_and_keeps_the_previous_output(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    number: int,
    why: str,
    stops: bool,
) -> None:
    # The disk filling up mid-run: the write of the second file fails as the system says,
    # and no later write can succeed, so the run stops there (a name too long is one file's).
    first = _write(tmp_path / "in" / "1.png", seed=1)
    second = _write(tmp_path / "in" / "2.png", seed=2)
    third = _write(tmp_path / "in" / "3.png", seed=3)
    out = tmp_path / "out"
    previous = _write(out / "2.png", "RGB", seed=9).read_bytes()
    real_save = PILImage.Image.save

    def save(self: PILImage.Image, stream: object, *args: object, **options: object) -> None:
        if self.tobytes() == _inverted(second).tobytes():
            raise OSError(number, os.strerror(number))
        real_save(self, stream, *args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(PILImage.Image, "save", save)
    # One write at a time: with write threads, the writes already started when the refusal
    # is settled finish too (on a full disk they fail the same way).
    argv = ["--overwrite", "--max-jobs", "1", "--write-threads", "0"]
    assert _apply("invert", tmp_path / "in", "-o", out, *argv) == 1
    captured = capsys.readouterr()
    (failed,) = _failed_lines(captured.err)
    assert f"{second}: OSError at save: why: {why}" in failed
    _assert_inverted(out / "1.png", first)
    assert (out / "2.png").read_bytes() == previous
    assert _temp_files(out) == []
    if stops:
        assert "pillow-gpu: stopped: the output's file system refused a write (" in captured.err
        assert "; 1 input(s) not processed; free space" in captured.err
        assert "1 written, 1 failed, 0 refused" in captured.out
        assert ", stopped with 1 not processed" in captured.out
        assert not (out / "3.png").exists()
    else:
        assert "pillow-gpu: stopped:" not in captured.err
        _assert_inverted(out / "3.png", third)


def test_outputs_are_renamed_into_place_with_the_usual_file_mode(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / "in" / "a.png")
    out = tmp_path / "out"
    previous = _write(out / "a.png", seed=7).read_bytes()
    assert _apply("invert", tmp_path / "in", "-o", out, "--overwrite") == 0
    assert (out / "a.png").read_bytes() != previous
    _assert_inverted(out / "a.png", source)
    assert sorted(path.name for path in out.iterdir()) == ["a.png"]  # no temporary file left
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE((out / "a.png").stat().st_mode) == 0o666 & ~mask


def test_an_output_another_process_wrote_meanwhile_is_never_replaced(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two runs into one folder (xargs -P): the other one writes the same name while this one
    # encodes. The output is linked into place, which fails where a file appeared.
    first = _write(tmp_path / "in" / "1.png", seed=1)
    second = _write(tmp_path / "in" / "2.png", seed=2)
    out = tmp_path / "out"
    theirs = make_image("RGB", (5, 5), 9)
    real_encode = _outputs.encode

    def encode(stream: Any, file_format: str, image: Any, *more: Any, **options: Any) -> Any:
        if image.tobytes() == _inverted(second).tobytes():
            theirs.save(out / "2.png")  # the other process, between the check and the rename
        return real_encode(stream, file_format, image, *more, **options)

    monkeypatch.setattr(_outputs, "encode", encode)
    assert _apply("invert", tmp_path / "in", "-o", out, "--max-jobs", "1") == 1
    captured = capsys.readouterr()
    (failed,) = _failed_lines(captured.err)
    assert f"{second}: FileExistsError at output: why: the output appeared while" in failed
    assert "fix: run one command per output folder, or pass --overwrite" in failed
    _assert_inverted(out / "1.png", first)
    with PILImage.open(out / "2.png") as kept:
        assert kept.tobytes() == theirs.tobytes()  # the other process's file, whole
    assert _temp_files(out) == []


def test_a_file_system_without_hard_links_still_gets_each_output(
    tmp_path: Path,
    device: SharedDevice,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # FAT, exFAT and some network shares refuse link(): the output is renamed into place.
    source = _write(tmp_path / "in" / "a.png")
    out = tmp_path / "out"

    def link(*args: object) -> None:
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(_outputs.os, "link", link)
    assert _apply("invert", tmp_path / "in", "-o", out) == 0
    _assert_inverted(out / "a.png", source)
    assert sorted(path.name for path in out.iterdir()) == ["a.png"]


# -- symlinks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("overwrite", [False, True], ids=["refused", "overwrite-replaces-the-link"])
@pytest.mark.parametrize("into_folder", [True, False], ids=["into-output-dir", "beside-inputs"])
def test_a_dangling_symlink_at_an_output_name_is_never_followed(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    overwrite: bool,
    into_folder: bool,
) -> None:
    source = _write(tmp_path / "in" / "a.png")
    victim = tmp_path / "outside" / "victim.png"
    victim.parent.mkdir()
    out = tmp_path / "out"
    link = out / "a.png" if into_folder else tmp_path / "in" / "a.gpu.png"
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(victim)
    argv: list[str | Path] = ["invert", source]
    argv += ["-o", out] if into_folder else []
    argv += ["--overwrite"] if overwrite else []
    code = _apply(*argv)
    captured = capsys.readouterr()
    assert not victim.exists()
    if overwrite:
        assert code == 0, captured.err
        assert not link.is_symlink()
        _assert_inverted(link, source)
    else:
        assert code == 1
        (failed,) = _failed_lines(captured.err)
        assert "FileExistsError at output: why: the output already exists (a symlink" in failed
        assert link.is_symlink()


def test_a_symlinked_folder_inside_the_output_folder_is_not_written_through(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path / "in" / "a.png")
    nested = _write(tmp_path / "in" / "nested" / "c.png")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "nested").symlink_to(elsewhere, target_is_directory=True)
    code = _apply("invert", tmp_path / "in", "-r", "-o", out)
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{nested}: UnsafeOutput at output: why: a symlink inside the output folder" in failed
    assert list(elsewhere.iterdir()) == []
    assert (out / "a.png").is_file()


# -- the output folder inside an input folder --------------------------------------------------


def test_the_output_folder_inside_an_input_folder_is_never_read(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "d"
    _write(folder / "a.png", seed=1)
    _write(folder / "sub" / "b.png", seed=2)
    out = folder / "out"
    assert _apply("invert", folder, "-r", "-o", out) == 0
    assert _apply("invert", folder, "-r", "-o", out, "--overwrite") == 0
    assert "2 written, 0 failed" in capsys.readouterr().out
    assert not (out / "out").exists()
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.png")) == [
        "a.png",
        "sub/b.png",
    ]


# -- every per-file problem is a reported failure ---------------------------------------------


def _bomb_gif(path: Path) -> Path:
    """A 1x1 GIF from Pillow whose header declares 65535x65535 (over 2x MAX_IMAGE_PIXELS)."""
    buffer = io.BytesIO()
    PILImage.new("P", (1, 1)).save(buffer, "GIF")
    data = bytearray(buffer.getvalue())
    data[6:10] = struct.pack("<HH", 65535, 65535)  # the logical screen size
    path.write_bytes(bytes(data))
    limit = PILImage.MAX_IMAGE_PIXELS
    assert limit is not None
    assert 2 * limit < 65535 * 65535
    with pytest.raises(PILImage.DecompressionBombError):
        PILImage.open(path)
    return path


def test_a_decompression_bomb_gif_is_a_failure_and_the_run_goes_on(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "in"
    first = _write(folder / "1-good.png", seed=1)
    bomb = _bomb_gif(folder / "2-bomb.gif")
    last = _write(folder / "3-good.png", seed=3)
    out = tmp_path / "out"
    code = _apply("invert", folder, "-o", out)
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{bomb}: DecompressionBombError at open: why: the file declares more pixels" in failed
    assert "observed: Image size (4294836225 pixels) exceeds limit" in failed
    assert "; fix: leave the file out" in failed
    assert "Traceback" not in captured.err
    assert bomb.stat().st_size < 100
    _assert_inverted(out / "1-good.png", first)
    _assert_inverted(out / "3-good.png", last)


@pytest.mark.parametrize("stage", ["open", "record"])
def test_a_memory_error_is_a_failure_and_the_run_goes_on(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stage: str,
) -> None:
    # Host memory runs out while reading the header or recording the chain of one file (the
    # device is not involved in either step, and runs for the other files).
    folder = tmp_path / "in"
    first = _write(folder / "1-good.png", seed=1)
    huge = _write(folder / "2-huge.png", size=(9, 7), seed=2)
    last = _write(folder / "3-good.png", seed=3)
    real_open, real_apply = Image.open, Chain.apply

    def open_(path: Path, *args: object) -> Image.Image:
        if stage == "open" and Path(path).name == huge.name:
            raise MemoryError
        return real_open(path)

    def apply(self: Chain, image: Image.Image) -> Image.Image:
        if stage == "record" and image.size == (9, 7):
            raise MemoryError
        return real_apply(self, image)

    monkeypatch.setattr(Image, "open", open_)
    monkeypatch.setattr(Chain, "apply", apply)
    out = tmp_path / "out"
    code = _apply("invert", folder, "-o", out)
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{huge}: MemoryError at {stage}: why: the host ran out of memory" in failed
    _assert_inverted(out / "1-good.png", first)
    _assert_inverted(out / "3-good.png", last)


# -- usage errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param(["--suffix", "/../x"], "invalid --suffix: why: ", id="suffix-with-separator"),
        pytest.param(["--suffix", "a\0b"], "invalid --suffix: why: ", id="suffix-with-nul"),
        pytest.param(["--suffix", ""], "outputs written beside their inputs", id="empty-suffix"),
        pytest.param(["--format", "a/b"], "invalid --format: why: ", id="format-with-separator"),
        pytest.param(["--format", "."], "invalid --format: why: ", id="format-dot"),
        pytest.param(["--format", ""], "invalid --format: why: ", id="format-empty"),
        pytest.param(["--format", "xyz"], "Pillow has no writer", id="format-unknown"),
        pytest.param(["--format", "psd"], "Pillow has no writer", id="format-read-only"),
        pytest.param(["-o", ""], "invalid --output-dir: ", id="empty-output-dir"),
        pytest.param(["-o", "{file}"], "exists and is not a folder", id="output-dir-is-a-file"),
        pytest.param(
            ["-o", "{folder}/../result.png"],
            "does not exist and ends in .png; fix: name a folder",
            id="output-dir-named-as-an-image-file",
        ),
        pytest.param(
            ["-o", "{folder}"], "the output folder is an input folder", id="output-is-input"
        ),
    ],
)
def test_invalid_options_are_usage_errors_before_anything_is_read(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    message: str,
) -> None:
    folder = tmp_path / "in"
    source = _write(folder / "a.png")
    argv = [arg.format(file=source, folder=folder) for arg in options]
    before = sorted(tmp_path.rglob("*"))
    code = _apply("invert", folder, *argv)
    captured = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in captured.err
    (line,) = captured.err.splitlines()
    assert line.startswith("pillow-gpu: error: invalid --")
    assert message in line
    assert "; observed: " in line
    assert "; fix: " in line
    assert sorted(tmp_path.rglob("*")) == before


def test_an_existing_folder_with_an_image_extension_is_an_output_dir(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / "in" / "a.png")
    (tmp_path / "album.png").mkdir()  # an odd name, but the user's own folder
    assert _apply("invert", tmp_path / "in", "-o", tmp_path / "album.png") == 0
    _assert_inverted(tmp_path / "album.png" / "a.png", source)


def test_an_empty_suffix_with_an_output_dir_keeps_the_names(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / "in" / "a.png")
    assert _apply("invert", tmp_path / "in", "--suffix", "", "-o", tmp_path / "out") == 0
    _assert_inverted(tmp_path / "out" / "a.png", source)


def test_a_folder_without_images_is_a_failure_not_zero_written(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "empty"
    _write(folder / "sub" / "a.png")
    (folder / "notes.txt").write_text("not an image")
    code = _apply("invert", folder, "-o", tmp_path / "out")
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{folder}: NoImages at input: why: the folder holds no image file" in failed
    assert "observed: 1 other file(s) (.txt 1); fix: pass -r" in failed


@pytest.mark.parametrize("recursive", [False, True], ids=["flat", "recursive"])
def test_hidden_files_and_folders_are_left_out_and_counted(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], recursive: bool
) -> None:
    """A Mac's resource forks (``._a.png``: not images, each would be a failure) and hidden
    folders are left out of a folder as a shell's ``*`` leaves them out; named, one runs."""
    folder = tmp_path / "in"
    _write(folder / "a.png")
    _write(folder / "sub" / "b.png")
    thumbnail = _write(folder / ".thumbnails" / "t.png")
    (folder / "._a.png").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")
    flags = ["-r"] if recursive else []
    assert _apply("invert", folder, *flags, "-o", tmp_path / "out") == 0
    summary = capsys.readouterr().out
    written = sorted(
        p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.png")
    )
    assert written == (["a.png", "sub/b.png"] if recursive else ["a.png"])
    hidden = 2 if recursive else 1  # the hidden folder is seen where sub-folders are searched
    assert (
        f"  skipped: {hidden} hidden file(s) or folder(s) (names starting with a dot)\n" in summary
    )
    assert _apply("invert", thumbnail, "-o", tmp_path / "named") == 0
    assert (tmp_path / "named" / "t.png").is_file()


def test_an_unreadable_sub_folder_is_a_reported_failure(
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Permissions do not stop root (CI containers), so the listing error is raised directly.
    folder = tmp_path / "in"
    source = _write(folder / "a.png")
    locked = folder / "locked"
    _write(locked / "b.png")
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code = _apply("invert", folder, "-r", "-o", tmp_path / "out")
    captured = capsys.readouterr()
    assert code == 1
    (failed,) = _failed_lines(captured.err)
    assert f"{locked}: PermissionError at input: why: an input folder could not be listed" in failed
    _assert_inverted(tmp_path / "out" / "a.png", source)


# -- hostile names ----------------------------------------------------------------------------

HOSTILE_NAMES = [
    pytest.param("with space.png", id="space"),
    pytest.param("-leading-dash.png", id="leading-dash"),
    pytest.param("--overwrite.png", id="looks-like-an-option"),
    pytest.param("quote'\"$(x).png", id="shell-metacharacters"),
    pytest.param("ünïcödé.png", id="unicode"),
    pytest.param("new\nline.png", id="newline"),
    pytest.param(os.fsdecode(b"bad-\xff-utf8.png"), id="undecodable-bytes"),
    pytest.param("x" * 200 + ".png", id="long-name"),
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_file_names_are_written_and_reported_safely(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    folder = tmp_path / "in"
    try:
        source = _write(folder / name)
    except (OSError, UnicodeEncodeError) as error:  # a file system that refuses the name
        pytest.skip(f"the file system refuses {name!r}: {error}")
    broken = folder / f"broken-{name}"
    broken.write_bytes(b"not an image")
    out = tmp_path / "out"
    code = _apply("invert", folder, "-o", out)
    captured = capsys.readouterr()
    assert code == 1
    _assert_inverted(out / name, source)
    assert sorted(path.name for path in out.iterdir()) == [name]
    (failed,) = _failed_lines(captured.err)  # one line, even for a name holding a newline
    assert ": UnidentifiedImageError at open: why: " in failed
    shown = (
        str(broken) if str(broken).isprintable() and "\udcff" not in name else ascii(str(broken))
    )
    assert failed.startswith(f"pillow-gpu: failed: {shown}: ")


# -- help, README and SIGINT ------------------------------------------------------------------


def test_help_and_readme_document_the_exit_statuses_and_the_collision_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["apply", "--help"])
    assert caught.value.code == 0
    text = capsys.readouterr().out
    readme = README.read_text(encoding="utf-8")
    for code in ("0", "1", "2", "129", "130", "143"):
        assert re.search(rf"^  {code}\s+\S", text, re.MULTILINE), text
        assert f"| {code} |" in readme
    assert "OutputCollision" in text
    assert "OutputCollision" in readme


def _signal_after_the_first_output(
    tmp_path: Path,
    count: int,
    stop: signal.Signals,
    *,
    ignored: bool = False,
    terminal_gone: bool = False,
) -> tuple[subprocess.CompletedProcess[str], Path, Path, list[str]]:
    """Run ``apply invert`` over ``count`` small PNGs one job at a time and send ``stop`` once
    the first output exists (to a run started with it ignored, as ``nohup`` starts one, where
    ``ignored``); the finished process, the input and output folders and the command.

    With ``terminal_gone`` the run writes to a pseudo-terminal, which is closed before the
    signal (a closed terminal window): every later write to it fails with EIO, and the
    process's captured output is None."""
    folder = tmp_path / "many"
    for index in range(count):
        _write(folder / f"{index:03d}.png", "L", (16, 16), seed=index)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "pillow_gpu", "apply", "invert", str(folder), "-o", str(out)]
    controller, terminal = -1, subprocess.PIPE
    if terminal_gone:
        import pty  # POSIX only, as the test that asks for it

        controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [*command, "--no-progress", "--max-jobs", "1", "--max-in-flight", "1"],
        stdout=terminal,
        stderr=terminal,
        text=True,
        # Ignored as nohup starts a run, or its default whatever this test run inherited (a
        # suite started under nohup hands its children SIGHUP ignored).
        preexec_fn=lambda: signal.signal(stop, signal.SIG_IGN if ignored else signal.SIG_DFL),  # noqa: PLW1509 - one signal call before the exec
    )
    if terminal_gone:
        os.close(terminal)  # the child holds it
    try:
        deadline = time.monotonic() + 90
        while not (out.is_dir() and any(path.suffix == ".png" for path in out.iterdir())):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no output appeared"
            time.sleep(0.002)
        if terminal_gone:
            os.close(controller)
        process.send_signal(stop)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    return done, folder, out, command


@pytest.mark.parametrize(
    ("stop", "status"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)],
    ids=["SIGINT", "SIGTERM", "SIGHUP"],
)
def test_a_stop_signal_mid_run_keeps_every_output_whole(
    tmp_path: Path, stop: signal.Signals, status: int
) -> None:
    """SIGINT (Ctrl-C), SIGTERM (kill, timeout, docker stop) and SIGHUP (the terminal closed)
    stop a run the same way. Before SIGTERM and SIGHUP were handled, they killed the run
    mid-save: a temporary file was left and no summary printed."""
    count = 300
    done, folder, out, command = _signal_after_the_first_output(tmp_path, count, stop)
    stdout, stderr = done.stdout, done.stderr
    assert done.returncode == status, stderr
    assert "Traceback" not in stderr
    assert f"pillow-gpu: interrupted ({stop.name}): stopped after the file being saved" in stderr
    found = re.search(
        r"(\d+) written, 0 failed, 0 refused, interrupted with (\d+) not processed", stdout
    )
    assert found is not None, stdout
    written, left = int(found[1]), int(found[2])
    assert 1 <= written < count
    assert written + left == count
    outputs = sorted(out.iterdir())
    assert [path.suffix for path in outputs] == [".png"] * written  # no temporary file left
    for output in outputs:
        _assert_inverted(output, folder / output.name)
    # A rerun reports the complete outputs as existing and writes exactly the rest.
    rerun = subprocess.run(
        [*command, "--no-progress"], capture_output=True, text=True, timeout=120, check=False
    )
    assert rerun.returncode == 1, rerun.stderr
    assert f"{left} written, {written} failed" in rerun.stdout
    assert len(list(out.iterdir())) == count


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals on this platform")
def test_a_hangup_with_the_terminal_gone_keeps_every_output_whole(tmp_path: Path) -> None:
    """A closed terminal window: SIGHUP, then every write to the terminal fails (EIO). The
    run stops as on any stop signal, with status 129; the summary nobody can read is dropped
    (before, its print raised and the status was 1)."""
    count = 300
    done, folder, out, _command = _signal_after_the_first_output(
        tmp_path, count, signal.SIGHUP, terminal_gone=True
    )
    assert done.returncode == 129
    outputs = sorted(out.iterdir())
    assert 1 <= len(outputs) < count
    assert [path.suffix for path in outputs] == [".png"] * len(outputs)  # no temporary file
    for output in outputs:
        _assert_inverted(output, folder / output.name)


def test_a_signal_ignored_at_start_stays_ignored(tmp_path: Path) -> None:
    """A run started under ``nohup`` (SIGHUP ignored) goes on when the terminal closes."""
    count = 60
    done, _folder, out, _command = _signal_after_the_first_output(
        tmp_path, count, signal.SIGHUP, ignored=True
    )
    assert done.returncode == 0, done.stderr
    assert f"{count} written, 0 failed" in done.stdout
    assert len(list(out.iterdir())) == count
