"""Benchmark workloads: the same chain written once for Pillow and once as a lazy graph.

Every job builds a fresh graph from its source images (``from_pil`` leaves), so graph
construction is inside the timed window. Sources are deterministic noise images; a batch
cycles through a few distinct sources so large sizes do not need one source per job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image as PILImage
from PIL import ImageChops as PILImageChops
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps

from pillow_gpu import Image, ImageChops, ImageFilter, ImageOps

__all__ = [
    "MAX_DISTINCT_SOURCES",
    "WORKLOADS",
    "Workload",
    "job_sources",
    "make_sources",
    "source_count",
]

#: Distinct source images per case; jobs cycle through them.
MAX_DISTINCT_SOURCES = 4

_PilChain = Callable[[str, Sequence[PILImage.Image]], PILImage.Image]
_LazyChain = Callable[[str, Sequence[Image.Image]], Image.Image]


@dataclass(frozen=True, slots=True, kw_only=True)
class Workload:
    """One benchmark chain: its Pillow form, its lazy form and how many inputs a job takes.

    ``pillow(mode, images)`` and ``lazy(mode, images)`` record the same operations.
    """

    name: str
    description: str
    inputs: int
    pillow: _PilChain
    lazy: _LazyChain


def _pil_invert(mode: str, image: PILImage.Image) -> PILImage.Image:
    # ImageOps.invert admits L and RGB; for other modes the same bytes come from ImageChops.
    return PILImageOps.invert(image) if mode in ("L", "RGB") else PILImageChops.invert(image)


def _lazy_invert(mode: str, image: Image.Image) -> Image.Image:
    return ImageOps.invert(image) if mode in ("L", "RGB") else ImageChops.invert(image)


def _pil_invert_median(mode: str, images: Sequence[PILImage.Image]) -> PILImage.Image:
    return _pil_invert(mode, images[0]).filter(PILImageFilter.MedianFilter(3))


def _lazy_invert_median(mode: str, images: Sequence[Image.Image]) -> Image.Image:
    return _lazy_invert(mode, images[0]).filter(ImageFilter.MedianFilter(3))


def _pil_gaussian(mode: str, images: Sequence[PILImage.Image]) -> PILImage.Image:
    return images[0].filter(PILImageFilter.GaussianBlur(2))


def _lazy_gaussian(mode: str, images: Sequence[Image.Image]) -> Image.Image:
    return images[0].filter(ImageFilter.GaussianBlur(2))


def _pil_gray_invert(mode: str, images: Sequence[PILImage.Image]) -> PILImage.Image:
    return PILImageOps.invert(PILImageOps.grayscale(images[0]))


def _lazy_gray_invert(mode: str, images: Sequence[Image.Image]) -> Image.Image:
    return ImageOps.invert(ImageOps.grayscale(images[0]))


def _pil_multiply(mode: str, images: Sequence[PILImage.Image]) -> PILImage.Image:
    return PILImageChops.multiply(images[0], images[1])


def _lazy_multiply(mode: str, images: Sequence[Image.Image]) -> Image.Image:
    return ImageChops.multiply(images[0], images[1])


def _pil_chops_invert(mode: str, images: Sequence[PILImage.Image]) -> PILImage.Image:
    return PILImageChops.invert(images[0])


def _lazy_chops_invert(mode: str, images: Sequence[Image.Image]) -> Image.Image:
    return ImageChops.invert(images[0])


def _composite_mask(image: PILImage.Image | Image.Image) -> PILImage.Image | Image.Image:
    """The alpha band of ``image`` (its first band where it has none)."""
    bands = image.getbands()
    return image.getchannel("A" if "A" in bands else 0)


def _pil_composite(mode: str, images: Sequence[PILImage.Image]) -> PILImage.Image:
    mask = _composite_mask(images[0])
    return PILImage.composite(images[0], images[1], mask)  # type: ignore[arg-type]


def _lazy_composite(mode: str, images: Sequence[Image.Image]) -> Image.Image:
    mask = _composite_mask(images[0])
    return Image.composite(images[0], images[1], mask)


def _thumbnail_size(image: PILImage.Image | Image.Image) -> tuple[int, int]:
    return max(1, image.width // 4), max(1, image.height // 4)


def _pil_thumbnail(mode: str, images: Sequence[PILImage.Image]) -> PILImage.Image:
    image = images[0]
    return image.resize(_thumbnail_size(image), PILImage.Resampling.BICUBIC)


def _lazy_thumbnail(mode: str, images: Sequence[Image.Image]) -> Image.Image:
    image = images[0]
    return image.resize(_thumbnail_size(image), Image.BICUBIC)


#: The benchmark workloads by name, in report order.
WORKLOADS: Mapping[str, Workload] = {
    workload.name: workload
    for workload in (
        Workload(
            name="invert_median3",
            description="ImageOps.invert (ImageChops.invert for RGBA) then MedianFilter(3)",
            inputs=1,
            pillow=_pil_invert_median,
            lazy=_lazy_invert_median,
        ),
        Workload(
            name="gaussian_blur2",
            description="GaussianBlur(2)",
            inputs=1,
            pillow=_pil_gaussian,
            lazy=_lazy_gaussian,
        ),
        Workload(
            name="grayscale_invert",
            description="ImageOps.grayscale then ImageOps.invert (output L)",
            inputs=1,
            pillow=_pil_gray_invert,
            lazy=_lazy_gray_invert,
        ),
        Workload(
            name="thumbnail_bicubic",
            description="resize to a quarter of each edge with BICUBIC (Pillow's default filter)",
            inputs=1,
            pillow=_pil_thumbnail,
            lazy=_lazy_thumbnail,
        ),
        Workload(
            name="chops_invert",
            description="ImageChops.invert (every band, alpha included)",
            inputs=1,
            pillow=_pil_chops_invert,
            lazy=_lazy_chops_invert,
        ),
        Workload(
            name="multiply",
            description="ImageChops.multiply of two images",
            inputs=2,
            pillow=_pil_multiply,
            lazy=_lazy_multiply,
        ),
        Workload(
            name="composite",
            description="Image.composite(a, b, mask): a over b through a's alpha band (its "
            "first band where it has none), a masked paste",
            inputs=2,
            pillow=_pil_composite,
            lazy=_lazy_composite,
        ),
    )
}


def make_sources(mode: str, edge: int, count: int, seed: int = 0) -> list[PILImage.Image]:
    """``count`` deterministic noise images of ``mode`` and size ``edge`` x ``edge``."""
    rng = np.random.default_rng(seed)
    bands = PILImage.getmodebands(mode)
    return [
        PILImage.frombytes(
            mode, (edge, edge), rng.integers(0, 256, edge * edge * bands, np.uint8).tobytes()
        )
        for _ in range(count)
    ]


def source_count(workload: Workload, batch: int) -> int:
    """Distinct sources a case of ``batch`` jobs needs (at least one per job input)."""
    return max(workload.inputs, min(batch * workload.inputs, MAX_DISTINCT_SOURCES))


def job_sources(
    workload: Workload, sources: Sequence[PILImage.Image], index: int
) -> list[PILImage.Image]:
    """The source images of job ``index`` (consecutive sources, cycling)."""
    start = index * workload.inputs
    return [sources[(start + k) % len(sources)] for k in range(workload.inputs)]
