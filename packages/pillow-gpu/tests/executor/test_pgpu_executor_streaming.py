"""Streaming: run()/join() results against live Pillow, grouping, arenas, lazy bounded pulls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from PIL import ImageOps as PILImageOps
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter, ImageOps, QueueFull
from pillow_gpu._testing import assert_image_equal, make_image
from pillow_gpu.gpu import plan_graph

from .conftest import credits_now

Factory = Callable[..., GpuBatchExecutor]
Op = tuple[Callable[[Any], Any], Callable[[PILImage.Image], PILImage.Image], tuple[str, ...]]

OPS: dict[str, Op] = {
    "invert": (ImageOps.invert, PILImageOps.invert, ("L", "RGB")),
    "flip": (ImageOps.flip, PILImageOps.flip, ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX")),
    "gaussian1": (
        lambda im: im.filter(ImageFilter.GaussianBlur(1)),
        lambda im: im.filter(PILImageFilter.GaussianBlur(1)),
        ("L", "LA", "RGB", "RGBA"),
    ),
    "median3": (
        lambda im: im.filter(ImageFilter.MedianFilter(3)),
        lambda im: im.filter(PILImageFilter.MedianFilter(3)),
        ("L", "RGB", "RGBA"),
    ),
    "crop": (
        lambda im: im.crop((1, 0, im.width, im.height)),
        lambda im: im.crop((1, 0, im.width, im.height)),
        ("L", "LA", "RGB", "RGBA", "CMYK", "RGBX"),
    ),
}
SIZES = ((3, 2), (19, 17), (65, 33))
CASES = [(op, mode) for op, (_, _, modes) in OPS.items() for mode in modes]


@pytest.mark.parametrize(("op", "mode"), CASES, ids=[f"{op}-{mode}" for op, mode in CASES])
def test_run_results_match_pillow(make_executor: Factory, op: str, mode: str) -> None:
    lazy_op, pil_op, _ = OPS[op]
    sources = {
        f"{w}x{h}-{seed}": make_image(mode, (w, h), seed) for w, h in SIZES for seed in (0, 1)
    }
    executor = make_executor()
    jobs = ((key, lazy_op(Image.from_pil(source))) for key, source in sources.items())
    seen = set()
    with executor.run(jobs) as results:
        for result in results:
            assert isinstance(result.image, PILImage.Image)
            assert_image_equal(result.image, pil_op(sources[str(result.input_key)]))
            seen.add(result.input_key)
    assert seen == set(sources)
    assert executor.stats["submitted_jobs"] == len(sources)
    assert executor.stats["readback_bytes"] > 0


def test_results_unpack_as_pillow_rs_tuples(make_executor: Factory) -> None:
    # pillow-rs's BatchResult is a named tuple: code written for it unpacks and indexes it.
    sources = {key: make_image("RGB", (9, 7), seed) for seed, key in enumerate(("a", "b"))}
    executor = make_executor()
    jobs = [(key, ImageOps.invert(Image.from_pil(source))) for key, source in sources.items()]
    found = {}
    for job_id, key, image in executor.run(jobs):
        found[key] = (job_id, image)
    assert {key: job_id for key, (job_id, _) in found.items()} == {"a": 0, "b": 1}
    for key, (_, image) in found.items():
        assert_image_equal(image, PILImageOps.invert(sources[key]))
    executor.submit(ImageOps.invert(Image.from_pil(sources["a"])))
    (result,) = executor.join()
    assert result[0] == result.job_id == 2
    assert result[1] is None
    assert result[2] is result.image
    assert len(result) == 3
    assert result._fields == ("job_id", "input_key", "image")


def test_several_graphs_share_one_submission(make_executor: Factory) -> None:
    sources = [make_image("RGB", (9, 7), seed) for seed in range(12)]
    executor = make_executor()
    results = list(
        executor.run((i, ImageOps.invert(Image.from_pil(s))) for i, s in enumerate(sources))
    )
    assert executor.stats["submissions"] == 1
    assert executor.stats["largest_submission"] == len(sources)
    assert executor.stats["dispatches"] >= len(sources)
    for result in results:
        assert_image_equal(result.image, PILImageOps.invert(sources[int(result.input_key)]))  # type: ignore[arg-type]


def test_arena_stays_charged_until_its_last_range_is_consumed(make_executor: Factory) -> None:
    lazies = [ImageOps.invert(Image.new("L", (40, 30), v)) for v in range(4)]
    staging = plan_graph(lazies[0]).staging_nbytes
    executor = make_executor()
    results = executor.run(enumerate(lazies))
    consumed = [next(results)]
    assert executor.stats["submissions"] == 1
    # Working buffers retired after the copy; the whole 4-range arena is still charged.
    assert executor.stats["gpu_bytes"] == 4 * staging
    consumed += [next(results), next(results)]
    assert executor.stats["gpu_bytes"] == 4 * staging
    consumed.append(next(results))
    assert executor.stats["gpu_bytes"] == 0
    assert executor.stats["host_bytes"] == 0
    assert sorted(r.image.getpixel((0, 0)) for r in consumed) == [252, 253, 254, 255]
    with pytest.raises(StopIteration):
        next(results)


def test_long_lazy_stream_pulls_at_most_one_lookahead(make_executor: Factory) -> None:
    pulled: list[int] = []
    max_jobs = 4

    def jobs() -> Iterator[tuple[str, Any]]:
        for index in range(100_000):
            pulled.append(index)
            yield f"key-{index % 3}", ImageOps.invert(Image.new("L", (5, 4), index % 256))

    executor = make_executor(max_jobs=max_jobs, max_in_flight=2)
    delivered: dict[int, str] = {}
    with executor.run(jobs()) as results:
        for result in results:
            delivered[result.job_id] = str(result.input_key)
            assert len(pulled) <= len(delivered) + max_jobs + 1
            assert executor.stats["live_jobs"] <= max_jobs
            assert executor.stats["in_flight"] <= 2
            # job IDs match inputs one to one here; keys repeat, IDs do not.
            assert result.input_key == f"key-{result.job_id % 3}"
            assert result.image.getpixel((0, 0)) == 255 - result.job_id % 256
            if len(delivered) == 30:
                break
    assert len(pulled) <= 30 + max_jobs + 1
    assert len(set(delivered.values())) == 3


def test_run_retries_inputs_that_do_not_fit_after_draining(make_executor: Factory) -> None:
    probe = make_executor()
    probe.submit(ImageOps.invert(Image.new("L", (64, 64))))
    one_job = probe.stats["gpu_bytes"]
    probe.close()
    executor = make_executor(gpu_bytes=2 * one_job)
    values = list(range(10))
    results = list(executor.run((v, ImageOps.invert(Image.new("L", (64, 64), v))) for v in values))
    assert sorted(r.input_key for r in results) == values  # type: ignore[type-var]
    for result in results:
        assert result.image.getpixel((10, 10)) == 255 - int(result.input_key)  # type: ignore[arg-type]
    assert executor.stats["submissions"] >= 5  # at most two jobs could ever be live


def test_queue_true_submit_and_join_creation_do_no_gpu_work(make_executor: Factory) -> None:
    executor = make_executor()
    ids = [executor.submit(ImageOps.invert(Image.new("L", (6, 6), v))) for v in (1, 2, 3)]
    joined = executor.join()
    assert executor.stats["submissions"] == 0
    assert executor.stats["live_jobs"] == 3
    by_id = {result.job_id: result.image for result in joined}
    assert sorted(by_id) == ids
    assert [by_id[i].getpixel((0, 0)) for i in ids] == [254, 253, 252]


def test_queue_false_completes_each_job_in_submit(make_executor: Factory) -> None:
    executor = make_executor(queue=False, max_jobs=2)
    first = executor.submit(ImageOps.invert(Image.new("L", (6, 6), 1)))
    assert (executor.stats["submissions"], executor.stats["in_flight"]) == (1, 0)
    executor.submit(ImageOps.invert(Image.new("L", (6, 6), 2)))
    assert executor.stats["submissions"] == 2
    assert executor.stats["live_jobs"] == 2  # undelivered results still occupy the window
    with pytest.raises(QueueFull):
        executor.submit(ImageOps.invert(Image.new("L", (6, 6), 3)))
    results = list(executor.join())
    assert executor.stats["submissions"] == 2
    assert results[0].job_id == first
    assert [r.image.getpixel((0, 0)) for r in results] == [254, 253]


def test_exhausted_stream_allows_another(make_executor: Factory) -> None:
    executor = make_executor()
    first = list(executor.run([("a", ImageOps.invert(Image.new("L", (3, 3), 0)))]))
    second = list(executor.run([("b", ImageOps.invert(Image.new("L", (3, 3), 1)))]))
    executor.submit(ImageOps.invert(Image.new("L", (3, 3), 2)))
    third = list(executor.join())
    assert [r.input_key for r in first + second + third] == ["a", "b", None]
    assert [r.job_id for r in first + second + third] == [0, 1, 2]
    assert credits_now(executor) == {
        "gpu_bytes": 0,
        "host_bytes": 0,
        "live_jobs": 0,
        "in_flight": 0,
    }


def test_cached_graph_is_not_replayed(make_executor: Factory) -> None:
    source = make_image("RGB", (7, 5))
    lazy = ImageOps.invert(Image.from_pil(source))
    lazy.to_pil()  # completes the graph on the CPU; the executor uploads its pixels
    executor = make_executor()
    (result,) = executor.run([("cached", lazy)])
    assert executor.stats["dispatches"] == 0
    assert_image_equal(result.image, PILImageOps.invert(source))


def test_run_with_queue_false_submits_each_job_alone(make_executor: Factory) -> None:
    sources = [make_image("RGBA", (6, 4), seed) for seed in range(5)]
    executor = make_executor(queue=False)
    results = list(
        executor.run(
            (i, Image.from_pil(s).filter(ImageFilter.MedianFilter(3)))
            for i, s in enumerate(sources)
        )
    )
    assert executor.stats["submissions"] == len(sources)
    assert executor.stats["largest_submission"] == 1
    for result in results:
        source = sources[int(result.input_key)]  # type: ignore[arg-type]
        assert_image_equal(result.image, source.filter(PILImageFilter.MedianFilter(3)))
