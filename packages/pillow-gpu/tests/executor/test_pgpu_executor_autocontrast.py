"""ImageOps.autocontrast jobs batched into one submission: each job chooses its own table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu._testing import assert_image_equal, make_image

Factory = Callable[..., GpuBatchExecutor]

# (mode, size, seed, masked, options): same-shape jobs with different ranges, plus others.
JOBS: list[tuple[str, tuple[int, int], int, bool, dict[str, Any]]] = [
    ("RGB", (19, 17), 1, False, {}),
    ("RGB", (19, 17), 2, False, {"cutoff": 2}),
    ("RGB", (19, 17), 3, True, {"cutoff": (1, 10), "ignore": 0}),
    ("L", (19, 17), 4, False, {"cutoff": 49.5}),
    ("L", (19, 17), 5, True, {"ignore": [0, 255]}),
    ("RGB", (65, 33), 6, True, {"preserve_tone": True, "cutoff": 2}),
    ("L", (1, 1), 7, False, {}),
    ("RGB", (3, 2), 8, False, {"preserve_tone": True}),
]


def _narrow(mode: str, size: tuple[int, int], seed: int) -> PILImage.Image:
    """A low-contrast image: ``seed`` picks its narrow range, so every job's lo/hi differ."""
    image = make_image(mode, size, seed)
    return image.point(lambda v: 60 + seed + v % (3 + 2 * seed))


def _jobs(offset: int) -> list[tuple[PILImage.Image, PILImage.Image | None, dict[str, Any]]]:
    jobs = []
    for mode, size, seed, masked, options in JOBS:
        source = _narrow(mode, size, seed + offset)
        mask = None
        if masked:
            noise = np.asarray(make_image("L", size, seed + 50 + offset))
            mask = PILImage.fromarray(((noise > 100) * 255).astype(np.uint8))
        jobs.append((source, mask, options))
    return jobs


@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_autocontrast_jobs_in_one_submission_match_pillow(
    make_executor: Factory, output: str
) -> None:
    executor = make_executor()
    for offset in (0, 10):  # the second run reuses the first run's pooled allocations
        jobs = _jobs(offset)
        lazies = [
            ImageOps.autocontrast(Image.from_pil(source), mask=mask, **options)
            for source, mask, options in jobs
        ]
        submissions = executor.stats["submissions"]
        results = {r.input_key: r.image for r in executor.run(enumerate(lazies), output=output)}
        assert executor.stats["submissions"] == submissions + 1
        for key, (source, mask, options) in enumerate(jobs):
            image = results[key].download() if output == "gpu" else results[key]
            assert_image_equal(image, PILImageOps.autocontrast(source, mask=mask, **options))
