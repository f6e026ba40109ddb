"""A GIF frame after the first: Pillow loads it as RGB or RGBA and its image keeps the file's
palette object, which Pillow's GIF writer reads for the frame's own colour table
(``include_color_table``). The frame, sought or walked, saved as it is (on the CPU, after
``gpu.evaluate``, or as a batch executor's result) writes Pillow's bytes; an operation's result
drops the palette object, as Pillow's does.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from PIL import ImageSequence as PILImageSequence
from pillow_gpu import Image, ImageOps, ImageSequence
from pillow_gpu._testing import make_image
from pillow_gpu.executor import GpuBatchExecutor
from pillow_gpu.gpu import evaluate
from pillow_gpu.gpu._device import SharedDevice


@pytest.fixture(scope="module")
def animation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gif") / "three.gif"
    frames = [make_image("RGB", (13, 9), seed) for seed in range(3)]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=50)
    with PILImage.open(path) as opened:
        opened.seek(1)
        opened.load()
        assert opened.mode in ("RGB", "RGBA")
        assert opened.palette is not None  # the case: a palette object outside P
    return path


#: How the frame is reached in each library: (Pillow's, pillow-gpu's).
FRAMES: dict[str, tuple[Callable[[Path], Any], Callable[[Path], Any]]] = {
    "seek": (
        lambda path: _sought(_pillows(path)),
        lambda path: _sought(Image.open(path)),
    ),
    "iterator": (
        # The iterator gives its image sought to the frame, in both libraries.
        lambda path: PILImageSequence.Iterator(_pillows(path))[1],
        lambda path: ImageSequence.Iterator(Image.open(path))[1],
    ),
    "from_pil": (
        lambda path: _sought(_pillows(path)),
        lambda path: Image.from_pil(_sought(_pillows(path))),
    ),
}
OPTIONS = [{}, {"include_color_table": True}, {"include_color_table": True, "optimize": False}]


def _pillows(path: Path) -> PILImage.Image:
    """Pillow's image of the file, read from its bytes (no file left open)."""
    return PILImage.open(io.BytesIO(path.read_bytes()))


def _sought(image: Any) -> Any:
    image.seek(1)
    return image


def _saved(image: Any, options: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    image.save(out, "GIF", **options)
    return out.getvalue()


def _through_executor(lazy: Any) -> Any:
    with GpuBatchExecutor() as executor, executor.run([(0, lazy)]) as results:
        return next(iter(results)).image


ROUTES: dict[str, Callable[[Any], Any]] = {
    "cpu": lambda lazy: lazy,
    "gpu-evaluate": lambda lazy: (evaluate(lazy), lazy)[1],
    "executor": _through_executor,
}


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("options", OPTIONS, ids=["plain", "colour-table", "unoptimized"])
@pytest.mark.parametrize("frame", list(FRAMES))
def test_a_later_frame_saved_as_it_is_writes_pillow_s_bytes(
    animation: Path, device: SharedDevice, frame: str, options: dict[str, Any], route: str
) -> None:
    pillows, ours = FRAMES[frame]
    expected = _saved(pillows(animation), options)
    assert _saved(ROUTES[route](ours(animation)), options) == expected


@pytest.mark.parametrize("route", list(ROUTES))
def test_an_operation_drops_the_palette_object_as_pillow_s(
    animation: Path, device: SharedDevice, route: str
) -> None:
    options = {"include_color_table": True}
    expected = _saved(PILImageOps.mirror(_sought(_pillows(animation))), options)
    lazy = ImageOps.mirror(_sought(Image.open(animation)))
    assert _saved(ROUTES[route](lazy), options) == expected


@pytest.mark.parametrize("frame", list(FRAMES))
def test_a_copy_drops_the_palette_object_as_pillow_s(animation: Path, frame: str) -> None:
    """Pillow's ``copy()`` of the frame keeps no palette object, so ``ImageOps.expand`` with a
    colour pads the copy, where on the frame itself it raises "illegal image mode" (it puts
    the palette on its RGB result)."""
    pillows, ours = FRAMES[frame]
    expected, lazy = pillows(animation).copy(), ours(animation).copy()
    assert expected.palette is None
    assert lazy.palette is None
    padded = PILImageOps.expand(expected, 2, (200, 10, 30))
    found = ImageOps.expand(lazy, 2, (200, 10, 30))
    assert (found.mode, found.size) == (padded.mode, padded.size)
    assert found.to_pil().tobytes() == padded.tobytes()
    with pytest.raises(ValueError, match="illegal image mode"):
        PILImageOps.expand(pillows(animation), 2, (200, 10, 30))
    if frame == "seek":  # a frame from the iterator or from_pil records the pad (not mended)
        with pytest.raises(ValueError, match="illegal image mode"):
            ImageOps.expand(ours(animation), 2, (200, 10, 30))
