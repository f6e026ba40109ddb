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
