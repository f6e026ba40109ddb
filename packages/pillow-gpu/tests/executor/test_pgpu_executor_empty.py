"""Empty images (a width or height of 0) behave as Pillow's: through the executor (CPU and
resident outputs), ``gpu.evaluate`` and ``to_pil``, with Pillow's errors at the call."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image as PILImage
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._graph import Node
from pillow_gpu._testing import (
    LAZY_MODULES,
    PILLOW_MODULES,
    assert_image_equal,
    call_outcome,
    make_image,
)
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph

PILLOW = PILLOW_MODULES
LAZY = LAZY_MODULES

_Op = Callable[[Any, SimpleNamespace], Any]


def _thumbnail(image: Any, lib: SimpleNamespace) -> Any:
    image.thumbnail((8, 8))
    return image


def _paste_onto(image: Any, lib: SimpleNamespace) -> Any:
    base = lib.Image.new(image.mode, (6, 5))
    base.paste(image, (1, 1))
    return base


# Operations on an empty image: Pillow keeps most empty, makes some a black image of the asked
# size (resize, fit, pad, transform), one 1 pixel wide (thumbnail), and raises for others.
OPERATIONS: dict[str, _Op] = {
    "itself": lambda im, lib: im,
    "resize": lambda im, lib: im.resize((7, 5)),
    "resize-nearest": lambda im, lib: im.resize((7, 5), lib.Image.Resampling.NEAREST),
    "resize-box": lambda im, lib: im.resize((3, 3), box=(0, 0, 0, 0)),
    "reduce": lambda im, lib: im.reduce(2),
    "thumbnail": _thumbnail,
    "convert-L": lambda im, lib: im.convert("L"),
    "convert-RGBA": lambda im, lib: im.convert("RGBA"),
    "rotate": lambda im, lib: im.rotate(30),
    "rotate-expand": lambda im, lib: im.rotate(30, expand=True),
    "transpose": lambda im, lib: im.transpose(lib.Image.Transpose.ROTATE_90),
    "transform": lambda im, lib: im.transform(
        (6, 4), lib.Image.Transform.AFFINE, (1, 0, 0, 0, 1, 0)
    ),
    "crop-outside": lambda im, lib: im.crop((-1, -1, 3, 2)),
    "filter-median": lambda im, lib: im.filter(lib.ImageFilter.MedianFilter(3)),
    "filter-gaussian": lambda im, lib: im.filter(lib.ImageFilter.GaussianBlur(2)),
    "point": lambda im, lib: im.point(lambda value: 255 - value),
    "invert": lambda im, lib: lib.ImageChops.invert(im),
    "add-itself": lambda im, lib: lib.ImageChops.add(im, im),
    "fit": lambda im, lib: lib.ImageOps.fit(im, (6, 4)),
    "pad": lambda im, lib: lib.ImageOps.pad(im, (6, 4)),
    "expand": lambda im, lib: lib.ImageOps.expand(im, 2),
    "contain": lambda im, lib: lib.ImageOps.contain(im, (6, 4)),
    "scale": lambda im, lib: lib.ImageOps.scale(im, 2),
    "mirror": lambda im, lib: lib.ImageOps.mirror(im),
    "autocontrast": lambda im, lib: lib.ImageOps.autocontrast(im),
    "equalize": lambda im, lib: lib.ImageOps.equalize(im),
    "posterize": lambda im, lib: lib.ImageOps.posterize(im, 3),
    "solarize": lambda im, lib: lib.ImageOps.solarize(im, 100),
    "grayscale": lambda im, lib: lib.ImageOps.grayscale(im),
    "convert-P": lambda im, lib: im.convert("P"),
    "getchannel": lambda im, lib: im.getchannel(0),
    "exif_transpose": lambda im, lib: lib.ImageOps.exif_transpose(im),
    "contrast": lambda im, lib: lib.ImageEnhance.Contrast(im).enhance(1.5),
    "brightness": lambda im, lib: lib.ImageEnhance.Brightness(im).enhance(0.5),
    "paste-onto": _paste_onto,
    "resize-then-blur": lambda im, lib: im.resize((9, 6)).filter(lib.ImageFilter.BoxBlur(1)),
}
MODES = ("L", "RGB", "RGBA", "LA", "P", "1", "I;16", "I", "F")
#: Degenerate crop boxes of a 5x4 image: no width, no height, neither.
BOXES = {"0x3": (2, 1, 2, 4), "3x0": (1, 2, 4, 2), "0x0": (3, 3, 3, 3)}


def _source(mode: str) -> PILImage.Image:
    if mode == "P":
        image = make_image("RGB", (5, 4), seed=7).convert("P")
    elif mode in ("I", "F", "I;16"):
        image = make_image("L", (5, 4), seed=7).convert("I" if mode == "I;16" else mode)
        image = image.point(lambda value: value * 200) if mode == "I" else image
        image = image.convert(mode) if mode == "I;16" else image
    else:
        image = make_image(mode, (5, 4), seed=7)
    image.info["dpi"] = (72, 72)
    return image


def _results(
    executor: GpuBatchExecutor, jobs: list[tuple[str, Any]], output: str
) -> dict[str, PILImage.Image]:
    found = {}
    for result in executor.run(jobs, output=output):
        found[result.input_key] = result.image.download() if output == "gpu" else result.image
    return found


def _assert_same(actual: PILImage.Image, expected: PILImage.Image) -> None:
    assert_image_equal(actual, expected)
    assert actual.info == expected.info
    if expected.mode in ("P", "PA"):
        assert actual.getpalette() == expected.getpalette()


@pytest.mark.parametrize("box", list(BOXES))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_operations_on_an_empty_crop_match_pillow(
    operation: str, mode: str, box: str, make_executor: Callable[..., GpuBatchExecutor]
) -> None:
    source = _source(mode)
    call = OPERATIONS[operation]
    outcome = call_outcome(lambda: call(source.crop(BOXES[box]), PILLOW))
    lazy_outcome = call_outcome(lambda: call(Image.from_pil(source).crop(BOXES[box]), LAZY))
    assert lazy_outcome == outcome  # Pillow's error (type and message) at the call
    if outcome[0] != "ok":
        return
    expected = call(source.crop(BOXES[box]), PILLOW)
    executor = make_executor()
    jobs = [(output, call(Image.from_pil(source).crop(BOXES[box]), LAZY)) for output in "ab"]
    _assert_same(_results(executor, jobs[:1], "cpu")["a"], expected)
    _assert_same(_results(executor, jobs[1:], "gpu")["b"], expected)
    lazy = call(Image.from_pil(source).crop(BOXES[box]), LAZY)
    _assert_same(evaluate(lazy), expected)
    _assert_same(lazy.to_pil(), expected)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", [(0, 3), (4, 0), (0, 0)], ids=["0x3", "4x0", "0x0"])
def test_empty_leaves_are_results(
    mode: str, size: tuple[int, int], make_executor: Callable[..., GpuBatchExecutor]
) -> None:
    pil_empty = PILImage.new(mode, size)
    if mode == "P":
        pil_empty.putpalette(bytes(range(48)))
    pil_empty.info["comment"] = b"kept"
    jobs = [("new", Image.new(mode, size)), ("from_pil", Image.from_pil(pil_empty))]
    expected = {"new": PILImage.new(mode, size), "from_pil": pil_empty}
    executor = make_executor()
    for output in ("cpu", "gpu"):
        found = _results(executor, jobs, output)
        for key, image in found.items():
            _assert_same(image, expected[key])
    # An operation on an empty leaf is completed with Pillow when recorded.
    blurred = Image.new(mode, size).resize((3, 2))
    assert blurred.node.op == "pil"
    _assert_same(blurred.to_pil(), PILImage.new(mode, size).resize((3, 2)))


def test_a_batch_mixes_empty_and_full_results_in_order(
    make_executor: Callable[..., GpuBatchExecutor],
) -> None:
    """Degenerate boxes among real ones (a detector's boxes clipped to the border)."""
    source = make_image("RGB", (40, 30), seed=3)
    boxes = [(0, 0, 10, 10), (5, 5, 5, 20), (39, 0, 40, 30), (12, 30, 30, 30), (2, 3, 22, 13)]

    def crops(lib: SimpleNamespace, image: Any) -> Iterator[tuple[int, Any]]:
        for index, box in enumerate(boxes):
            yield (
                index,
                lib.ImageOps.fit(image.crop(box), (8, 8)).filter(lib.ImageFilter.MedianFilter(3)),
            )

    expected = dict(crops(PILLOW, source))
    executor = make_executor(max_jobs=2)
    results = list(executor.run(crops(LAZY, Image.from_pil(source))))
    assert [result.input_key for result in results] == list(range(len(boxes)))
    for result in results:
        assert_image_equal(result.image, expected[result.input_key])


def test_a_damaged_file_raises_at_an_empty_crop_as_pillow_does(tmp_path: Any) -> None:
    data = io.BytesIO()
    make_image("RGB", (64, 48), seed=1).save(data, "PNG")
    path = tmp_path / "cut.png"
    path.write_bytes(data.getvalue()[: len(data.getvalue()) // 2])
    with PILImage.open(path) as opened:
        expected = call_outcome(lambda: opened.crop((3, 3, 3, 9)))
    lazy = Image.open(path)
    assert call_outcome(lambda: lazy.crop((3, 3, 3, 9))) == expected
    assert expected[0] is OSError  # Pillow decodes for the crop, and the file is cut short


def test_an_operation_node_on_an_empty_input_built_directly_is_refused() -> None:
    """Only the lazy API completes operations on empty images; a graph built from nodes
    directly (bypassing it) is refused with the reason, never run."""
    leaf = Node(op="new", params={"color": 0}, mode="L", size=(0, 4))
    node = Node(op="invert", inputs=(leaf,), mode="L", size=(0, 4))
    with pytest.raises(
        Unsupported, match="an empty image is planned only as a graph's result made by"
    ):
        plan_graph(node)


def test_an_opened_empty_image_is_refused_and_its_operations_raise_as_pillow(
    tmp_path: Any, make_executor: Callable[..., GpuBatchExecutor]
) -> None:
    """Pillow opens a GRIB stub as an empty F image with no loader: operations raise at the
    call as Pillow's do, and the undecoded file alone is refused with the reason."""
    path = tmp_path / "stub.grb"
    path.write_bytes(b"GRIB\x00\x00\x00\x01" + bytes(64))
    with PILImage.open(path) as opened:
        assert opened.size == (0, 0)
        expected = call_outcome(lambda: opened.rotate(30, expand=True))
    assert expected[0] is OSError
    lazy = Image.open(path)
    assert call_outcome(lambda: lazy.rotate(30, expand=True)) == expected
    [failure] = make_executor().run([("stub", lazy)], errors="deliver")
    assert isinstance(failure.error, Unsupported)
    assert "an opened file's empty image is never decoded" in str(failure.error)


def test_a_result_over_the_pixel_bound_is_not_made_at_the_call(
    make_executor: Callable[..., GpuBatchExecutor],
) -> None:
    """An empty image resized past the GPU's bound: recording allocates nothing (Pillow's
    eager call would make 10^10 pixels), the GPU refuses it, ``to_pil`` is Pillow's route."""
    empty = Image.from_pil(make_image("L", (5, 4))).crop((2, 2, 2, 4))
    huge = empty.resize((100_000, 100_000))
    assert huge.size == (100_000, 100_000)
    assert huge.node.op == "resize"  # recorded, not completed
    [failure] = make_executor().run([("huge", huge)], errors="deliver")
    assert isinstance(failure.error, Unsupported)
    assert "fits the pixel bound of 8192 x 8192" in str(failure.error)
    small = empty.resize((4096, 4096))  # within the bound: made at the call, then on the GPU
    assert small.node.op == "pil"
    [result] = make_executor().run([("small", small)])
    assert_image_equal(result.image, PILImage.new("L", (4096, 4096)))
