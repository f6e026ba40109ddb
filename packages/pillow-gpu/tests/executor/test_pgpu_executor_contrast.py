"""ImageEnhance.Contrast jobs batched into one submission: each job sums into its own buffer."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PIL import Image as PILImage
from PIL import ImageEnhance as PILImageEnhance
from pillow_gpu import GpuBatchExecutor, Image, ImageEnhance
from pillow_gpu._testing import MODES, assert_image_equal, make_image

Factory = Callable[..., GpuBatchExecutor]

# (mode, size, seed, factor): same-shape jobs with different means, plus other shapes.
JOBS = [
    ("RGB", (19, 17), 1, 0.0),
    ("RGB", (19, 17), 2, 0.0),
    ("RGB", (19, 17), 3, 0.0),
    *((mode, (65, 33), 10 + index, 1.7) for index, mode in enumerate(MODES)),
    ("L", (1, 1), 4, -1.0),
    ("RGBA", (3, 2), 5, 3.0),
]


def _sources(offset: int) -> list[tuple[PILImage.Image, float]]:
    return [(make_image(mode, size, seed + offset), f) for mode, size, seed, f in JOBS]


@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_contrast_jobs_in_one_submission_match_pillow(make_executor: Factory, output: str) -> None:
    executor = make_executor()
    for offset in (0, 100):  # the second run reuses the first run's pooled allocations
        sources = _sources(offset)
        lazies = [
            ImageEnhance.Contrast(Image.from_pil(source)).enhance(factor)
            for source, factor in sources
        ]
        submissions = executor.stats["submissions"]
        results = {r.input_key: r.image for r in executor.run(enumerate(lazies), output=output)}
        assert executor.stats["submissions"] == submissions + 1
        for key, (source, factor) in enumerate(sources):
            image = results[key].download() if output == "gpu" else results[key]
            assert_image_equal(image, PILImageEnhance.Contrast(source).enhance(factor))
