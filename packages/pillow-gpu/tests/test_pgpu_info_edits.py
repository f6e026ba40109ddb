"""Edits of a lazy image's info, kept as Pillow keeps them (pillow_gpu._info_edits)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from PIL import PngImagePlugin
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter, ImageOps
from pillow_gpu._info_edits import RelabelledNode, same_info
from pillow_gpu._testing import assert_image_equal, make_image, png_chunk, png_with_late_chunks
from pillow_gpu.gpu import evaluate


def _palette_png(tmp_path: Path) -> Path:
    """A P file without transparency: six indices, a grey palette."""
    image = PILImage.new("P", (6, 4))
    image.putpalette([value for value in range(256) for _ in range(3)])
    image.putdata([index % 6 for index in range(24)])
    path = tmp_path / "palette.png"
    image.save(path)
    return path


#: The routes a lazy image reaches Pillow's bytes and info by.
def _to_pil(image: Image.Image) -> PILImage.Image:
    return image.to_pil()


def _gpu(image: Image.Image) -> PILImage.Image:
    return evaluate(image)


def _executor(image: Image.Image) -> PILImage.Image:
    with GpuBatchExecutor() as executor:
        (result,) = executor.run([("job", image)])
    assert isinstance(result.image, PILImage.Image)
    return result.image


def _resident(image: Image.Image) -> PILImage.Image:
    with GpuBatchExecutor() as executor:
        (result,) = executor.run([("job", image)], output="gpu")
        return result.image.download()  # type: ignore[union-attr]


ROUTES: dict[str, Callable[[Image.Image], PILImage.Image]] = {
    "to_pil": _to_pil,
    "gpu-evaluate": _gpu,
    "executor": _executor,
    "executor-resident": _resident,
}


@pytest.mark.parametrize("target", ["RGBA", "RGB", "LA"])
@pytest.mark.parametrize("route", list(ROUTES))
def test_a_transparency_edit_reaches_convert(route: str, target: str, tmp_path: Path) -> None:
    # Pillow's convert of a P image reads info["transparency"] at the call: an edit changes
    # the pixels, and ignoring it would give other bytes without a word.
    path = _palette_png(tmp_path)
    with PILImage.open(path) as reference:
        unedited = reference.convert(target)
        reference.info["transparency"] = 3
        expected = reference.convert(target)
    if target != "RGB":
        assert expected.tobytes() != unedited.tobytes()  # the edit matters to these bytes
    lazy = Image.open(path)
    lazy.info["transparency"] = 3
    actual = ROUTES[route](lazy.convert(target))
    assert_image_equal(actual, expected)
    assert actual.info == expected.info


#: Operations whose result carries the edited info (Pillow copies it to the new image).
OPERATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "invert": lambda ops, im: ops.invert(im),
    "resize": lambda ops, im: im.resize((5, 3), PILImage.Resampling.BILINEAR),
    "median": lambda ops, im: im.filter(PILImageFilter.MedianFilter(3)),
    "convert-L": lambda ops, im: im.convert("L"),
    "rotate-expand": lambda ops, im: im.rotate(30, expand=True),
}
#: The edits, applied to Pillow's image and to the lazy handle alike.
EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "set": lambda info: info.update(dpi=(300, 300)),
    "delete": lambda info: info.pop("comment"),
    "nested-list": lambda info: info["sizes"].append((9, 9)),
}


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("operation", list(OPERATIONS))
@pytest.mark.parametrize("route", list(ROUTES))
def test_edits_reach_the_results_info(route: str, operation: str, edit: str) -> None:
    source = make_image("RGB", (11, 7), 2)
    source.info.update(dpi=(72, 72), comment=b"camera", sizes=[(1, 1)])
    reference = source.copy()
    EDITS[edit](reference.info)
    expected = OPERATIONS[operation](PILImageOps, reference)
    lazy = Image.from_pil(source)
    EDITS[edit](lazy.info)
    derived = OPERATIONS[operation](ImageOps, lazy)
    assert derived.info == expected.info
    actual = ROUTES[route](derived)
    assert_image_equal(actual, expected)
    assert actual.info == expected.info
    assert source.info["sizes"] == [(1, 1)]  # the PIL image from_pil copied is untouched


@pytest.mark.parametrize("route", list(ROUTES))
def test_an_edited_leaf_is_its_own_result(route: str) -> None:
    source = make_image("L", (4, 3), 1)
    source.info["comment"] = b"kept"
    lazy = Image.from_pil(source)
    lazy.info = {"dpi": (10, 10)}
    actual = ROUTES[route](lazy)
    assert actual.info == {"dpi": (10, 10)}
    assert_image_equal(actual, source)
    assert Image.from_pil(source).to_pil().info == {"comment": b"kept"}  # the leaf unchanged


def test_the_dict_is_the_handles_own_and_stays_one() -> None:
    lazy = Image.from_pil(make_image("RGB", (8, 6), 3))
    info = lazy.info
    assert lazy.info is info
    info["dpi"] = (1, 2)
    lazy.thumbnail((4, 4))  # in place: Pillow's image keeps its dict
    assert lazy.info is info
    assert info == {"dpi": (1, 2)}
    assert ImageOps.invert(lazy).info == {"dpi": (1, 2)}
    copy = lazy.copy()  # a new dict with the same entries, as Pillow's copy()
    assert copy.info == info
    assert copy.info is not info
    copy.info["dpi"] = (5, 5)
    assert lazy.info == {"dpi": (1, 2)}


def test_an_unedited_handle_is_not_relabelled() -> None:
    lazy = Image.from_pil(make_image("L", (3, 3), 4))
    node = lazy.node
    assert lazy.info == {}
    assert lazy.node is node
    lazy.info["x"] = 1
    assert isinstance(lazy.node, RelabelledNode)
    assert lazy.node.inputs == node.inputs
    assert lazy.node is lazy.node  # relabelled once per edit


def test_assigning_other_than_a_mapping_is_refused() -> None:
    lazy = Image.new("L", (2, 2))
    with pytest.raises(TypeError, match=r"why: an image's info is a dict.*observed: builtins.list"):
        lazy.info = [("dpi", (1, 1))]  # type: ignore[assignment]


def test_late_png_chunks_join_an_edited_header(tmp_path: Path) -> None:
    # Pillow adds what follows a PNG's pixels to the dict the caller edited, when it loads.
    path = tmp_path / "late.png"
    tail = [png_chunk(b"tEXt", b"comment\0written after the pixels")]
    path.write_bytes(png_with_late_chunks(make_image("L", (6, 5), 6), tail))
    with PILImage.open(path) as reference:
        reference.info["dpi"] = (50, 50)
        reference.info["comment"] = "set before loading"
        expected = PILImageOps.invert(reference)
    lazy = Image.open(path)
    lazy.info["dpi"] = (50, 50)
    lazy.info["comment"] = "set before loading"
    derived = ImageOps.invert(lazy)
    assert derived.info == expected.info
    assert derived.info["comment"] == "written after the pixels"
    for route in ROUTES.values():
        assert route(derived).info == expected.info


def test_late_png_chunks_set_keys_again_after_an_edit(tmp_path: Path) -> None:
    """A key the chunks after the pixels set to the header's value comes back after an edit
    that dropped it, as Pillow's load sets it whatever the dict holds (a PNG whose text
    chunk is repeated after the pixels)."""
    path = tmp_path / "late.png"
    text = PngImagePlugin.PngInfo()
    text.add_text("comment", "same")
    out = io.BytesIO()
    make_image("L", (6, 5), 6).save(out, "PNG", pnginfo=text)
    data = out.getvalue()
    end = data.rindex(b"IEND") - 4
    path.write_bytes(data[:end] + png_chunk(b"tEXt", b"comment\0same") + data[end:])
    with PILImage.open(path) as reference:
        assert reference.info["comment"] == "same"  # the header's, before the pixels
        reference.info.clear()
        expected = PILImageOps.invert(reference)
    assert expected.info == {"comment": "same"}
    lazy = Image.open(path)
    lazy.info.clear()
    derived = ImageOps.invert(lazy)
    assert derived.info == expected.info
    for route in ROUTES.values():
        assert route(derived).info == expected.info


def test_an_unedited_handle_follows_the_file_when_it_loads(tmp_path: Path) -> None:
    path = tmp_path / "late.png"
    tail = [png_chunk(b"tEXt", b"comment\0late")]
    path.write_bytes(png_with_late_chunks(make_image("L", (6, 5), 6), tail))
    lazy = Image.open(path)
    info = lazy.info
    assert "comment" not in info  # the header's, as Pillow's before loading
    lazy.load()
    assert lazy.info is info
    assert info["comment"] == "late"


def test_save_writes_the_edited_info(tmp_path: Path) -> None:
    path = _palette_png(tmp_path)
    with PILImage.open(path) as reference:
        reference.info["transparency"] = 2
        expected = io.BytesIO()
        reference.save(expected, "PNG")
    lazy = Image.open(path)
    lazy.info["transparency"] = 2
    actual = io.BytesIO()
    lazy.save(actual, "PNG")
    assert actual.getvalue() == expected.getvalue()


def test_same_info_treats_ambiguous_values_as_edits() -> None:
    array = np.zeros(3)
    assert same_info({"a": array}, {"a": array})  # the same object
    assert not same_info({"a": array}, {"a": array.copy()})  # == has no single answer
    assert same_info({"a": [1, 2]}, {"a": [1, 2]})
    assert not same_info({"a": 1}, {"b": 1})


def test_a_filter_after_an_edit_runs_once_per_job_on_the_gpu() -> None:
    # A batch of edited graphs: each job relabels its own leaf; the plan cache keys the info.
    sources = [make_image("L", (9, 9), seed) for seed in range(4)]
    jobs = []
    for index, source in enumerate(sources):
        lazy = Image.from_pil(source)
        lazy.info["index"] = index
        jobs.append((index, lazy.filter(ImageFilter.MedianFilter(3))))
    with GpuBatchExecutor() as executor:
        found = {result.input_key: result.image for result in executor.run(jobs)}
    for index, source in enumerate(sources):
        reference = source.copy()
        reference.info["index"] = index
        expected = reference.filter(PILImageFilter.MedianFilter(3))
        assert_image_equal(found[index], expected)
        assert found[index].info == {"index": index}


def _oriented_file(file_format: str) -> bytes:
    """An 8x5 RGB file of ``file_format`` whose EXIF orientation (6) turns it a quarter."""
    source = PILImage.new("RGB", (8, 5), (10, 20, 30))
    source.putpixel((0, 0), (255, 0, 0))
    exif = PILImage.Exif()
    exif[0x0112] = 6
    written = io.BytesIO()
    source.save(written, file_format, exif=exif if file_format == "TIFF" else exif.tobytes())
    return written.getvalue()


def _orientation_3() -> bytes:
    exif = PILImage.Exif()
    exif[0x0112] = 3
    return exif.tobytes()


#: Edits of an opened file's info before it loads.
FILE_EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "none": lambda info: None,
    "delete-exif": lambda info: info.pop("exif", None),
    "exif-orientation-3": lambda info: info.update(exif=_orientation_3()),
    "dpi": lambda info: info.update(dpi=(1, 2)),
}
FILE_OPERATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "exif_transpose": lambda ops, im: ops.exif_transpose(im),
    "convert-L": lambda ops, im: im.convert("L"),
    "exif_transpose-resize": lambda ops, im: ops.exif_transpose(im).resize((3, 3)),
    "thumbnail": lambda ops, im: (im.thumbnail((4, 4)), im)[1],  # a JPEG drafts first
}
FILE_ROUTES = {"to_pil": _to_pil, "executor": _executor}


@pytest.mark.parametrize("route", list(FILE_ROUTES))
@pytest.mark.parametrize("operation", list(FILE_OPERATIONS))
@pytest.mark.parametrize("edit", list(FILE_EDITS))
@pytest.mark.parametrize("file_format", ["WEBP", "JPEG", "PNG", "TIFF"])
def test_edits_of_an_opened_file_load_as_in_pillow(
    file_format: str, edit: str, operation: str, route: str
) -> None:
    # Pillow's plugins read the edited dict: a WebP or PNG without its EXIF is not turned, a
    # JPEG is (its plugin read the EXIF at open), and a TIFF turns while it loads.
    data = _oriented_file(file_format)
    with PILImage.open(io.BytesIO(data)) as reference:
        FILE_EDITS[edit](reference.info)
        expected_exif = dict(reference.getexif())
        try:
            expected = FILE_OPERATIONS[operation](PILImageOps, reference)
            expected.load()
        except ValueError:  # a TIFF thumbnail's box from the size before the edited turn
            expected = None
    lazy = Image.open(io.BytesIO(data))
    FILE_EDITS[edit](lazy.info)
    assert dict(lazy.getexif()) == expected_exif
    if file_format == "TIFF" and edit == "exif-orientation-3":
        # The edit turns the TIFF otherwise while it loads: the size at open no longer holds.
        with pytest.raises(Exception, match="changed how Pillow loads it") as info:
            FILE_ROUTES[route](FILE_OPERATIONS[operation](ImageOps, lazy))
        assert getattr(info.value, "kind", "Unsupported") == "Unsupported"
        return
    assert expected is not None
    actual = FILE_ROUTES[route](FILE_OPERATIONS[operation](ImageOps, lazy))
    assert_image_equal(actual, expected)
    assert actual.info == expected.info


def test_an_edit_after_loading_keeps_the_loaded_pixels() -> None:
    data = _oriented_file("JPEG")
    with PILImage.open(io.BytesIO(data)) as reference:
        reference.load()
        reference.info["dpi"] = (7, 7)
        expected = reference.convert("L")
    lazy = Image.open(io.BytesIO(data))
    lazy.load()
    lazy.info["dpi"] = (7, 7)
    node = lazy.node
    assert node.op == "open"  # still the file (it seeks), completed with the decoded pixels
    assert node.cache.get() is not None
    for route in ROUTES.values():
        actual = route(lazy.convert("L"))
        assert_image_equal(actual, expected)
        assert actual.info == expected.info


def test_a_decode_an_edit_breaks_fails_its_job_only() -> None:
    # Pillow's ICNS plugin reads info["sizes"] while loading: deleting it makes Pillow's load
    # raise KeyError; the executor reports that job's decode and runs the others.
    written = io.BytesIO()
    PILImage.new("RGBA", (16, 16), (1, 2, 3, 4)).save(written, "ICNS")
    with PILImage.open(io.BytesIO(written.getvalue())) as reference:
        del reference.info["sizes"]
        with pytest.raises(KeyError):
            reference.load()
    lazy = Image.open(io.BytesIO(written.getvalue()))
    del lazy.info["sizes"]
    with pytest.raises(KeyError):
        lazy.to_pil()
    with GpuBatchExecutor() as executor:
        broken = Image.open(io.BytesIO(written.getvalue()))
        del broken.info["sizes"]
        jobs = [("icns", broken), ("new", Image.new("L", (2, 2)))]
        found = list(executor.run(jobs, errors="deliver"))
        assert [item.ok for item in found] == [False, True]
        assert found[0].kind == "Decode"  # type: ignore[union-attr]
        assert "KeyError: 'sizes'" in str(found[0].error)  # type: ignore[union-attr]


#: Edits of an animated GIF's info before seeking.
SEEK_EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "add": lambda info: info.update(user=1),
    "delete-loop": lambda info: info.pop("loop"),
    "set-duration": lambda info: info.update(duration=999),
}


@pytest.mark.parametrize("edit", list(SEEK_EDITS))
def test_seeking_updates_the_edited_dict_as_pillows(edit: str) -> None:
    # Pillow's GIF plugin updates the image's own dict on each seek: the caller's entries stay,
    # the frame's own (duration) are set again.
    frames = [PILImage.new("RGB", (8, 8), (index * 80, 0, 0)) for index in range(3)]
    written = io.BytesIO()
    frames[0].save(
        written, "GIF", save_all=True, append_images=frames[1:], duration=[10, 20, 30], loop=0
    )
    with PILImage.open(io.BytesIO(written.getvalue())) as reference:
        SEEK_EDITS[edit](reference.info)
        reference.seek(1)
        second = dict(reference.info)
        reference.seek(2)
        third = reference.convert("RGB")
    lazy = Image.open(io.BytesIO(written.getvalue()))
    info = lazy.info
    SEEK_EDITS[edit](info)
    lazy.seek(1)
    assert lazy.info is info
    assert info == second
    lazy.seek(2)
    actual = _executor(lazy.convert("RGB"))
    assert_image_equal(actual, third)
    assert actual.info == third.info


def test_a_loaded_file_edited_still_seeks() -> None:
    frames = [PILImage.new("RGB", (8, 8), (index * 80, 0, 0)) for index in range(3)]
    written = io.BytesIO()
    frames[0].save(written, "GIF", save_all=True, append_images=frames[1:], duration=[10, 20, 30])
    with PILImage.open(io.BytesIO(written.getvalue())) as reference:
        reference.load()
        reference.info["user"] = 1
        reference.seek(2)
        expected = reference.convert("RGB")
    lazy = Image.open(io.BytesIO(written.getvalue()))
    lazy.load()
    lazy.info["user"] = 1
    lazy.seek(2)
    actual = lazy.convert("RGB").to_pil()
    assert_image_equal(actual, expected)
    assert actual.info == expected.info


@pytest.mark.parametrize("orientation", [3, 5, 6, 8])
@pytest.mark.parametrize("route", list(ROUTES))
def test_exif_transpose_of_an_empty_image_hands_its_info_on(route: str, orientation: int) -> None:
    """An empty image's exif_transpose is completed with Pillow at the call (a leaf of its
    result): the operation after it starts from Pillow's info, orientation removed."""

    def chain(image: Any, ops: Any) -> Any:
        cropped = image.crop((2, 1, 2, 4))  # 0 x 3
        exif = cropped.getexif()
        exif[0x0112] = orientation
        cropped.info["exif"] = exif.tobytes()
        return ops.exif_transpose(cropped).transpose(PILImage.Transpose.FLIP_TOP_BOTTOM)

    source = make_image("RGB", (6, 5))
    expected = chain(source, PILImageOps)
    lazy = chain(Image.from_pil(source), ImageOps)
    assert lazy.info == expected.info
    actual = ROUTES[route](lazy)
    assert actual.size == expected.size
    assert actual.info == expected.info
