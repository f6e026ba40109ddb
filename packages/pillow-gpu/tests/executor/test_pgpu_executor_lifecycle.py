"""Lifecycle: close/cancel, leaving ``with`` early, dropping Results, one driver only."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu.executor import StateError
from pillow_gpu.gpu._device import SharedDevice

from .conftest import ZERO_KEYS, credits_now

Factory = Callable[..., GpuBatchExecutor]
ZERO = dict.fromkeys(ZERO_KEYS, 0)


def _inverted(value: int = 5) -> Image.Image:
    return ImageOps.invert(Image.new("L", (6, 5), value))


class Producer:
    """An input iterator that records pulls and whether its close() was called."""

    def __init__(self, count: int = 1000) -> None:
        self.pulled = 0
        self.count = count
        self.closed = False

    def __iter__(self) -> Producer:
        return self

    def __next__(self) -> tuple[int, Image.Image]:
        if self.pulled >= self.count:
            raise StopIteration
        self.pulled += 1
        return self.pulled - 1, _inverted(self.pulled % 256)

    def close(self) -> None:
        self.closed = True


def test_close_drops_unsubmitted_work_without_dispatch(
    make_executor: Factory, device: SharedDevice
) -> None:
    executor = make_executor()
    for value in range(3):
        executor.submit(_inverted(value))
    before = device.buffers_created
    executor.close()
    assert executor.closed
    assert device.buffers_created == before
    assert (executor.stats["submissions"], executor.stats["dispatches"]) == (0, 0)
    assert credits_now(executor) == ZERO
    executor.close()  # idempotent
    with pytest.raises(StateError, match="closed") as info:
        executor.submit(_inverted())
    assert info.value.kind == "State"
    with pytest.raises(StateError):
        executor.join()


def test_close_fences_in_flight_submissions(make_executor: Factory) -> None:
    executor = make_executor()
    for value in range(4):
        executor.submit(_inverted(value))
    executor._launch()  # put the pending jobs in flight without consuming them
    assert executor.stats["in_flight"] == 1
    assert executor.stats["gpu_bytes"] > 0
    executor.close()
    assert credits_now(executor) == ZERO
    assert executor.stats["submissions"] == 1


def test_leaving_with_early_cancels_and_keeps_producer_open(make_executor: Factory) -> None:
    producer = Producer()
    with make_executor(max_jobs=4) as executor:
        with executor.run(producer) as results:
            for result in results:
                assert result.image.getpixel((0, 0)) == 255 - (result.job_id + 1) % 256
                break
        assert executor.closed
        assert credits_now(executor) == ZERO
    assert not producer.closed
    assert producer.pulled <= 1 + 4 + 1
    with pytest.raises(StopIteration):
        next(results)


def test_dropping_an_unfinished_results_cancels(make_executor: Factory) -> None:
    producer = Producer()
    executor = make_executor(max_jobs=3)
    results = executor.run(producer)
    next(results)
    assert executor.stats["live_jobs"] > 0
    del results
    gc.collect()
    assert executor.closed
    assert credits_now(executor) == ZERO
    assert not producer.closed
    pulled = producer.pulled
    with pytest.raises(StateError):
        executor.run(producer)
    assert producer.pulled == pulled


def test_executor_with_block_closes(make_executor: Factory) -> None:
    with make_executor() as executor:
        executor.submit(_inverted())
    assert executor.closed
    assert credits_now(executor) == ZERO


def test_open_stream_owns_the_executor(make_executor: Factory) -> None:
    executor = make_executor()
    results = executor.run(Producer(count=3))
    for call in (lambda: executor.submit(_inverted()), executor.join, lambda: executor.run([])):
        with pytest.raises(StateError, match="owns this executor"):
            call()
    assert len(list(results)) == 3
    assert executor.submit(_inverted()) == 3  # exhausted: the executor is free again
    assert len(list(executor.join())) == 1


def test_recursive_use_from_the_producer_is_rejected(make_executor: Factory) -> None:
    executor = make_executor()
    holder: dict[str, Any] = {}

    def jobs() -> Iterator[tuple[int, Image.Image]]:
        yield 0, _inverted()
        executor.submit(_inverted())  # the producer must not drive the executor
        yield 1, _inverted()

    def jobs_iterating() -> Iterator[tuple[int, Image.Image]]:
        yield 0, _inverted()
        next(holder["results"])

    results = executor.run(jobs())
    with pytest.raises(StateError, match="one driver"):
        list(results)
    # The rejected call stopped reading inputs; admitted work is still delivered.
    assert [result.input_key for result in results] == [0]
    assert credits_now(executor) == ZERO
    second = make_executor()
    holder["results"] = second.run(jobs_iterating())
    with pytest.raises(StateError, match="one driver"):
        list(holder["results"])
    holder["results"].close()


def test_concurrent_use_from_another_thread_is_rejected(make_executor: Factory) -> None:
    executor = make_executor()
    inside = threading.Event()
    release = threading.Event()

    def jobs() -> Iterator[tuple[int, Image.Image]]:
        inside.set()
        release.wait(10)
        yield 0, _inverted()

    outcome: list[BaseException | int] = []
    worker = threading.Thread(target=lambda: outcome.append(len(list(executor.run(jobs())))))
    worker.start()
    assert inside.wait(10)
    try:
        with pytest.raises(StateError, match="one driver"):
            executor.submit(_inverted())
        with pytest.raises(StateError, match="one driver"):
            executor.close()
    finally:
        release.set()
        worker.join(10)
    assert outcome == [1]


@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_delivered_submissions_are_freed_without_the_garbage_collector(
    make_executor: Factory, output: str
) -> None:
    """A retired submission (its staging arena, fence and job list) goes with its last
    reference, not with a later garbage collection: nothing of it is left in a cycle."""
    from pillow_gpu.executor._job import Job
    from pillow_gpu.executor._submission import Submission

    executor = make_executor(max_jobs=4, max_in_flight=2)
    gc.collect()
    gc.disable()
    try:
        for result in executor.run(((k, _inverted(k)) for k in range(10)), output=output):
            image = result.image if output == "cpu" else result.image.download()
            assert image.getpixel((0, 0)) == 255 - result.input_key
            del result, image
        left = [o for o in gc.get_objects() if isinstance(o, (Submission, Job))]
    finally:
        gc.enable()
    assert left == [], f"{len(left)} submission/job object(s) outlived the batch"
