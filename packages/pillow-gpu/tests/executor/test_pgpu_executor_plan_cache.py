"""The executor plans through the shape cache: a same-shaped batch is lowered once, exactly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PIL import ImageChops as PILImageChops
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import GpuBatchExecutor, Image, ImageChops, ImageFilter
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.gpu._plan_cache import SHARED_PLAN_CACHE

Factory = Callable[..., GpuBatchExecutor]

CHAINS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "invert": (ImageChops.invert, PILImageChops.invert),
    "invert-median3": (
        lambda im: ImageChops.invert(im).filter(ImageFilter.MedianFilter(3)),
        lambda im: PILImageChops.invert(im).filter(PILImageFilter.MedianFilter(3)),
    ),
}


@pytest.mark.parametrize("mode", ["L", "RGBA"])
@pytest.mark.parametrize("chain", list(CHAINS))
def test_a_same_shaped_batch_is_planned_once_and_exact(
    make_executor: Factory, chain: str, mode: str
) -> None:
    ours, pillows = CHAINS[chain]
    sources = {f"job-{seed}": make_image(mode, (37, 23), seed) for seed in range(12)}
    executor = make_executor(max_jobs=4)
    hits, misses = SHARED_PLAN_CACHE.hits, SHARED_PLAN_CACHE.misses
    jobs = ((key, ours(Image.from_pil(source))) for key, source in sources.items())
    with executor.run(jobs) as results:
        seen: dict[Any, Any] = {}
        for result in results:
            seen[result.input_key] = result.image
    assert SHARED_PLAN_CACHE.misses - misses <= 1  # 0 when an earlier test planned the shape
    assert SHARED_PLAN_CACHE.hits - hits >= len(sources) - 1
    assert set(seen) == set(sources)
    for key, source in sources.items():
        assert_image_equal(seen[key], pillows(source))


def test_a_refused_shape_is_refused_for_every_job(make_executor: Factory) -> None:
    executor = make_executor()
    for seed in range(3):
        source = Image.from_pil(make_image("L", (9, 9), seed))
        lazy = source.resize((4, 4), Image.Resampling.MKS2013)
        with pytest.raises(Unsupported, match="MKS2013"):
            executor.submit(lazy)
