"""Admission: constructor validation, job IDs, credits, QueueFull, hard caps, keys, metadata."""

from __future__ import annotations

import enum
import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage
from PIL.PngImagePlugin import iTXt
from PIL.TiffImagePlugin import IFDRational
from pillow_gpu import GpuBatchExecutor, Image, ImageOps, QueueFull
from pillow_gpu.errors import Limit, Unsupported
from pillow_gpu.executor import MAX_JOB_ID, BatchError, BatchLimit, BatchUnsupported
from pillow_gpu.executor._identity import JobIds
from pillow_gpu.gpu._device import SharedDevice

Factory = Callable[..., GpuBatchExecutor]


def _inverted(value: int = 7, size: tuple[int, int] = (8, 8)) -> Image.Image:
    return ImageOps.invert(Image.new("L", size, value))


def _masked_paste() -> Image.Image:
    """A graph the planner rejects as Unsupported (masked paste of 16-bit images has no
    proven route)."""
    image = Image.new("I;16", (4, 4))
    image.paste(Image.new("I;16", (2, 2)), (0, 0), Image.new("L", (2, 2)))
    return image


def test_defaults(make_executor: Factory) -> None:
    executor = make_executor()
    assert executor.queue is True
    assert executor.max_in_flight == 2
    assert executor.max_submission_work == 2_000_000_000
    caps = executor._credits.caps
    assert (caps.gpu_bytes, caps.host_bytes, caps.jobs) == (1 << 30, 1 << 30, 64)
    assert dict(executor.stats) == {
        "gpu_bytes": 0,
        "host_bytes": 0,
        "live_jobs": 0,
        "in_flight": 0,
        "submitted_jobs": 0,
        "submissions": 0,
        "dispatches": 0,
        "dispatch_calls": 0,
        "shader_work": 0,
        "upload_bytes": 0,
        "readback_bytes": 0,
        "largest_submission": 0,
        "largest_submission_work": 0,
    }


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"gpu_bytes": 0}, ValueError),
        ({"host_bytes": -1}, ValueError),
        ({"max_jobs": 0}, ValueError),
        ({"max_in_flight": 0}, ValueError),
        ({"max_jobs": True}, TypeError),
        ({"gpu_bytes": 1.5}, TypeError),
        ({"queue": 1}, TypeError),
        ({"submission_timeout": 0}, ValueError),
        ({"max_submission_work": 0}, ValueError),
        ({"max_submission_work": 1e9}, TypeError),
    ],
    ids=[
        "gpu0",
        "host-neg",
        "jobs0",
        "inflight0",
        "jobs-bool",
        "gpu-float",
        "queue-int",
        "t0",
        "work0",
        "work-float",
    ],
)
def test_constructor_validation(kwargs: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error, match=r"why: .*observed.*fix"):
        GpuBatchExecutor(**kwargs)  # type: ignore[arg-type]


def test_ids_monotonic_and_rejections_consume_ids(make_executor: Factory) -> None:
    executor = make_executor(max_jobs=2)
    assert executor.submit(_inverted()) == 0
    with pytest.raises(Unsupported) as rejected:
        executor.submit(_masked_paste())
    assert rejected.value.job_id == 1
    assert executor.submit(_inverted()) == 2
    with pytest.raises(QueueFull) as full:
        executor.submit(_inverted())
    assert (full.value.job_id, full.value.kind, full.value.stage) == (3, "QueueFull", "admission")
    assert isinstance(full.value, BatchError)
    assert [result.job_id for result in executor.join()] == [0, 2]
    assert executor.submit(_inverted()) == 4  # a retry gets a new ID
    assert [result.job_id for result in executor.join()] == [4]
    assert executor.stats["submitted_jobs"] == 3


def test_unsupported_rejection_names_its_job(make_executor: Factory) -> None:
    executor = make_executor()
    executor.submit(_inverted())
    with pytest.raises(BatchUnsupported) as info:
        executor.submit(_masked_paste())
    error = info.value
    assert isinstance(error, Unsupported)
    assert (error.job_id, error.input_key, error.kind, error.stage) == (
        1,
        None,
        "Unsupported",
        "admission",
    )
    assert "observed" in str(error)
    assert "fix" in str(error)
    assert len(list(executor.join())) == 1


def test_queue_full_when_bytes_do_not_fit(make_executor: Factory) -> None:
    probe = make_executor()
    probe.submit(_inverted(size=(64, 64)))
    one_job = probe.stats["gpu_bytes"]
    probe.close()
    executor = make_executor(gpu_bytes=one_job + one_job // 2)
    executor.submit(_inverted(size=(64, 64)))
    with pytest.raises(QueueFull, match="does not fit beside live work"):
        executor.submit(_inverted(size=(64, 64)))
    assert executor.stats["gpu_bytes"] == one_job
    assert executor.stats["live_jobs"] == 1
    (result,) = executor.join()
    assert result.image.getpixel((0, 0)) == 248


def _png_bytes(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("L", size, 9).save(buffer, "PNG")
    return buffer.getvalue()


def test_over_cap_job_fails_with_limit_before_decode_or_allocation(
    make_executor: Factory, device: SharedDevice, tmp_path: Path
) -> None:
    path = tmp_path / "source.png"
    path.write_bytes(_png_bytes((256, 256)))
    lazy = ImageOps.invert(Image.open(path))
    path.write_bytes(b"not a png any more")  # a decode attempt would fail with OSError
    executor = make_executor(gpu_bytes=64 << 10)
    buffers_before = device.buffers_created
    with pytest.raises(BatchLimit) as info:
        executor.submit(lazy)
    assert isinstance(info.value, Limit)
    assert (info.value.kind, info.value.stage, info.value.job_id) == ("Limit", "admission", 0)
    assert "gpu_bytes" in info.value.observed
    assert device.buffers_created == buffers_before
    assert lazy.node.inputs[0].cache.get() is None  # never decoded


def test_over_cap_job_in_run_is_limit(make_executor: Factory) -> None:
    executor = make_executor(host_bytes=4096)
    with pytest.raises(BatchLimit, match="host_bytes") as info:
        list(executor.run([("big", _inverted(size=(128, 128)))]))
    assert info.value.input_key == "big"


def test_job_id_overflow_errors_instead_of_wrapping(make_executor: Factory) -> None:
    executor = make_executor()
    executor._ids = JobIds(start=MAX_JOB_ID)
    assert executor.submit(_inverted()) == MAX_JOB_ID
    with pytest.raises(BatchLimit, match="every unsigned 64-bit job ID"):
        executor.submit(_inverted())
    assert [result.job_id for result in executor.join()] == [MAX_JOB_ID]


def test_submit_rejects_non_images_before_an_id(make_executor: Factory) -> None:
    executor = make_executor()
    with pytest.raises(TypeError, match="lazy pillow_gpu images"):
        executor.submit(PILImage.new("L", (2, 2)))
    assert executor.submit(_inverted()) == 0
    assert len(list(executor.join())) == 1


@pytest.mark.parametrize(
    ("key", "error"),
    [
        (True, TypeError),
        (np.bool_(True), TypeError),
        (1.0, TypeError),
        (np.float64(1.0), TypeError),
        (None, TypeError),
        (b"k", TypeError),
        (("a", 1), TypeError),
        (-1, ValueError),
        (np.int64(-1), ValueError),
        (MAX_JOB_ID + 1, ValueError),
    ],
    ids=[
        "bool",
        "numpy-bool",
        "float",
        "numpy-float",
        "none",
        "bytes",
        "tuple",
        "negative",
        "numpy-negative",
        "too-big",
    ],
)
def test_invalid_keys_rejected(make_executor: Factory, key: object, error: type) -> None:
    executor = make_executor()
    pulled: list[object] = []

    def jobs():  # type: ignore[no-untyped-def]
        for item in [("ok", _inverted()), (key, _inverted()), ("never", _inverted())]:
            pulled.append(item[0])
            yield item

    results = executor.run(jobs())
    with pytest.raises(error, match="fix"):
        list(results)
    assert pulled == ["ok", key]  # the invalid key stops reading later inputs
    results.close()


@pytest.mark.parametrize(
    ("make_input", "observed"),
    [
        (_inverted, "type Image"),
        (lambda: ("k", _inverted(), "extra"), "type tuple"),
        (lambda: None, "type NoneType"),
    ],
    ids=["bare-image", "triple", "none"],
)
def test_inputs_that_are_not_pairs_are_rejected(
    make_executor: Factory, make_input: Callable[[], object], observed: str
) -> None:
    # A lazy image passed where run() reads (input_key, lazy_image): the error says so.
    executor = make_executor()
    results = executor.run([("ok", _inverted()), make_input(), ("never", _inverted())])
    with pytest.raises(TypeError, match=f"pairs; observed an input of {observed}.*enumerate"):
        list(results)
    results.close()


@pytest.mark.parametrize("key", ["", "a/b.png", 0, MAX_JOB_ID], ids=["empty", "str", "0", "max"])
def test_valid_keys_round_trip(make_executor: Factory, key: str | int) -> None:
    executor = make_executor()
    (result,) = executor.run([(key, _inverted())])
    assert result.input_key == key
    assert type(result.input_key) is type(key)


class _ShoutingStr(str):
    __slots__ = ()

    def __str__(self) -> str:
        return "overridden"


class _Color(enum.IntEnum):
    RED = 3


class _Name(enum.StrEnum):
    FRAME = "frame-1"


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (_ShoutingStr("a.png"), "a.png"),
        (_Color.RED, 3),
        (_Name.FRAME, "frame-1"),
        (np.uint64(MAX_JOB_ID), MAX_JOB_ID),
        (np.int32(7), 7),
    ],
    ids=["str-subclass", "int-enum", "str-enum", "numpy-uint64-max", "numpy-int32"],
)
def test_keys_are_normalized_to_exact_base_values(
    make_executor: Factory, key: object, expected: str | int
) -> None:
    executor = make_executor()
    (result,) = executor.run([(key, _inverted())])
    assert result.input_key == expected
    assert type(result.input_key) is type(expected)
    assert result.input_key is not key


def _with_info(info: dict[str, object]) -> Image.Image:
    source = PILImage.new("L", (4, 4), 3)
    source.info.update(info)
    return ImageOps.invert(Image.from_pil(source))


class _Custom:
    pass


class _Str(str):
    __slots__ = ()


@pytest.mark.parametrize(
    "bad",
    [_Custom(), _Str("x"), {"nested": [_Custom()]}, bytearray(b"x"), {1, _Custom()}],
    ids=["object", "str-subclass", "nested-object", "bytearray", "set-of-object"],
)
def test_metadata_rejects_custom_objects(make_executor: Factory, bad: object) -> None:
    executor = make_executor()
    with pytest.raises(BatchUnsupported, match="metadata") as info:
        executor.submit(_with_info({"bad": bad}))
    assert info.value.job_id == 0


def test_metadata_depth_is_bounded(make_executor: Factory) -> None:
    deep: object = 1
    for _ in range(10):
        deep = [deep]
    executor = make_executor()
    with pytest.raises(BatchLimit, match="nest at most"):
        executor.submit(_with_info({"deep": deep}))


def test_metadata_snapshot_is_independent(make_executor: Factory) -> None:
    nested: dict[str, object] = {"list": [1, 2], "bytes": b"ab", "pair": (1.5, None)}
    source = PILImage.new("L", (4, 4), 3)
    source.info["meta"] = nested
    lazy = ImageOps.invert(Image.from_pil(source))
    executor = make_executor()
    executor.submit(lazy)
    executor.submit(lazy)
    charged = executor.stats["host_bytes"]
    nested["list"].append(list(range(10_000)))  # type: ignore[attr-defined]
    source.info["meta"]["grown"] = "x" * 100_000
    assert executor.stats["host_bytes"] == charged
    first, second = executor.join()
    for result in (first, second):
        assert result.image.info["meta"] == {"list": [1, 2], "bytes": b"ab", "pair": (1.5, None)}
    first.image.info["meta"]["list"].append(3)
    assert second.image.info["meta"]["list"] == [1, 2]


def test_each_result_owns_pillows_metadata_values(make_executor: Factory) -> None:
    rational = IFDRational(300, 1)
    text = iTXt("a caption", "en", "Caption")
    info: dict[str, object] = {
        "dpi": (rational, IFDRational(72, 1)),
        "text": text,
        "set": frozenset({1, 2}),
        "nested": {"values": [rational, b"raw"]},
    }
    lazy = _with_info(info)
    executor = make_executor()
    executor.submit(lazy)
    executor.submit(lazy)
    first, second = executor.join()
    for result in (first, second):
        assert result.image.info == info
        dpi = result.image.info["dpi"]
        assert [type(value) for value in dpi] == [IFDRational, IFDRational]
        assert dpi[0] is not rational
        copied = result.image.info["text"]
        assert type(copied) is iTXt
        assert (str(copied), copied.lang, copied.tkey) == ("a caption", "en", "Caption")
        assert copied is not text
    assert first.image.info["dpi"][0] is not second.image.info["dpi"][0]
    assert first.image.info["text"] is not second.image.info["text"]
    first.image.info["nested"]["values"].append(3)
    assert second.image.info["nested"]["values"] == [rational, b"raw"]
