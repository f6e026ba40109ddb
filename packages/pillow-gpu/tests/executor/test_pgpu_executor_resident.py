"""Resident outputs: GpuImage handles, their reservations, backpressure and downloads."""

from __future__ import annotations

import copy
import gc
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image as PILImage
from PIL import ImageFilter as PILImageFilter
from pillow_gpu import GpuBatchExecutor, GpuImage, Image, ImageFilter, ResultBackpressure
from pillow_gpu._testing import MODES, assert_image_equal, make_image
from pillow_gpu.executor import BatchError
from pillow_gpu.gpu import plan_graph

from .conftest import ZERO_KEYS, credits_now

Factory = Callable[..., GpuBatchExecutor]
ZERO = dict.fromkeys(ZERO_KEYS, 0)


def _blurred(source: PILImage.Image) -> Image.Image:
    return Image.from_pil(source).filter(ImageFilter.BoxBlur(1))


@pytest.mark.parametrize("mode", MODES)
def test_gpu_output_downloads_match_pillow(make_executor: Factory, mode: str) -> None:
    sources = {seed: make_image(mode, (13 + seed, 7), seed) for seed in range(3)}
    for source in sources.values():
        source.info["seed"] = [id(source) % 7]
    executor = make_executor()
    results = list(executor.run(((k, _blurred(s)) for k, s in sources.items()), output="gpu"))
    assert executor.stats["readback_bytes"] == 0
    for result in results:
        handle = result.image
        assert isinstance(handle, GpuImage)
        source = sources[int(result.input_key)]  # type: ignore[arg-type]
        assert (handle.mode, handle.size) == (source.mode, source.size)
        downloaded = handle.download()
        assert_image_equal(downloaded, source.filter(PILImageFilter.BoxBlur(1)))
        assert downloaded.info["seed"] == source.info["seed"]
        assert_image_equal(handle.download(), downloaded)  # downloads repeat
    assert executor.stats["readback_bytes"] == 0  # explicit downloads are not counted
    assert executor.stats["live_jobs"] == 0
    assert executor.stats["gpu_bytes"] > 0  # the handles keep their reservation
    del results, result, handle
    gc.collect()
    assert credits_now(executor) == ZERO


def test_dropping_the_last_handle_releases_its_reservation(make_executor: Factory) -> None:
    executor = make_executor()
    (result,) = executor.run([(1, _blurred(make_image("L", (32, 32))))], output="gpu")
    clone = copy.copy(result.image)
    held = executor.stats["gpu_bytes"]
    assert held > 0
    assert executor.stats["host_bytes"] > 0
    del result
    assert executor.stats["gpu_bytes"] == held  # the clone still holds the lease
    del clone
    assert credits_now(executor) == ZERO


def test_a_handle_refuses_pickling_and_keeps_its_reservation(make_executor: Factory) -> None:
    import pickle

    executor = make_executor()
    (result,) = executor.run([(1, _blurred(make_image("L", (32, 32))))], output="gpu")
    held = credits_now(executor)
    with pytest.raises(TypeError, match=r"^why: a GpuImage is a handle on GPU memory .*download"):
        pickle.dumps(result.image)
    assert pickle.loads(pickle.dumps(result.image.download())).size == (32, 32)
    assert credits_now(executor) == held
    del result
    assert credits_now(executor) == ZERO


def test_a_handle_dropped_while_its_credits_are_locked_never_waits_nor_leaks(
    make_executor: Factory,
) -> None:
    # A garbage collection can run a lease's finalizer inside any locked section of the
    # executor's own thread; waiting for the lock there would deadlock. Holding the lock here
    # stands for that: the release must return at once and be applied by the next call.
    executor = make_executor()
    (result,) = executor.run([(1, _blurred(make_image("L", (32, 32))))], output="gpu")
    credits = executor._credits
    held = credits.charged
    assert held.gpu_bytes > 0
    with credits._lock:
        del result  # the last handle: its finalizer returns the charge
        assert credits._returned  # queued, not applied, not waiting
    assert credits_now(executor) == ZERO  # applied once the lock is free
    assert not credits._returned


def _pull_until_backpressure(results: Any, held: list[Any]) -> ResultBackpressure:
    while True:
        try:
            held.append(next(results))
        except ResultBackpressure as error:
            return error


def test_backpressure_is_retryable_and_keeps_the_lookahead(make_executor: Factory) -> None:
    plan = plan_graph(_blurred(make_image("L", (48, 48))))
    admitted = plan.gpu_bytes + plan.staging_nbytes  # working buffers + resident workspace
    one_lease = 2 * plan.staging_nbytes  # resident buffer + download workspace
    pulled: list[int] = []

    def jobs() -> Iterator[tuple[int, Image.Image]]:
        for index in range(12):
            pulled.append(index)
            yield index, _blurred(make_image("L", (48, 48), index))

    executor = make_executor(gpu_bytes=admitted + 4 * one_lease)
    results = executor.run(jobs(), output="gpu")
    held: list[Any] = []
    error = _pull_until_backpressure(results, held)
    assert isinstance(error, BatchError)
    assert (error.kind, error.stage) == ("ResultBackpressure", "admission")
    assert len(held) == 5  # four leases + one admission fit; the fifth lease blocks
    assert executor.stats["gpu_bytes"] == 5 * one_lease
    assert len(pulled) == len(held) + 1  # only the retained lookahead was pulled
    with pytest.raises(ResultBackpressure):  # still blocked while the handles are held
        next(results)
    assert len(pulled) == len(held) + 1
    keys = [int(r.input_key) for r in held]  # type: ignore[arg-type]
    kept = held[:2]
    held.clear()
    retried = next(results)
    assert retried.job_id == error.job_id  # the retained lookahead, not a new input
    assert retried.input_key == error.input_key
    keys.append(int(retried.input_key))  # type: ignore[arg-type]
    del retried
    for result in results:  # the loop variable holds one lease while the next is pulled
        keys.append(int(result.input_key))  # type: ignore[arg-type]
        expected = make_image("L", (48, 48), keys[-1]).filter(PILImageFilter.BoxBlur(1))
        assert_image_equal(result.image.download(), expected)
    assert sorted(keys) == list(range(12))
    for result in kept:  # held across the backpressure and still downloadable
        expected = make_image("L", (48, 48), int(result.input_key))  # type: ignore[arg-type]
        assert_image_equal(result.image.download(), expected.filter(PILImageFilter.BoxBlur(1)))
    assert len(pulled) == 12


def test_handles_stay_valid_after_close(make_executor: Factory) -> None:
    source = make_image("RGBA", (9, 9))
    with make_executor() as executor:
        (result,) = executor.run([("k", _blurred(source))], output="gpu")
    assert executor.closed
    assert executor.stats["gpu_bytes"] > 0
    assert_image_equal(result.image.download(), source.filter(PILImageFilter.BoxBlur(1)))
    del result
    assert credits_now(executor) == ZERO


def test_downloads_from_clones_serialize(make_executor: Factory) -> None:
    source = make_image("RGB", (40, 40))
    executor = make_executor()
    (result,) = executor.run([(0, _blurred(source))], output="gpu")
    clones = [copy.copy(result.image) for _ in range(4)]
    images: list[PILImage.Image] = []
    errors: list[BaseException] = []

    def download(handle: GpuImage) -> None:
        try:
            for _ in range(3):
                images.append(handle.download())
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=download, args=(clone,)) for clone in clones]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert len(images) == 12
    expected = source.filter(PILImageFilter.BoxBlur(1))
    for image in images:
        assert_image_equal(image, expected)
