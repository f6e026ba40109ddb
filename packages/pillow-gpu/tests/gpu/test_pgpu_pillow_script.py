"""A script written for Pillow runs unchanged on pillow_gpu once its import line is rewritten.

``tests/data/pillow_script.py`` opens a photo, applies ``exif_transpose``, ``convert``, an
in-place ``thumbnail``, in-place ``paste`` calls (a colour fill and the thumbnail) onto a new
canvas, ``putalpha`` and a filter, then saves a PNG. It runs as written with Pillow, and with
``from PIL import`` rewritten to ``from pillow_gpu import``: saved files (Pillow's CPU routing)
and the GPU result of the same graph must equal Pillow's. The last test checks the comparison
itself: with the old API (an edit returns a new image and leaves the handle) it fails.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import Image
from pillow_gpu._testing import assert_image_equal, make_image, rebuilt
from pillow_gpu.gpu import evaluate

pytestmark = pytest.mark.usefixtures("device")

SCRIPT = Path(__file__).resolve().parents[1] / "data" / "pillow_script.py"
PIL_IMPORT = "from PIL import Image, ImageFilter, ImageOps\n"
OURS_IMPORT = "from pillow_gpu import Image, ImageFilter, ImageOps\n"
_ORIENTATION = 0x0112

#: source files: (format, mode, size, EXIF orientation or None)
SOURCES: dict[str, tuple[str, str, tuple[int, int], int | None]] = {
    "jpeg-L-90x60-orientation-6": ("JPEG", "L", (90, 60), 6),
    "jpeg-RGB-60x90-no-exif": ("JPEG", "RGB", (60, 90), None),
    "png-RGBA-80x50-orientation-3": ("PNG", "RGBA", (80, 50), 3),
    "png-LA-30x20-fits": ("PNG", "LA", (30, 20), None),  # thumbnail leaves it as it is
}


def _source(tmp_path: Path, case: str) -> Path:
    fmt, mode, size, orientation = SOURCES[case]
    path = tmp_path / f"source.{fmt.lower()}"
    params: dict[str, Any] = {}
    if orientation is not None:
        exif = PILImage.Exif()
        exif[_ORIENTATION] = orientation
        params["exif"] = exif.tobytes()
    make_image(mode, size, seed=21).save(path, fmt, **params)
    return path


def _rewritten(tmp_path: Path) -> Path:
    """The script with its one import line pointed at pillow_gpu, nothing else changed."""
    text = SCRIPT.read_text(encoding="utf-8")
    assert text.count(PIL_IMPORT) == 1
    path = tmp_path / "pillow_gpu_script.py"
    path.write_text(text.replace(PIL_IMPORT, OURS_IMPORT), encoding="utf-8")
    return path


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(script: Path, source: Path, target: Path) -> bytes:
    subprocess.run(
        [sys.executable, str(script), str(source), str(target)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return target.read_bytes()


def _pillow_result(source: Path) -> PILImage.Image:
    result = _module(SCRIPT, "pillow_script_as_written").build(source)
    assert isinstance(result, PILImage.Image)
    return result


@pytest.mark.parametrize("case", list(SOURCES))
def test_the_script_saves_the_same_file_with_pillow_gpu_as_with_pillow(
    case: str, tmp_path: Path
) -> None:
    source = _source(tmp_path, case)
    with_pillow = _run(SCRIPT, source, tmp_path / "pillow.png")
    with_ours = _run(_rewritten(tmp_path), source, tmp_path / "pillow_gpu.png")
    with (
        PILImage.open(tmp_path / "pillow.png") as written,
        PILImage.open(tmp_path / "pillow_gpu.png") as ours,
    ):
        assert_image_equal(ours.convert("RGBA"), written.convert("RGBA"))
        assert written.mode == "RGBA"
    assert with_ours == with_pillow


@pytest.mark.parametrize("case", list(SOURCES))
def test_the_scripts_graph_evaluates_on_the_gpu_to_pillows_pixels(
    case: str, tmp_path: Path
) -> None:
    source = _source(tmp_path, case)
    expected = _pillow_result(source)
    lazy = _module(_rewritten(tmp_path), "pillow_script_on_pillow_gpu").build(source)
    assert isinstance(lazy, Image.Image), "the rewritten import must give pillow_gpu images"
    assert not lazy.is_evaluated
    assert_image_equal(evaluate(rebuilt(lazy)), expected)  # its own copy: results are cached
    assert_image_equal(lazy.to_pil(), expected)


def _returning_a_new_image(method: Any) -> Any:
    """``method`` as the old API had it: the edited image is returned, the handle unchanged."""

    def old_api(self: Image.Image, *args: Any, **kwargs: Any) -> Image.Image:
        out = self.copy()
        method(out, *args, **kwargs)
        return out

    return old_api


@pytest.mark.parametrize("method", ["thumbnail", "paste", "putalpha"])
def test_the_comparison_fails_when_an_edit_leaves_the_handle_unchanged(
    method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _source(tmp_path, "jpeg-L-90x60-orientation-6")
    expected = _pillow_result(source)
    monkeypatch.setattr(Image.Image, method, _returning_a_new_image(getattr(Image.Image, method)))
    lazy = _module(_rewritten(tmp_path), "pillow_script_old_api").build(source)
    with pytest.raises(AssertionError):
        assert_image_equal(lazy.to_pil(), expected)
