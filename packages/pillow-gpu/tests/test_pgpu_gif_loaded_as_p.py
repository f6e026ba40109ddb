"""An L GIF whose pixels Pillow loads as P: Pillow's image says L, its loaded pixels are P
(the GIF's global palette, in colour, applied to a first frame that has a grey palette of its
own). Pillow writes such files itself: an L image saved with ``include_color_table=True``.

Pillow's operations then run on P pixels labelled L (a crop or copy says P, a rotation raises
"image has wrong mode"), which no recording from the header can know: the file is marked at
open, and an operation on it runs with Pillow at the call (its result, or its error, there),
the operations after it on the GPU again. The file itself, evaluated as it is, is refused by
the GPU when it decodes it (``Unsupported`` at the decode; the CPU route gives Pillow's image).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import Image, ImageOps
from pillow_gpu._testing import make_image
from pillow_gpu.cli import main
from pillow_gpu.errors import Unsupported
from pillow_gpu.executor import GpuBatchExecutor
from pillow_gpu.gpu import evaluate
from pillow_gpu.gpu._device import SharedDevice

SIZES = [(1, 1), (8, 6), (67, 41)]


def _gif(size: tuple[int, int], transparency: int | None = None) -> bytes:
    out = io.BytesIO()
    options: dict[str, Any] = {"include_color_table": True}
    if transparency is not None:
        options["transparency"] = transparency
    # Four grey levels: Pillow's writer packs them into a short global palette (not the grey
    # ramp its reader takes for L), and gives the frame a grey palette of its own.
    make_image("L", size, 3).point(lambda value: value // 64 * 64).save(out, "GIF", **options)
    return out.getvalue()


CASES = [(size, transparency) for size in SIZES for transparency in (None, 64)]
IDS = [f"{w}x{h}-{'transparent' if t is not None else 'opaque'}" for (w, h), t in CASES]


@pytest.fixture(params=CASES, ids=IDS)
def data(request: pytest.FixtureRequest) -> bytes:
    data = _gif(*request.param)
    with PILImage.open(io.BytesIO(data)) as opened:
        opened.load()
        assert (opened.mode, opened.im.mode) == ("L", "P")  # the case: Pillow's own state
    return data


#: Steps on the opened image, by the library's modules.
STEPS: dict[str, Callable[[Any, Any], Any]] = {
    "as opened": lambda ops, image: image,
    "mirror": lambda ops, image: ops.mirror(image),
    "invert": lambda ops, image: ops.invert(image),
    "rotate": lambda ops, image: image.rotate(10),
    "convert RGB": lambda ops, image: image.convert("RGB"),
    "resize": lambda ops, image: image.resize((3, 2)),
    "crop": lambda ops, image: image.crop((0, 0, 1, 1)),
    "copy": lambda ops, image: image.copy(),
    "loaded, then copy": lambda ops, image: (image.load(), image.copy())[1],
    "filter": lambda ops, image: image.filter(PILImageFilter.SMOOTH),
    # Pillow's ImageOps read the palette the L image holds: a colour becomes its index.
    "expand with a colour": lambda ops, image: ops.expand(image, 2, (200, 10, 30)),
    "pad with a colour": lambda ops, image: ops.pad(image, (9, 9), color=(200, 10, 30)),
    "contain": lambda ops, image: ops.contain(image, (5, 5)),
}


def _outcome(result: Callable[[], Any]) -> Any:
    """(mode, stored mode, bytes, palette) of the image, or the exception's type and text."""
    try:
        image = result()
    except Exception as error:  # the outcome compared
        return type(error).__name__, str(error)
    data = image.tobytes()  # loads an opened image first
    return image.mode, image.im.mode, data, image.getpalette()


def _lazy_outcome(step: str, data: bytes) -> Any:
    """:func:`_outcome` of the lazy step, whose error comes at the call as Pillow's and whose
    mode, known before evaluation, is its result's."""
    try:
        lazy = STEPS[step](ImageOps, Image.open(io.BytesIO(data)))
    except Exception as error:  # the outcome compared
        return type(error).__name__, str(error)
    recorded = lazy.mode
    found = _outcome(lazy.to_pil)
    assert recorded == found[0]
    return found


@pytest.mark.parametrize("step", list(STEPS))
def test_operations_are_pillow_s_on_the_same_state(data: bytes, step: str) -> None:
    expected = _outcome(lambda: STEPS[step](PILImageOps, PILImage.open(io.BytesIO(data))))
    assert _lazy_outcome(step, data) == expected


def test_operations_after_it_run_on_the_gpu(data: bytes, device: SharedDevice) -> None:
    with PILImage.open(io.BytesIO(data)) as opened:
        expected = PILImageOps.mirror(opened.crop((0, 0, *opened.size)).convert("RGB"))
    graph = ImageOps.mirror(Image.open(io.BytesIO(data)).crop((0, 0, *expected.size)))
    result = evaluate(graph.convert("RGB"))
    assert (result.mode, result.tobytes()) == ("RGB", expected.tobytes())


def test_the_lazy_image_answers_as_pillow_s(data: bytes) -> None:
    lazy = Image.open(io.BytesIO(data))
    with PILImage.open(io.BytesIO(data)) as opened:
        assert lazy.mode == opened.mode == "L"
        assert lazy.getpalette() == opened.getpalette()  # the P pixels' palette
        assert lazy.getpalette() is not None
        assert lazy.has_transparency_data == opened.has_transparency_data
        assert lazy.tobytes() == opened.tobytes()


def test_the_gpu_refuses_it_when_it_decodes_it(data: bytes, device: SharedDevice) -> None:
    with pytest.raises(Unsupported) as raised:
        evaluate(Image.open(io.BytesIO(data)))
    assert raised.value.stage == "decode"
    assert str(raised.value) == (
        "why: Pillow's load left this file's pixels in another mode than its image says (a GIF "
        "whose global palette is in colour and whose first frame has a grey palette of its "
        "own: Pillow applies the global palette to that frame's pixels), and Pillow's "
        "operations then read them as that image's mode, or raise; observed: a GIF file "
        "opened as L, loaded as P pixels; fix: run it through Pillow (to_pil(); "
        "--cpu-fallback with pillow-gpu apply), or convert it with Pillow first and wrap the "
        "result with Image.from_pil"
    )


def test_an_executor_delivers_the_refusal_and_runs_the_rest(
    data: bytes, device: SharedDevice
) -> None:
    plain = make_image("L", (8, 6), 4)
    jobs = [
        ("gif", Image.open(io.BytesIO(data))),
        ("plain", ImageOps.mirror(Image.from_pil(plain))),
    ]
    with GpuBatchExecutor() as executor, executor.run(jobs, errors="deliver") as stream:
        results = {result.input_key: result for result in stream}
    refused = results["gif"]
    assert (refused.ok, refused.kind, refused.stage) == (False, "Unsupported", "decode")
    assert isinstance(refused.error, Unsupported)
    assert results["plain"].image.tobytes() == PILImageOps.mirror(plain).tobytes()


SAVES = {
    "png": ("PNG", {}),
    "avif": ("AVIF", {}),  # Pillow's AVIF writer walks the frames (a seek to frame 0)
    "gif-all": ("GIF", {"save_all": True}),
    "tiff-all": ("TIFF", {"save_all": True}),
}


@pytest.mark.parametrize("name", list(SAVES))
def test_save_writes_pillow_s_bytes(data: bytes, name: str) -> None:
    """The writers get Pillow's image of the file, as Pillow's save gives them: a plain image
    in that state loses its pixels at a writer's seek to frame 0."""
    image_format, options = SAVES[name]
    expected, found = io.BytesIO(), io.BytesIO()
    with PILImage.open(io.BytesIO(data)) as opened:
        opened.save(expected, image_format, **options)
    Image.open(io.BytesIO(data)).save(found, image_format, **options)
    assert found.getvalue() == expected.getvalue()


@pytest.mark.parametrize("fallback", [False, True], ids=["gpu", "cpu-fallback"])
def test_apply_writes_pillow_s_file(
    tmp_path: Path, device: SharedDevice, capsys: pytest.CaptureFixture[str], fallback: bool
) -> None:
    """The operation runs with Pillow when it is recorded, so ``apply`` writes Pillow's file
    with or without ``--cpu-fallback``."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "grey.gif").write_bytes(_gif((8, 6), 64))
    out = tmp_path / "out"
    argv = ["apply", "mirror", str(folder), "-o", str(out), "--no-progress"]
    code = main([*argv, "--cpu-fallback"] if fallback else argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "1 written, 0 failed, 0 refused" in captured.out
    expected = io.BytesIO()
    with PILImage.open(folder / "grey.gif") as opened:
        PILImageOps.mirror(opened).save(expected, "GIF")
    assert (out / "grey.gif").read_bytes() == expected.getvalue()
