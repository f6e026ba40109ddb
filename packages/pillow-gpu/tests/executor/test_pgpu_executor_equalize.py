"""ImageOps.equalize jobs batched into one submission: each job counts into its own bins."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image

Factory = Callable[..., GpuBatchExecutor]

# (mode, size, seed, masked): same-shape jobs with different histograms, plus other shapes.
JOBS = [
    ("RGB", (19, 17), 1, False),
    ("RGB", (19, 17), 2, False),
    ("RGB", (19, 17), 3, False),
    ("L", (19, 17), 4, False),
    ("L", (19, 17), 5, True),
    ("RGB", (65, 33), 6, True),
    ("L", (1, 1), 7, False),
    ("RGB", (3, 2), 8, False),
]


def _narrow(mode: str, size: tuple[int, int], seed: int) -> PILImage.Image:
    """A low-contrast image: ``seed`` picks its narrow range, so histograms all differ."""
    image = make_image(mode, size, seed)
    return image.point(lambda v: 90 + seed + v % (3 + seed))


def _jobs(offset: int) -> list[tuple[PILImage.Image, PILImage.Image | None]]:
    jobs = []
    for mode, size, seed, masked in JOBS:
        source = _narrow(mode, size, seed + offset)
        mask = None
        if masked:
            noise = np.asarray(make_image("L", size, seed + 50 + offset))
            mask = PILImage.fromarray(((noise > 100) * 255).astype(np.uint8))
        jobs.append((source, mask))
    return jobs


@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_equalize_jobs_in_one_submission_match_pillow(make_executor: Factory, output: str) -> None:
    executor = make_executor()
    for offset in (0, 100):  # the second run reuses the first run's pooled allocations
        jobs = _jobs(offset)
        lazies = [ImageOps.equalize(Image.from_pil(source), mask) for source, mask in jobs]
        submissions = executor.stats["submissions"]
        results = {r.input_key: r.image for r in executor.run(enumerate(lazies), output=output)}
        assert executor.stats["submissions"] == submissions + 1
        for key, (source, mask) in enumerate(jobs):
            image = results[key].download() if output == "gpu" else results[key]
            assert_image_equal(image, PILImageOps.equalize(source, mask))
