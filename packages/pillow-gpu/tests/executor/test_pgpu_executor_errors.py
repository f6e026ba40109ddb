"""Errors: job-scoped kinds and identity, stopping the input stream, execution failures."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image as PILImage
from pillow_gpu import (
    BatchError,
    GpuBatchExecutor,
    Image,
    ImageFilter,
    ImageOps,
    QueueFull,
    ResultBackpressure,
)
from pillow_gpu._testing import make_image
from pillow_gpu.errors import DeviceError, GpuError, Limit, Unsupported
from pillow_gpu.executor import (
    BatchDecodeError,
    BatchLimit,
    BatchUnsupported,
    ExecutionError,
    StateError,
    _fence,
)
from pillow_gpu.executor._fence import _internals_error

from .conftest import ZERO_KEYS, credits_now

Factory = Callable[..., GpuBatchExecutor]
ZERO = dict.fromkeys(ZERO_KEYS, 0)


def _inverted(value: int = 1) -> Image.Image:
    return ImageOps.invert(Image.new("L", (5, 5), value))


def _unsupported() -> Image.Image:
    """A graph the planner refuses (a masked paste of 16-bit images has no proven route)."""
    image = Image.new("I;16", (4, 4))
    image.paste(Image.new("I;16", (2, 2)), (0, 0), Image.new("L", (2, 2)))
    return image


def test_error_hierarchy() -> None:
    assert issubclass(QueueFull, BatchError)
    assert issubclass(ResultBackpressure, BatchError)
    assert issubclass(BatchError, GpuError)
    assert issubclass(BatchUnsupported, Unsupported)
    assert issubclass(BatchUnsupported, ValueError)
    assert issubclass(BatchLimit, Limit)
    assert issubclass(ExecutionError, DeviceError)
    # pillow-rs's BatchError is a RuntimeError: its users' ``except RuntimeError`` still works.
    for cls in (QueueFull, ResultBackpressure, BatchUnsupported, BatchLimit, StateError):
        assert issubclass(cls, RuntimeError), cls
    assert issubclass(BatchDecodeError, OSError)
    kinds = {
        cls.kind
        for cls in (
            QueueFull,
            ResultBackpressure,
            BatchUnsupported,
            BatchLimit,
            StateError,
            ExecutionError,
            BatchDecodeError,
        )
    }
    assert kinds == {
        "QueueFull",
        "ResultBackpressure",
        "Unsupported",
        "Limit",
        "State",
        "Execution",
        "Decode",
    }


def test_queue_full_is_caught_as_runtime_error(make_executor: Factory) -> None:
    executor = make_executor(max_jobs=1)
    executor.submit(_inverted())
    with pytest.raises(RuntimeError, match="does not fit beside live work"):
        executor.submit(_inverted(2))
    assert [result.job_id for result in executor.join()] == [0]


def test_unsupported_input_stops_reading_later_inputs(make_executor: Factory) -> None:
    pulled: list[str] = []

    def jobs() -> Iterator[tuple[str, Image.Image]]:
        for key, image in (("a", _inverted(1)), ("bad", _unsupported()), ("c", _inverted(3))):
            pulled.append(key)
            yield key, image

    executor = make_executor()
    results = executor.run(jobs())
    with pytest.raises(BatchUnsupported) as info:
        next(results)
    error = info.value
    assert (error.job_id, error.input_key, error.stage, error.kind) == (
        1,
        "bad",
        "admission",
        "Unsupported",
    )
    assert pulled == ["a", "bad"]
    delivered = [(r.input_key, r.image.getpixel((0, 0))) for r in results]
    assert delivered == [("a", 254)]  # admitted work is still delivered
    assert pulled == ["a", "bad"]
    assert credits_now(executor) == ZERO


def test_producer_exception_propagates_and_stops_reading(make_executor: Factory) -> None:
    def jobs() -> Iterator[tuple[int, Image.Image]]:
        yield 0, _inverted()
        raise KeyError("producer broke")

    executor = make_executor()
    results = executor.run(jobs())
    with pytest.raises(KeyError, match="producer broke"):
        next(results)
    assert [r.input_key for r in results] == [0]


def test_malformed_item_raises(make_executor: Factory) -> None:
    executor = make_executor()
    results = executor.run([_inverted()])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        next(results)
    assert list(results) == []


def _png(size: tuple[int, int], value: int) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("L", size, value).save(buffer, "PNG")
    return buffer.getvalue()


def test_decode_failure_is_job_scoped(make_executor: Factory, tmp_path: Path) -> None:
    good = tmp_path / "good.png"
    bad = tmp_path / "bad.png"
    good.write_bytes(_png((6, 4), 10))
    bad.write_bytes(_png((6, 4), 20))
    lazies = [ImageOps.invert(Image.open(path)) for path in (good, bad, good)]
    bad.write_bytes(b"garbage, no longer a PNG")  # decoding happens only at allocation
    executor = make_executor()
    ids = [executor.submit(lazy) for lazy in lazies]
    results = executor.join()
    with pytest.raises(BatchDecodeError) as info:
        next(results)
    error = info.value
    assert isinstance(error, OSError)
    assert (error.job_id, error.input_key, error.stage, error.kind) == (
        ids[1],
        None,
        "decode",
        "Decode",
    )
    rest = list(results)
    assert [r.job_id for r in rest] == [ids[0], ids[2]]
    assert all(r.image.getpixel((0, 0)) == 245 for r in rest)
    assert credits_now(executor) == ZERO


def test_submission_timeout_fails_the_executor(
    make_executor: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A wait looks at its deadline between polls: with the default 50 ms poll a blur that ends
    # sooner is never late, so the poll is shortened to well below the blur's time.
    monkeypatch.setattr(_fence, "_POLL_S", 0.0002)
    source = make_image("RGBA", (1024, 1024))
    executor = make_executor(submission_timeout=0.001)
    job_id = executor.submit(Image.from_pil(source).filter(ImageFilter.GaussianBlur(30)))
    with pytest.raises(ExecutionError, match="submission timeout") as info:
        list(executor.join())
    assert (info.value.job_id, info.value.stage) == (job_id, "execution")
    assert credits_now(executor) == ZERO
    with pytest.raises(StateError, match="failed"):
        executor.submit(_inverted())
    assert executor.closed
    executor.close()  # no-op on a failed executor
    # The shared device is still usable by a new executor.
    fresh = make_executor()
    (result,) = fresh.run([(0, _inverted(9))])
    assert result.image.getpixel((0, 0)) == 246


_DEVICE_LOSS_SCRIPT = """
import logging
from pillow_gpu import GpuBatchExecutor, Image, ImageOps
from pillow_gpu.executor import ExecutionError, StateError

executor = GpuBatchExecutor()
(result,) = executor.run([("kept", ImageOps.invert(Image.new("L", (4, 4), 1)))], output="gpu")
executor.submit(ImageOps.invert(Image.new("L", (4, 4), 2)))
logging.getLogger("wgpu").error("The WGPU device was lost")  # what wgpu-native logs
try:
    list(executor.join())
except ExecutionError as error:
    assert error.kind == "Execution", error
    assert "device was lost" in str(error), error
else:
    raise AssertionError("device loss was not reported")
assert dict(executor.stats)["live_jobs"] == 0
try:
    executor.submit(ImageOps.invert(Image.new("L", (4, 4), 3)))
except StateError:
    pass
else:
    raise AssertionError("a failed executor accepted work")
try:
    result.image.download()
except ExecutionError as error:
    assert error.stage == "download", error
else:
    raise AssertionError("download after device loss did not fail")
print("ok")
"""


def test_device_loss_fails_the_executor() -> None:
    # wgpu-py reports device loss only through its logger; the real message is emitted in a
    # separate process so the flag cannot leak into this one. The device itself is not lost.
    completed = subprocess.run(
        [sys.executable, "-c", _DEVICE_LOSS_SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip().endswith("ok")


def test_wgpu_internals_error_is_explicit() -> None:
    import wgpu  # type: ignore[import-untyped]

    error = _internals_error("GPUPromise has no _thread_event")
    assert (error.kind, error.stage) == ("Execution", "startup")
    assert wgpu.__version__ in error.observed
    assert "_thread_event" in str(error)
    assert "wgpu>=0.31.1,<0.32" in error.fix


def test_wgpu_internals_hold_on_this_wgpu(make_executor: Factory) -> None:
    executor = make_executor()
    assert _fence._checked  # the start-up check ran and passed on the installed wgpu
    (result,) = executor.run([(0, _inverted(4))])
    assert result.image.getpixel((0, 0)) == 251
