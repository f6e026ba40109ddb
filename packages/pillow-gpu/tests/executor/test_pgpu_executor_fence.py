"""Fences: a submission completes even when wgpu's poll thread does not resolve its map.

wgpu-py resolves buffer maps from a per-device poll thread (or from a later ``queue.submit``).
These tests stall that thread (fault injection: its poll function blocks on a gate until the
test ends), so the only way a map can resolve is the executor's own device poll in
:meth:`MapFence.wait`. Without it the last submission of a batch (no later submit) stays
pending until ``submission_timeout``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from PIL import ImageChops
from pillow_gpu import GpuBatchExecutor, Image, ImageFilter, ImageOps
from pillow_gpu._testing import make_image
from pillow_gpu.executor import ExecutionError
from pillow_gpu.gpu._device import get_device

from .conftest import ZERO_KEYS, credits_now

Factory = Callable[..., GpuBatchExecutor]
ZERO = dict.fromkeys(ZERO_KEYS, 0)
#: Far above one small submission (well under a second here), far below a CI job's patience.
TIMEOUT_S = 20.0


@contextmanager
def _stalled_poll_thread() -> Iterator[threading.Event]:
    """Make wgpu's poll thread block before its next poll until the block exits.

    Yields an event that is set once the thread has entered the stalled poll (the proof that
    the fault was injected while work was pending).
    """
    poller = get_device().device._poller
    assert poller is not None, "the device has no poll thread"
    assert poller.is_alive(), "wgpu's poll thread is not running"
    real = poller._poll_func
    gate, entered = threading.Event(), threading.Event()

    def stalled(block: bool) -> None:
        entered.set()
        gate.wait()
        real(block)

    poller._poll_func = stalled
    try:
        yield entered
    finally:
        poller._poll_func = real
        gate.set()


def _warm(executor: GpuBatchExecutor) -> None:
    """Run one job first so the poll thread is idle (waiting for a token) when it is stalled."""
    (result,) = executor.run([(0, ImageOps.invert(Image.new("L", (4, 4), 3)))])
    assert result.image.getpixel((0, 0)) == 252


@pytest.mark.parametrize("size", [(7, 5), (64, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("mode", ["L", "RGB"])
@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_submission_completes_with_a_stalled_poll_thread(
    make_executor: Factory, output: str, mode: str, size: tuple[int, int]
) -> None:
    source = make_image(mode, size)
    executor = make_executor(submission_timeout=TIMEOUT_S)
    _warm(executor)
    with _stalled_poll_thread() as entered:
        started = time.monotonic()
        (result,) = executor.run([("only", ImageOps.invert(Image.from_pil(source)))], output)
        image = result.image if output == "cpu" else result.image.download()
        elapsed = time.monotonic() - started
        assert entered.is_set(), "the poll thread was never asked to poll: nothing was stalled"
    expected = ImageChops.invert(source)
    assert (image.mode, image.size) == (expected.mode, expected.size)
    assert image.tobytes() == expected.tobytes()
    assert elapsed < TIMEOUT_S / 2, f"completed only after {elapsed:.1f} s"
    del result
    assert executor.stats["in_flight"] == 0


def test_pipelined_submissions_complete_with_a_stalled_poll_thread(
    make_executor: Factory,
) -> None:
    sources = [make_image("RGB", (33, 17), seed=seed) for seed in range(6)]
    executor = make_executor(submission_timeout=TIMEOUT_S, max_in_flight=2, max_jobs=2)
    _warm(executor)
    blur = ImageFilter.GaussianBlur(2)
    jobs = [(i, Image.from_pil(source).filter(blur)) for i, source in enumerate(sources)]
    with _stalled_poll_thread() as entered:
        results = list(executor.run(jobs))
        assert entered.is_set()
    assert [r.input_key for r in results] == list(range(len(sources)))
    for result, source in zip(results, sources, strict=True):
        assert result.image.tobytes() == source.filter(blur).tobytes()
    assert credits_now(executor) == ZERO


def test_timeout_error_says_what_was_observed(make_executor: Factory) -> None:
    # Three blurs of 4 MPixel: far longer than the wait's first 50 ms poll on any adapter
    # here (one 1 MPixel blur sometimes finished within it on lavapipe).
    source = make_image("RGBA", (2048, 2048))
    executor = make_executor(submission_timeout=0.001)
    blur = ImageFilter.GaussianBlur(30)
    executor.submit(Image.from_pil(source).filter(blur).filter(blur).filter(blur))
    with pytest.raises(ExecutionError, match="submission timeout") as info:
        list(executor.join())
    observed, fix = info.value.observed, info.value.fix
    assert "submission of 1 job(s)" in observed
    assert "submission_timeout 0.001 s" in observed
    assert "poll thread is alive" in observed
    assert "s after its submit" in observed
    assert "raise submission_timeout" in fix
    assert "CPU contention" in fix
    assert credits_now(executor) == ZERO
