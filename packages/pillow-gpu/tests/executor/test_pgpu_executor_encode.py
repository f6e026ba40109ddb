"""Encoding: jobs of a submission share one command buffer, yet an encode failure stays scoped."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu.executor import ExecutionError
from pillow_gpu.gpu import _stack

from .conftest import ZERO_KEYS, credits_now

Factory = Callable[..., GpuBatchExecutor]


def _inverted(value: int) -> Image.Image:
    return ImageOps.invert(Image.new("L", (5, 5), value))


def test_jobs_of_a_submission_share_one_command_buffer(make_executor: Factory) -> None:
    executor = make_executor()
    for value in (1, 2, 3):
        executor.submit(_inverted(value))
    pixels = sorted(result.image.getpixel((0, 0)) for result in executor.join())
    assert pixels == [252, 253, 254]
    assert executor.stats["submissions"] == 1


@pytest.mark.parametrize("output", ["cpu", "gpu"])
def test_encode_failure_is_job_scoped(
    make_executor: Factory, monkeypatch: pytest.MonkeyPatch, output: str
) -> None:
    lazies = [_inverted(value) for value in (10, 20, 30)]
    broken = lazies[1].node
    encode = _stack._encode_dispatches

    def failing_encode(compute: Any, run: list[Any], current: list[Any]) -> int:
        if any(plan.root is broken for plan, _, _ in run):  # fault injection: recording fails
            raise RuntimeError("injected encode failure")
        return encode(compute, run, current)

    monkeypatch.setattr(_stack, "_encode_dispatches", failing_encode)
    executor = make_executor()
    results = executor.run(enumerate(lazies), output=output)
    delivered: dict[Any, int] = {}
    errors: list[ExecutionError] = []
    while True:
        try:
            result = next(results)
        except StopIteration:
            break
        except ExecutionError as error:
            errors.append(error)
            continue
        image = result.image.download() if output == "gpu" else result.image
        delivered[result.input_key] = image.getpixel((0, 0))
    assert [(error.input_key, error.stage) for error in errors] == [(1, "encode")]
    assert "injected encode failure" in str(errors[0])
    assert delivered == {0: 245, 2: 225}
    assert executor.stats["submissions"] == 1
    del result, image
    executor.close()
    assert credits_now(executor) == dict.fromkeys(ZERO_KEYS, 0)


def test_a_failed_submit_names_its_first_job_and_returns_every_credit(
    make_executor: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pillow_gpu.executor._submission import Submission

    def failing_submit(submission: Submission, counters: Any) -> None:
        raise RuntimeError("injected submit failure")  # fault injection: queue.submit fails

    monkeypatch.setattr(Submission, "submit", failing_submit)
    executor = make_executor()
    with pytest.raises(ExecutionError) as info:
        list(executor.run((f"job{value}", _inverted(value)) for value in (10, 20, 30)))
    error = info.value
    assert (error.stage, error.job_id, error.input_key) == ("submission", 0, "job10")
    assert "injected submit failure" in error.observed
    assert credits_now(executor) == dict.fromkeys(ZERO_KEYS, 0)
