"""``info`` of real files: the value types Pillow's plugins produce run through the executor.

Files are written by Pillow (TIFF resolution tags, PNG iTXt/zTXt/tEXt, ICO, JPEG and WebP XMP)
and run through ``exif_transpose -> [convert("RGB")] -> thumbnail -> GaussianBlur``: pixels and
``info`` (value types included) equal Pillow's, and ``save()`` of the result works. Custom
objects stay rejected, without any of their code running.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from PIL.PngImagePlugin import PngInfo, iTXt
from PIL.TiffImagePlugin import IFDRational
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.executor import BatchLimit, BatchUnsupported
from pillow_gpu.executor._metadata import MAX_DEPTH, info_nbytes, snapshot_info
from pillow_gpu.gpu import evaluate, plan_graph

Factory = Callable[..., GpuBatchExecutor]
_THUMB = (12, 12)
_BLUR = 1.5


def _tiff(path: Path) -> None:
    make_image("L", (30, 20), seed=1).save(path.with_suffix(".tif"), dpi=(300, 150))


def _tiff_cm(path: Path) -> None:
    tiffinfo = {296: 3, 282: IFDRational(118, 1), 283: IFDRational(59, 2)}  # unit cm
    make_image("RGB", (25, 18), seed=2).save(path.with_suffix(".tif"), tiffinfo=tiffinfo)


def _png_text(path: Path) -> None:
    text = PngInfo()
    text.add_itxt("Description", "grüße", lang="de", tkey="Beschreibung")
    text.add_itxt("Packed", "z" * 300, lang="en", tkey="", zip=True)
    text.add_text("Comment", "c" * 200, zip=True)  # zTXt
    text.add_text("Author", "pillow-gpu")
    make_image("L", (28, 21), seed=3).save(path.with_suffix(".png"), pnginfo=text, dpi=(96, 96))


def _ico(path: Path) -> None:
    make_image("RGBA", (32, 32), seed=4).save(path.with_suffix(".ico"), sizes=[(16, 16), (32, 32)])


def _jpeg_xmp(path: Path) -> None:
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'
    make_image("L", (33, 19), seed=5).save(path.with_suffix(".jpg"), xmp=xmp, dpi=(72, 72))


def _webp_xmp(path: Path) -> None:
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'
    make_image("RGB", (26, 22), seed=6).save(path.with_suffix(".webp"), xmp=xmp, lossless=True)


#: id -> (writer, expected info value types, convert("RGB") in the pipeline)
FILES: dict[str, tuple[Callable[[Path], None], dict[str, type], bool]] = {
    "tiff-dpi-ifdrational": (_tiff, {"dpi": tuple}, True),
    "tiff-resolution-cm": (_tiff_cm, {"dpi": tuple}, False),
    "png-itxt-ztxt": (_png_text, {"Description": iTXt, "Packed": iTXt, "Comment": str}, True),
    "ico-sizes-set": (_ico, {"sizes": set}, False),
    "jpeg-xmp-bytes": (_jpeg_xmp, {"xmp": bytes}, True),
    "webp-xmp-bytes": (_webp_xmp, {"xmp": bytes}, False),
}


def _written(tmp_path: Path, name: str) -> Path:
    FILES[name][0](tmp_path / "source")
    (path,) = tmp_path.glob("source.*")
    return path


def _pillow(path: Path, convert: bool) -> PILImage.Image:
    with PILImage.open(path) as opened:
        image = PILImageOps.exif_transpose(opened)
    if convert:
        image = image.convert("RGB")
    image.thumbnail(_THUMB)
    return image.filter(PILImageFilter.GaussianBlur(_BLUR))


def _lazy(path: Path, convert: bool) -> Image.Image:
    image = ImageOps.exif_transpose(Image.open(path))
    if convert:
        image = image.convert("RGB")
    image.thumbnail(_THUMB)  # in place, as in Pillow
    return image.filter(ImageFilter.GaussianBlur(_BLUR))


def _types(info: dict[str, Any]) -> dict[str, Any]:
    def kinds(value: Any) -> Any:
        if isinstance(value, (tuple, list, set)):
            return type(value), sorted(repr(kinds(item)) for item in value)
        if type(value) is iTXt:
            return iTXt, value.lang, value.tkey
        return type(value)

    return {key: kinds(value) for key, value in info.items()}


@pytest.mark.parametrize("name", list(FILES))
def test_file_metadata_runs_and_matches_pillow(
    name: str, tmp_path: Path, make_executor: Factory
) -> None:
    path = _written(tmp_path, name)
    _, expected_types, convert = FILES[name]
    expected = _pillow(path, convert)
    for key, kind in expected_types.items():  # the file really carries Pillow's own types
        assert type(expected.info[key]) is kind, (key, type(expected.info[key]))
    executor = make_executor()
    (result,) = executor.run([(name, _lazy(path, convert))])
    with PILImage.open(path) as opened:
        fmt = opened.format or ""
    assert_image_equal(result.image, expected)
    # Pillow's WebP load() adds the first frame's timestamp and duration: read at open too
    # (pillow_gpu._load_info), so the whole info is Pillow's.
    assert result.image.info == expected.info
    assert _types(result.image.info) == _types(expected.info)
    for target in {fmt, "PNG"}:  # save() works, in the source format and in PNG
        writable = target != "ICO" and (target != "JPEG" or result.image.mode == "RGB")
        buffer = io.BytesIO()
        result.image.save(buffer, target if writable else "PNG")
        assert PILImage.open(buffer).size == expected.size


def test_ifdrational_snapshot_is_an_owned_equal_copy() -> None:
    source = {"dpi": (IFDRational(300, 1), IFDRational(1, 0)), "resolution": IFDRational(7, 3)}
    snapshot = snapshot_info(source)
    dpi = snapshot.value["dpi"]
    assert all(type(value) is IFDRational for value in dpi)
    assert dpi[0] == 300
    assert dpi[0] is not source["dpi"][0]
    assert (dpi[1].numerator, dpi[1].denominator) == (1, 0)  # 0/0-style values survive
    assert snapshot.value["resolution"] == source["resolution"]
    copied = snapshot.copy()
    assert copied["resolution"] is not snapshot.value["resolution"]
    assert copied["resolution"] == IFDRational(7, 3)


def test_set_snapshot_is_independent(make_executor: Factory) -> None:
    source = PILImage.new("L", (4, 4), 3)
    sizes = {(16, 16), (32, 32)}
    source.info["sizes"] = sizes
    executor = make_executor()
    executor.submit(ImageOps.invert(Image.from_pil(source)))
    source.info["sizes"].add((64, 64))
    (result,) = executor.join()
    assert result.image.info["sizes"] == {(16, 16), (32, 32)}
    assert type(result.image.info["sizes"]) is set


class _Loud:
    """A value whose every hook records that it ran (validation must run none of them)."""

    calls: ClassVar[list[str]] = []

    def __repr__(self) -> str:
        self.calls.append("repr")
        raise RuntimeError("repr ran")

    def __sizeof__(self) -> int:
        self.calls.append("sizeof")
        raise RuntimeError("sizeof ran")

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        self.calls.append("eq")
        raise RuntimeError("eq ran")


class _Rational(IFDRational):
    __slots__ = ()


class _Text(iTXt):
    pass


def _with(value: object, where: str) -> dict[str, object]:
    if where == "key":
        return {"meta": {value: 1}}
    return {"meta": value}


BAD: dict[str, tuple[Callable[[], object], str]] = {
    "object-value": (_Loud, "value"),
    "object-key": (_Loud, "key"),
    "object-in-set": (lambda: {1, _Loud()}, "value"),
    "ifdrational-subclass": (lambda: _Rational(1, 2), "value"),
    "ifdrational-object-numerator": (lambda: IFDRational(_Loud(), 0), "value"),
    "itxt-subclass": (lambda: _Text("t", "en", "k"), "value"),
    "itxt-object-lang": (lambda: iTXt("t", _Loud(), "k"), "value"),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", list(BAD))
def test_custom_objects_are_rejected_without_running_their_code(
    name: str, make_executor: Factory
) -> None:
    make, where = BAD[name]
    _Loud.calls.clear()
    source = PILImage.new("L", (4, 4), 3)
    source.info.update(_with(make(), where))
    lazy = ImageOps.invert(Image.from_pil(source))
    executor = make_executor()
    with pytest.raises(BatchUnsupported, match="metadata accepts only") as caught:
        executor.submit(lazy)
    assert (caught.value.kind, caught.value.stage) == ("Unsupported", "admission")
    assert "info['meta']" in caught.value.observed
    assert plan_graph(lazy).host_bytes > 0  # the planner measures without running it either
    assert _Loud.calls == []


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [MAX_DEPTH, 5_000], ids=["just-over", "far-over-recursion"])
def test_deep_nesting_is_the_documented_limit(depth: int, make_executor: Factory) -> None:
    source = PILImage.new("L", (4, 4), 3)
    source.info["deep"] = _nested(depth)
    lazy = ImageOps.invert(Image.from_pil(source))
    assert info_nbytes(lazy.node.info) == 0  # rejected: measured as nothing, no recursion
    executor = make_executor()
    with pytest.raises(BatchLimit, match="nest at most") as caught:
        executor.submit(lazy)
    assert caught.value.kind == "Limit"


def test_evaluate_passes_custom_info_through_as_pillow_does() -> None:
    _Loud.calls.clear()
    source = PILImage.new("L", (4, 4), 3)
    loud = _Loud()
    source.info["meta"] = loud
    result = evaluate(ImageOps.invert(Image.from_pil(source)))
    assert result.info["meta"] is loud
    assert _Loud.calls == []
