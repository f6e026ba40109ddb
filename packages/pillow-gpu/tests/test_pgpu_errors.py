"""Structured GPU errors: fields, builtin bases, and the why/observed/fix message."""

from __future__ import annotations

import pytest
from pillow_gpu.errors import DeviceError, GpuError, Limit, Unsupported


@pytest.mark.parametrize(
    ("cls", "kind", "builtin"),
    [
        (Unsupported, "Unsupported", ValueError),
        (Limit, "Limit", RuntimeError),
        (DeviceError, "Device", RuntimeError),
    ],
    ids=["Unsupported", "Limit", "Device"],
)
def test_error_fields_and_bases(cls: type[GpuError], kind: str, builtin: type[Exception]) -> None:
    error = cls("the thing failed", observed="value 3", fix="use 4", stage="admission")
    assert isinstance(error, GpuError)
    assert isinstance(error, builtin)
    assert (error.kind, error.stage, error.job_id, error.input_key) == (
        kind,
        "admission",
        None,
        None,
    )
    assert str(error) == "why: the thing failed; observed: value 3; fix: use 4"


def test_with_job_keeps_the_type_message_and_cause() -> None:
    cause = KeyError("x")
    error = Limit("too big", observed="5 > 4", fix="shrink", stage="admission")
    error.__cause__ = cause
    bound = error.with_job(2**64 - 1, "frame-7")
    assert type(bound) is Limit
    assert (bound.job_id, bound.input_key) == (2**64 - 1, "frame-7")
    assert str(bound) == str(error)
    assert bound.__cause__ is cause
    assert (error.job_id, error.input_key) == (None, None)


def _every_error() -> list[GpuError]:
    from pillow_gpu.errors import DecodeError
    from pillow_gpu.executor._errors import (
        BatchDecodeError,
        BatchError,
        BatchLimit,
        BatchUnsupported,
        ExecutionError,
        QueueFull,
        ResultBackpressure,
        StateError,
    )

    classes: list[type[GpuError]] = [
        GpuError,
        Unsupported,
        Limit,
        DeviceError,
        DecodeError,
        BatchError,
        QueueFull,
        ResultBackpressure,
        BatchUnsupported,
        BatchLimit,
        BatchDecodeError,
        StateError,
        ExecutionError,
    ]
    return [
        cls("it failed", observed="3 > 2", fix="use 2", stage="admission", job_id=7, input_key="a")
        for cls in classes
    ]


@pytest.mark.parametrize("error", _every_error(), ids=lambda error: type(error).__name__)
def test_errors_survive_pickling(error: GpuError) -> None:
    """A worker process's error reaches its parent as itself (the keyword-only constructor
    cannot be called with the message, which is how exceptions pickle by default)."""
    import copy
    import pickle

    error.note = "kept"  # type: ignore[attr-defined]
    for restored in (pickle.loads(pickle.dumps(error)), copy.copy(error)):
        assert type(restored) is type(error)
        assert str(restored) == str(error)
        assert restored.args == error.args
        fields = ("kind", "why", "observed", "fix", "stage", "job_id", "input_key", "note")
        assert [getattr(restored, name) for name in fields] == [
            getattr(error, name) for name in fields
        ]


def test_a_kind_set_on_the_error_survives_pickling() -> None:
    import pickle

    from pillow_gpu.executor._errors import BatchError, for_job

    class _Planner(GpuError):
        kind = "Planner"

    bound = for_job(Unsupported("w", observed="o", fix="f", stage="s"), 1, "k")
    assert pickle.loads(pickle.dumps(bound)).kind == "Unsupported"
    general = BatchError("w", observed="o", fix="f", stage="s")
    general.kind = _Planner.kind  # what for_job does for a planner class it does not know
    assert pickle.loads(pickle.dumps(general)).kind == "Planner"


#: Run by ``exec`` in a worker (a builtin pickles by name; this module is not importable there).
_REFUSED_IN_A_WORKER = """
from pillow_gpu import Image
from pillow_gpu.gpu import evaluate
evaluate(Image.new("RGB", (8, 8), "red").quantize(4))  # an adaptive palette: refused
"""


def test_an_error_raised_in_a_process_pool_worker_reaches_the_caller() -> None:
    """Before errors pickled, the pool broke ("A result has failed to un-pickle"), and
    multiprocessing.Pool waited forever for the result."""
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        future = pool.submit(exec, _REFUSED_IN_A_WORKER)
        with pytest.raises(Unsupported) as raised:
            future.result(timeout=120)
    assert raised.value.stage == "admission"
    assert "quantize" in raised.value.why
