"""16-bit files through ``Image.open`` and the executor; packed uploads and their reservations.

Files are written by Pillow's own encoders (16-bit PNG, TIFF I;16 and I;16B, 16-bit PGM,
JPEG 2000 where this Pillow has OpenJPEG) and opened lazily; the GPU result of
``convert("L")`` (and of the other wide routes) must equal live Pillow's. L, LA, P and 1 leaves
upload Pillow's packed bytes (one or two per pixel) and are widened on the device.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import features
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageFilter
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu import evaluate, plan_graph
from pillow_gpu.gpu._layout import stored_nbytes, terminal_nbytes, upload_bytes

pytestmark = pytest.mark.usefixtures("device")

_VALUES = [0, 255, 256, 65535, 1, 254, 257, 32768]


def _sixteen_bit(size: tuple[int, int], seed: int = 0) -> PILImage.Image:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 65536, size[0] * size[1])
    values[: len(_VALUES)] = _VALUES[: values.size]
    return PILImage.frombytes("I;16", size, values.astype("<u2").tobytes())


def _png(path: Path, image: PILImage.Image) -> None:
    image.save(path, "PNG")


def _tiff_little(path: Path, image: PILImage.Image) -> None:
    image.save(path, "TIFF")


def _tiff_big(path: Path, image: PILImage.Image) -> None:
    image.convert("I").convert("I;16B").save(path, "TIFF")  # Pillow's own I;16B file


def _pgm(path: Path, image: PILImage.Image) -> None:
    image.save(path, "PPM")  # a 16-bit PGM (maxval 65535); Pillow opens it as mode I


def _jpeg2000(path: Path, image: PILImage.Image) -> None:
    image.save(path, "JPEG2000", irreversible=False)  # lossless 5/3 wavelet


_JP2 = pytest.mark.skipif(
    not features.check("jpg_2000"), reason="this Pillow build has no OpenJPEG (JPEG 2000)"
)
WRITERS = {
    "png": (_png, ".png"),
    "tiff-I;16": (_tiff_little, ".tif"),
    "tiff-I;16B": (_tiff_big, ".tif"),
    "pgm-16": (_pgm, ".pgm"),
    "jpeg2000": (_jpeg2000, ".jp2"),
}
FILE_SIZES = ((1, 1), (3, 5), (37, 19), (300, 7))


def _writer_params() -> list:
    return [pytest.param(name, marks=_JP2) if name == "jpeg2000" else name for name in WRITERS]


def _written(tmp_path: Path, name: str, size: tuple[int, int], seed: int = 0) -> Path:
    write, suffix = WRITERS[name]
    path = tmp_path / f"{name}-{size[0]}x{size[1]}-{seed}{suffix}"
    write(path, _sixteen_bit(size, seed))
    return path


@pytest.mark.parametrize("size", FILE_SIZES, ids=[f"{w}x{h}" for w, h in FILE_SIZES])
@pytest.mark.parametrize("name", _writer_params())
def test_open_16_bit_file_convert_l(tmp_path: Path, name: str, size: tuple[int, int]) -> None:
    path = _written(tmp_path, name, size)
    with PILImage.open(path) as pil:
        pil.load()
        expected_mode = pil.mode
        expected = pil.convert("L")
        expected_flip = pil.transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)
    lazy = Image.open(path)
    assert lazy.mode == expected_mode
    assert expected_mode in ("I;16", "I;16B", "I")
    assert_image_equal(evaluate(lazy.convert("L")), expected)
    flipped = Image.open(path).transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)
    assert_image_equal(evaluate(flipped), expected_flip)  # stored bytes back, byte order kept


@pytest.mark.parametrize("name", _writer_params())
def test_16_bit_files_through_the_executor(tmp_path: Path, name: str) -> None:
    paths = {f"{name}-{seed}": _written(tmp_path, name, (37 + seed, 19), seed) for seed in (0, 1)}
    expected = {}
    for key, path in paths.items():
        with PILImage.open(path) as pil:
            expected[f"{key}-L"] = pil.convert("L").transpose(PILImage.Transpose.ROTATE_90)
            expected[f"{key}-RGB"] = pil.convert("RGB")
            expected[f"{key}-crop"] = pil.crop((2, 3, 30, 15))
    jobs = []
    for key, path in paths.items():
        jobs.append((f"{key}-L", Image.open(path).convert("L").transpose(PILImage.ROTATE_90)))
        jobs.append((f"{key}-RGB", Image.open(path).convert("RGB")))
        jobs.append((f"{key}-crop", Image.open(path).crop((2, 3, 30, 15))))
    executor = GpuBatchExecutor()
    try:
        with executor.run(jobs) as results:
            got = {str(result.input_key): result.image for result in results}
        assert set(got) == set(expected)
        for key, image in got.items():
            assert isinstance(image, PILImage.Image)
            assert_image_equal(image, expected[key])
        assert executor.stats["submitted_jobs"] == len(jobs)
    finally:
        executor.close()
    assert executor.stats["gpu_bytes"] == executor.stats["host_bytes"] == 0


# -- refusals --------------------------------------------------------------------------------
WIDE = ("I;16", "I;16B", "I;16L", "I", "F")
OTHER_OPS = {
    "box-blur": lambda im: im.filter(ImageFilter.BoxBlur(1)),
    "median": lambda im: im.filter(ImageFilter.MedianFilter(3)),
    "point": lambda im: im.point(lambda v: v * 2),
    "invert": ImageChops.invert,
    "add": lambda im: ImageChops.add(im, im),
    "resize-bilinear": lambda im: im.resize((5, 4), PILImage.Resampling.BILINEAR),
    "reduce": lambda im: im.reduce(2),  # I and F; Pillow rejects it on the 16-bit modes
}


def _recorded(mode: str, op: str) -> Image.Image | None:
    """The lazy graph, or None where Pillow itself rejects the operation on this mode."""
    try:
        return OTHER_OPS[op](Image.new(mode, (9, 7), 3))
    except (ValueError, TypeError, OSError):
        return None


#: I;16, I;16B, I;16L and I resample, and I reduces, in doubles on the GPU
#: (test_pgpu_parity_resample_wide); I takes the rank filters (test_pgpu_parity_rank).
_RESAMPLED = {("resize-bilinear", mode) for mode in ("I;16", "I;16B", "I;16L", "I")}
_RESAMPLED |= {("reduce", "I"), ("median", "I")}
ACCEPTED = [
    (m, op)
    for m in WIDE
    for op in OTHER_OPS
    if _recorded(m, op) is not None and (op, m) not in _RESAMPLED
]


@pytest.mark.parametrize(("mode", "op"), ACCEPTED, ids=[f"{op}-{m}" for m, op in ACCEPTED])
def test_other_operations_on_wide_images_are_refused_with_the_fix(mode: str, op: str) -> None:
    with pytest.raises(Unsupported) as info:
        plan_graph(_recorded(mode, op))
    error = info.value
    assert (error.kind, error.stage) == ("Unsupported", "admission")
    assert mode in error.why
    assert 'convert("L")' in error.fix


def test_the_refusal_list_covers_each_wide_mode() -> None:
    assert {m for m, _ in ACCEPTED} == set(WIDE)


def test_i16n_is_not_a_layout() -> None:
    image = PILImage.new("I;16N", (4, 3))  # native order: refused, not guessed
    with pytest.raises(Unsupported, match="mode I;16N is not a native GPU layout"):
        plan_graph(Image.from_pil(image))


# -- packed uploads (L, LA, P, 1, I;16*) and reservations -------------------------------------
PACKED = ("L", "LA", "P", "1", "I;16", "I;16B", "I;16L")
ODD_SIZES = ((1, 1), (3, 1), (5, 1), (2, 3), (7, 5), (37, 19))


def _packed_image(mode: str, size: tuple[int, int]) -> PILImage.Image:
    if mode in ("I;16", "I;16B", "I;16L"):
        return (
            _sixteen_bit(size).convert("I").convert(mode) if mode != "I;16" else _sixteen_bit(size)
        )
    if mode == "1":
        return make_image("L", size).convert("1")
    if mode == "P":
        return make_image("RGB", size).convert("P")
    return make_image(mode, size)


def _round_trip(lazy: Image.Image) -> Image.Image:
    """A word consumer of the upload (L is widened straight to RGBA words; a crop of L would
    stay packed)."""
    if lazy.mode in ("P", "1", "L"):
        return lazy.convert("RGBA")
    return lazy.crop((0, 0, *lazy.size))


@pytest.mark.parametrize("size", ODD_SIZES, ids=[f"{w}x{h}" for w, h in ODD_SIZES])
@pytest.mark.parametrize("mode", PACKED)
def test_packed_upload_is_widened_exactly(mode: str, size: tuple[int, int]) -> None:
    image = _packed_image(mode, size)
    assert (
        len(upload_bytes(image))
        == -(-len(image.tobytes("raw", "L" if mode == "1" else mode)) // 4) * 4
    )
    plan = plan_graph(_round_trip(Image.from_pil(image)))
    assert [upload.nbytes for upload in plan.uploads] == [len(upload_bytes(image))]
    assert plan.program.dispatches[0].shader == "unpack"
    expected = image.convert("RGBA") if mode in ("P", "1", "L") else image
    assert_image_equal(evaluate(_round_trip(Image.from_pil(image))), expected)


def test_l_upload_moves_a_quarter_of_the_bytes_and_charges_them() -> None:
    size = (37, 19)
    pixels = size[0] * size[1]
    source = make_image("L", size)
    plan = plan_graph(ImageChops.invert(Image.from_pil(source)))
    (upload,) = plan.uploads
    assert upload.nbytes == -(-pixels // 4) * 4 == len(upload_bytes(source))
    # a per-byte operation stays packed (gpu._packed_l): one inversion of the packed words, no
    # unpack or pack_l; packed upload + packed result + staging, each >= its bytes
    assert [dispatch.shader for dispatch in plan.program.dispatches] == ["invert"]
    assert plan.gpu_bytes >= 2 * upload.nbytes + plan.staging_nbytes
    rgba = plan_graph(ImageChops.invert(Image.from_pil(make_image("RGBA", size))))
    # the host reservation differs by exactly the upload and terminal byte counts
    assert rgba.host_bytes - plan.host_bytes == (pixels * 4 - upload.nbytes) + (
        rgba.terminal_nbytes - plan.terminal_nbytes
    )
    assert_image_equal(
        evaluate(ImageChops.invert(Image.from_pil(source))), PILImageChops.invert(source)
    )


@pytest.mark.parametrize("mode", WIDE)
def test_wide_reservations_count_pillows_bytes(mode: str) -> None:
    size = (37, 19)
    pixels = size[0] * size[1]
    plan = plan_graph(Image.new(mode, size).transpose(PILImage.Transpose.ROTATE_180))
    assert (
        plan.output_nbytes == stored_nbytes(mode, size) == len(PILImage.new(mode, size).tobytes())
    )
    assert plan.terminal_nbytes == terminal_nbytes(mode, size)
    assert plan.terminal_nbytes == (-(-pixels // 2) * 4 if "16" in mode else pixels * 4)
    source = PILImage.new(mode, size)
    uploaded = plan_graph(Image.from_pil(source).transpose(PILImage.Transpose.ROTATE_180))
    assert [upload.nbytes for upload in uploaded.uploads] == [len(upload_bytes(source))]
    assert len(upload_bytes(source)) == -(-len(source.tobytes()) // 4) * 4
