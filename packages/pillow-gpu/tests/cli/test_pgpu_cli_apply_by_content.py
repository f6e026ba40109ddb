"""``pillow-gpu apply`` on image files whose name does not say their format.

A browser saves a large photo as ``photo.jpg_large``, a script writes ``scan`` without an
extension; Pillow opens both by their content. Named on the command line, such a file is an
input, and its output takes its format's usual extension (``photo.gpu.jpg``), with Pillow's
program's bytes. A folder's inputs are its files with image extensions, as a shell's glob
would choose them (a camera card's ``.THM`` previews are JPEGs too); the summary counts the
images under other names apart from the files Pillow reads nothing from, and says how to run
them.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image as PILImage
from pillow_gpu._testing import make_image
from pillow_gpu.cli import main
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.cli._metadata import file_items, metadata_options
from pillow_gpu.cli._outputs import identified_extension
from pillow_gpu.gpu._device import SharedDevice

CHAIN = "flip"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A JPEG, a JPEG and a PNG under names that do not say so, a camera's THM preview
    (a JPEG) and a text file."""
    folder = tmp_path / "in"
    folder.mkdir()
    make_image("RGB", (32, 24), 1).save(folder / "a.jpg")
    make_image("RGB", (32, 24), 2).save(folder / "photo.jpg_large", format="JPEG")
    make_image("L", (16, 12), 3).save(folder / "scan", format="PNG")
    make_image("RGB", (16, 12), 4).save(folder / "IMG_0001.THM", format="JPEG")
    (folder / "notes.txt").write_text("not an image\n")
    return folder


def _pillow_bytes(path: Path, file_format: str) -> bytes:
    with PILImage.open(path) as opened:
        result = parse_chain(CHAIN).apply_pil(opened)
        buffer = io.BytesIO()
        options = metadata_options(result, source=file_items(opened), output_format=file_format)
        result.save(buffer, format=file_format, **options)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "extension"),
    [("photo.jpg_large", ".jpg"), ("scan", ".png"), ("IMG_0001.THM", ".jpg"), ("notes.txt", None)],
)
def test_pillow_identifies_a_file_by_its_content(folder: Path, name: str, extension: str) -> None:
    assert identified_extension(folder / name) == extension


def test_a_folder_runs_its_image_extensions_and_counts_the_images_under_other_names(
    folder: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["apply", CHAIN, str(folder), "-o", str(out), "--no-progress"]) == 0
    summary = capsys.readouterr().out
    assert sorted(path.name for path in out.iterdir()) == ["a.jpg"]
    assert (
        "skipped: 1 file(s) in no format Pillow reads here (.txt 1), 3 image file(s) under "
        "extensions that are no image format's (" in summary
    )
    for named in (".jpg_large 1", ".thm 1", "no extension 1"):
        assert named in summary
    assert "); name them on the command line to run them" in summary


@pytest.mark.parametrize("output_dir", [False, True], ids=["beside", "output-dir"])
def test_a_named_file_is_read_by_its_content_and_written_with_its_format_s_extension(
    folder: Path,
    tmp_path: Path,
    device: SharedDevice,
    capsys: pytest.CaptureFixture[str],
    output_dir: bool,
) -> None:
    out = tmp_path / "out"
    where = ["-o", str(out)] if output_dir else []
    named = [str(folder / "photo.jpg_large"), str(folder / "scan")]
    assert main(["apply", CHAIN, *named, *where, "--no-progress"]) == 0, capsys.readouterr()
    written = {
        "photo.jpg_large": out / "photo.jpg" if output_dir else folder / "photo.gpu.jpg",
        "scan": out / "scan.png" if output_dir else folder / "scan.gpu.png",
    }
    for name, output in written.items():
        file_format = "JPEG" if output.suffix == ".jpg" else "PNG"
        assert output.read_bytes() == _pillow_bytes(folder / name, file_format), name


def test_a_named_file_in_a_format_without_extension_asks_for_a_format(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    # An XV thumbnail (xv's .xvpics previews), which Pillow reads and registers no extension
    # for: its header, then 8 x 6 palette indices.
    source = tmp_path / "preview.p7"
    source.write_bytes(b"P7 332\n#END_OF_COMMENTS\n8 6 255\n" + bytes(range(0, 240, 5)))
    assert identified_extension(source) == ""
    assert main(["apply", CHAIN, str(source), "--no-progress"]) == 1
    failed = capsys.readouterr().err
    assert f"{source}: Unsupported at output: why: Pillow has no writer for the output's " in (
        failed
    )
    assert "fix: pass --format with a writable extension such as png" in failed
    out = tmp_path / "out"
    assert main(["apply", CHAIN, str(source), "-o", str(out), "--format", "png"]) == 0
    assert (out / "preview.png").read_bytes() == _pillow_bytes(source, "PNG")


def test_a_folder_of_images_under_other_names_only_says_how_to_run_them(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    make_image("RGB", (8, 8), 6).save(folder / "photo.jpg_large", format="JPEG")
    assert main(["apply", CHAIN, str(folder), "--no-progress"]) == 1
    failed = capsys.readouterr().err
    assert (
        "NoImages at input: why: the folder holds no image file to process; observed: 1 image "
        "file(s) under other extensions (.jpg_large 1); fix: name the image files on the "
        "command line, or pass -r" in failed
    )
