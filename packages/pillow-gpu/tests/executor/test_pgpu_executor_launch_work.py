"""Large jobs are submitted in parts (LAUNCH_WORK); small ones in submissions of max_jobs // 2.

A launch can also be held back by ``max_in_flight``; the jobs admitted meanwhile then go out
together, so these tests allow as many submissions in flight as there are parts and the
grouping does not depend on how fast the device finishes.
"""

from __future__ import annotations

import pytest
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import GpuBatchExecutor, Image
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.executor._executor import LAUNCH_WORK
from pillow_gpu.gpu._planner import plan_graph

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize(("edge", "parts"), [(16, 1), (1024, 4)], ids=["small", "large"])
def test_pending_work_starts_a_submission(edge: int, parts: int) -> None:
    source = make_image("RGB", (edge, edge), seed=2)
    median = PILImageFilter.MedianFilter(3)
    work = plan_graph(Image.from_pil(source).filter(median)).shader_work
    per_submission = max(1, -(-LAUNCH_WORK // work))
    assert (edge == 1024) == (per_submission < 8)
    # a submission of max_jobs // max_in_flight = 8 jobs unless LAUNCH_WORK comes first
    executor = GpuBatchExecutor(max_jobs=64, max_in_flight=8, gpu_bytes=1 << 30)
    try:
        graphs = ((index, Image.from_pil(source).filter(median)) for index in range(8))
        with executor.run(graphs) as results:
            images = [result.image for result in results]
        assert executor.stats["submissions"] == parts
        assert executor.stats["largest_submission"] == 8 // parts
    finally:
        executor.close()
    for image in images:
        assert_image_equal(image, source.filter(median))
