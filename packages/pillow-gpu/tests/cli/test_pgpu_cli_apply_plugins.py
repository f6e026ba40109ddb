"""``pillow-gpu apply`` on folders of photos in formats Pillow reads through a plugin.

iPhones write HEIF (``.heic``), which Pillow reads only once pillow-heif's opener is registered.
The command line registers it when pillow-heif is installed (it is, for these tests), so HEIC
photos written by libheif (pillow-heif's encoder) are read and give Pillow's program's bytes
(open with the opener registered, the chain, save with the kept metadata). Files in no format
Pillow reads here are counted in the summary by extension, with the package that reads them,
instead of being skipped without a word; a plugin that is installed but fails to register is
a warning, and the run goes on.
"""

from __future__ import annotations

import copy
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pillow_heif
import pytest
from PIL import Image as PILImage
from pillow_gpu._testing import make_image
from pillow_gpu.cli import _plugins, main
from pillow_gpu.cli._chain import parse_chain
from pillow_gpu.cli._metadata import metadata_options
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.ray import PillowGpuMapper

CHAIN = "exif_transpose,thumbnail:40x40"

#: Pillow's plugin registry, which registering an opener extends (process-wide).
_REGISTRY = ("ID", "OPEN", "MIME", "SAVE", "SAVE_ALL", "EXTENSION")


@pytest.fixture(autouse=True)
def _pillow_registry() -> Iterator[None]:
    """Pillow's registry as it was before each test: the other tests of the run never see
    the HEIF opener these tests register."""
    saved = {name: copy.copy(getattr(PILImage, name)) for name in _REGISTRY}
    yield
    for name, value in saved.items():
        current = getattr(PILImage, name)
        current.clear()
        if isinstance(current, dict):
            current.update(value)
        else:
            current.extend(value)


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two HEIC photos (one turned by its EXIF orientation, with a camera's make), a PNG,
    two JPEG XL stand-ins and a text file."""
    folder = tmp_path_factory.mktemp("plugins") / "in"
    folder.mkdir()
    exif = PILImage.Exif()
    exif[0x0112], exif[0x010F] = 6, "Apple"
    for name, seed, options in (
        ("IMG_0001.heic", 1, {"exif": exif.tobytes()}),
        ("IMG_0002.HEIC", 2, {}),
    ):
        image = make_image("RGB", (96, 64), seed)
        pillow_heif.from_pillow(image).save(folder / name, quality=90, **options)
    make_image("RGB", (30, 20), 3).save(folder / "scan.png")
    (folder / "a.jxl").write_bytes(b"\xff\x0a stand-in")
    (folder / "b.jxl").write_bytes(b"\xff\x0a stand-in")
    (folder / "notes.txt").write_text("not an image")
    return folder


def _pillow_bytes(path: Path) -> bytes:
    """Pillow's program for ``path``: opened with the HEIF opener registered, the chain, and
    saved as PNG with the metadata the chain leaves."""
    pillow_heif.register_heif_opener()
    with PILImage.open(path) as opened:
        result = parse_chain(CHAIN).apply_pil(opened)
        buffer = io.BytesIO()
        result.save(buffer, format="PNG", **metadata_options(result))
    return buffer.getvalue()


def test_heic_photos_are_read_with_the_installed_plugin(
    photos: Path, tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["apply", CHAIN, str(photos), "-o", str(out), "--format", "png"]) == 0
    summary = capsys.readouterr().out
    assert summary.startswith("pillow-gpu apply: 3 written, 0 failed, 0 refused")
    assert (
        "  skipped: 3 file(s) in no format Pillow reads here (.jxl 2, .txt 1); "
        "pip install pillow-jxl-plugin to read them\n"
    ) in summary
    assert sorted(path.name for path in out.iterdir()) == [
        "IMG_0001.png",
        "IMG_0002.png",
        "scan.png",
    ]
    for name in ("IMG_0001.heic", "IMG_0002.HEIC", "scan.png"):
        written = (out / name).with_suffix(".png").read_bytes()
        assert written == _pillow_bytes(photos / name), name
    with PILImage.open(out / "IMG_0001.png") as turned:
        assert turned.size == (27, 40)  # turned upright by pillow-heif's decode, then fitted


def test_a_folder_of_unread_formats_names_them_and_the_package(
    photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "jxl"
    folder.mkdir()
    for name in ("a.jxl", "b.jxl", "notes.txt"):
        (folder / name).write_bytes((photos / name).read_bytes())
    assert main(["apply", CHAIN, str(folder), "-o", str(tmp_path / "out")]) == 1
    (line,) = re.findall(r"^pillow-gpu: failed: .*$", capsys.readouterr().err, re.M)
    assert "NoImages at input: why: the folder holds no image file to process" in line
    assert "observed: 3 other file(s) (.jxl 2, .txt 1)" in line
    assert "fix: pip install pillow-jxl-plugin to read them, or pass -r" in line


def test_a_plugin_that_fails_to_register_is_a_warning(
    photos: Path,
    tmp_path: Path,
    device: SharedDevice,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(_plugins.PLUGINS, "json", "no_such_opener")  # installed, no function
    out = tmp_path / "out"
    assert main(["apply", "invert", str(photos / "scan.png"), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert (
        "pillow-gpu: warning: why: the installed Pillow plugin json could not be registered" in err
    )
    assert "observed: AttributeError: " in err
    assert "fix: reinstall it (pip install --force-reinstall json)" in err
    assert (out / "scan.png").is_file()


def test_register_plugins_reports_what_it_registered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pillow-heif by its call; a plugin that registers by its import (as pillow-jxl-plugin
    does; here a stand-in module on the path); one not installed is left alone."""
    (tmp_path / "stand_in_plugin.py").write_text(
        "from PIL import Image\nImage.register_extension('STANDIN', '.standin')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(
        _plugins,
        "PLUGINS",
        {
            "pillow_heif": "register_heif_opener",
            "stand_in_plugin": None,
            "a_module_that_is_not_installed": "register",
        },
    )
    monkeypatch.delitem(sys.modules, "stand_in_plugin", raising=False)
    registered, problems = _plugins.register_plugins()
    assert registered == ["pillow_heif", "stand_in_plugin"]
    assert problems == []
    assert PILImage.registered_extensions()[".heic"] == "HEIF"
    assert PILImage.registered_extensions()[".standin"] == "STANDIN"
    assert "a_module_that_is_not_installed" not in sys.modules


def test_ray_mapper_reads_heic_with_plugins(photos: Path, device: SharedDevice) -> None:
    """Called directly (as an actor calls it): ``plugins=True`` registers the opener first."""
    mapper = PillowGpuMapper(CHAIN, format="png", metadata="keep", plugins=True)
    try:
        out = mapper({"path": np.array([str(photos / "IMG_0001.heic")], dtype=object)})
    finally:
        mapper.close()
    assert out["error_kind"][0] == "", out["error_message"][0]
    assert bytes(out["bytes"][0]) == _pillow_bytes(photos / "IMG_0001.heic")
