"""A submitted job lets go of its graph while its work runs: the nodes and the sources'
snapshots are freed at submission, not when the submission completes, and the results are
still Pillow's."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter
from pillow_gpu._snapshot import snapshot_pool
from pillow_gpu._testing import assert_image_equal, make_image

Factory = Callable[..., GpuBatchExecutor]

#: Work heavy enough on any adapter that a submission is still running when the next input is
#: read right after it was submitted (5x5 medians of 512x512 RGB).
SIZE = (512, 512)
JOBS = 8


@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_the_graphs_of_a_running_submission_are_freed(make_executor: Factory, output: str) -> None:
    sources = [make_image("RGB", SIZE, seed=index) for index in range(JOBS)]
    executor = make_executor(max_jobs=JOBS, max_in_flight=2, gpu_bytes=1 << 30)
    seen: dict[str, object] = {}

    def inputs() -> Iterator[tuple[int, Image.Image]]:
        for index, source in enumerate(sources):
            if "running" not in seen and executor._in_flight:  # read after the first submit
                running = [job for submission in executor._in_flight for job in submission.jobs]
                seen["running"] = len(running)
                seen["graphs"] = sum(hasattr(job.plan, "root") for job in running)
                seen["idle"] = snapshot_pool().idle_bytes
            yield index, Image.from_pil(source).filter(ImageFilter.MedianFilter(5))

    snapshot_pool().clear()
    results = {result.input_key: result.image for result in executor.run(inputs(), output=output)}
    running = seen["running"]
    assert isinstance(running, int)
    assert running >= 1
    assert seen["graphs"] == 0
    assert seen["idle"] >= running * SIZE[0] * SIZE[1] * 4  # their snapshots back in the pool
    for index, source in enumerate(sources):
        image = results.pop(index)
        found = image if isinstance(image, PILImage.Image) else image.download()
        assert_image_equal(found, source.filter(PILImageFilter.MedianFilter(5)))
