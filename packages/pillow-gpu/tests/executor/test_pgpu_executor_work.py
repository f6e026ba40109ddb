"""The per-submission shader-work bound: admission of one graph, and grouping of a stream."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.errors import Unsupported
from pillow_gpu.executor import BatchUnsupported
from pillow_gpu.gpu import plan_graph
from pillow_gpu.gpu._device import SharedDevice
from pillow_gpu.gpu._work import MAX_SUBMISSION_WORK

Factory = Callable[..., GpuBatchExecutor]


def test_a_graph_above_the_bound_is_unsupported_at_submit_before_decode_or_allocation(
    make_executor: Factory, device: SharedDevice, tmp_path: Path
) -> None:
    path = tmp_path / "big.png"
    PILImage.new("L", (4096, 4096)).save(path)
    lazy = Image.open(path).filter(ImageFilter.MedianFilter(5))  # ~1.1e10 units
    path.write_bytes(b"not a png any more")  # a decode attempt would fail with OSError
    executor = make_executor()
    assert executor.max_submission_work == MAX_SUBMISSION_WORK
    buffers_before = device.buffers_created
    with pytest.raises(BatchUnsupported) as info:
        executor.submit(lazy)
    error = info.value
    assert isinstance(error, Unsupported)
    assert (error.kind, error.stage, error.job_id, error.input_key) == (
        "Unsupported",
        "admission",
        0,
        None,
    )
    assert "shader work exceeds the per-submission bound" in error.why
    assert f"bound {MAX_SUBMISSION_WORK}" in error.observed
    assert "L 4096x4096 graph" in error.observed
    assert "smaller image" in error.fix
    assert "fewer operations" in error.fix
    assert device.buffers_created == buffers_before
    assert lazy.node.inputs[0].cache.get() is None  # never decoded
    assert executor.stats["submitted_jobs"] == 0


def test_run_names_the_input_whose_graph_exceeds_a_lowered_bound(make_executor: Factory) -> None:
    lazy = Image.from_pil(make_image("RGB", (16, 16))).filter(ImageFilter.MedianFilter(3))
    work = plan_graph(lazy).shader_work
    executor = make_executor(max_submission_work=work - 1)
    with pytest.raises(BatchUnsupported) as info:
        list(executor.run([("heavy", lazy)]))
    assert info.value.input_key == "heavy"
    assert f"{work} shader-work units" in info.value.observed
    assert f"bound {work - 1}" in info.value.observed


@pytest.mark.parametrize(
    ("jobs_per_bound", "submissions"),
    [(None, 1), (3, 4), (1, 10)],
    ids=["default-bound-one-submission", "three-jobs-per-submission", "one-job-per-submission"],
)
def test_a_stream_is_split_where_the_cumulative_work_would_exceed_the_bound(
    make_executor: Factory, jobs_per_bound: int | None, submissions: int
) -> None:
    sources = [make_image("L", (32, 32), seed=seed) for seed in range(10)]

    def lazy(source: PILImage.Image) -> Image.Image:
        return Image.from_pil(source).filter(ImageFilter.MedianFilter(3))

    job_work = plan_graph(lazy(sources[0])).shader_work
    bound = MAX_SUBMISSION_WORK if jobs_per_bound is None else jobs_per_bound * job_work
    executor = make_executor(max_submission_work=bound)
    jobs = ((seed, lazy(source)) for seed, source in enumerate(sources))
    with executor.run(jobs) as results:
        delivered = {
            result.input_key: result.image
            for result in results
            if isinstance(result.image, PILImage.Image)
        }
    assert set(delivered) == set(range(10))
    for seed, source in enumerate(sources):
        assert_image_equal(delivered[seed], source.filter(PILImageFilter.MedianFilter(3)))
    stats = executor.stats
    assert stats["submissions"] == submissions
    assert stats["shader_work"] == 10 * job_work
    assert stats["largest_submission"] == min(10, jobs_per_bound or 10)
    assert stats["largest_submission_work"] == stats["largest_submission"] * job_work <= bound
