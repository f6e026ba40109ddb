"""CUDA Graph components: argument and request validation that needs no GPU.

Every rejection here must happen before any CUDA call: on a machine without a GPU a CUDA call
raises CUDARuntimeError, so receiving ContractError proves the check ran host-side first.
Sources are real producers: a small class implementing the CUDA Array Interface v3, numpy
arrays (host memory, refused), and a DLPack producer class reporting a CUDA device.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from pixtreme.infer import cuda_graph
from pixtreme.infer._cuda_graph._arrays import (
    _c_strides,
    _destination_layout_problems,
    _host_layout,
    _Layout,
    _layout_problems,
    _overlap_problems,
    _param_name_problems,
    _param_request_problems,
)
from pixtreme.infer._cuda_graph._context import _is_default_stream, _stream_label
from pixtreme.infer.cuda_graph import CudaGraphBuffers, CudaGraphSession, CudaGraphStateError
from pixtreme.infer.errors import ContractError, InferError

_POINTER = 0x7F00_0000_0000  # a device address as a producer reports it; never dereferenced


class CaiArray:
    """A minimal CUDA Array Interface producer (the dict a CUDA library would export)."""

    def __init__(
        self,
        shape: tuple[int, ...],
        typestr: str,
        *,
        strides: tuple[int, ...] | None = None,
        version: int = 3,
        readonly: bool = False,
        mask: object = None,
    ) -> None:
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": typestr,
            "data": (_POINTER, readonly),
            "strides": strides,
            "version": version,
            "stream": None,
            "mask": mask,
        }


class CudaDlpackProducer:
    """A DLPack producer that reports CUDA memory; exporting it is never needed host-side."""

    def __init__(self, device_id: int) -> None:
        self.device_id = device_id
        self.exports = 0

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, self.device_id)

    def __dlpack__(self, **kwargs: Any) -> object:
        self.exports += 1
        raise RuntimeError("host-side validation must not export the capsule")


class ForeignStream:
    """A stream handle exported through the CUDA stream protocol, as another library would."""

    def __init__(self, handle: int) -> None:
        self.handle = handle

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)


def _expected(shape: tuple[int, ...], dtype: str, device_id: int = 0) -> _Layout:
    return _Layout(
        kind="fixed",
        shape=shape,
        dtype=np.dtype(dtype),
        c_contiguous=True,
        device_id=device_id,
    )


def _assert_message_shape(error: BaseException) -> None:
    text = str(error)
    assert text.startswith("why=")
    assert "; what=" in text
    assert "; how=" in text


# --- import -------------------------------------------------------------------------------


def test_import_needs_no_gpu() -> None:
    code = "import pixtreme.infer.cuda_graph as m; print(sorted(m.__all__))"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "CudaGraphBuffers" in done.stdout
    assert "CudaGraphSession" in done.stdout


def test_public_names() -> None:
    assert set(cuda_graph.__all__) == {
        "CudaGraphBuffers",
        "CudaGraphSession",
        "CudaGraphStateError",
        "Operation",
    }
    assert issubclass(CudaGraphStateError, InferError)
    assert issubclass(CudaGraphStateError, RuntimeError)


# --- CudaGraphSession arguments -----------------------------------------------------------


def _never_called() -> list[str]:
    return []


@pytest.mark.parametrize(
    ("operations", "kwargs", "what"),
    [
        pytest.param([("a", print)], {}, "not a mapping", id="operations-list"),
        pytest.param({}, {}, "operations is empty", id="operations-empty"),
        pytest.param({"": print}, {}, "operation name ''", id="name-empty"),
        pytest.param({3: print}, {}, "operation name 3", id="name-int"),
        pytest.param({"a": "enqueue"}, {}, "not callable", id="operation-str"),
        pytest.param({"a": print}, {"after_prepare": 1}, "after_prepare is int", id="after-int"),
        pytest.param({"a": print}, {"resources": "buf"}, "resources is str", id="resources-str"),
        pytest.param({"a": print}, {"resources": 5}, "resources is int", id="resources-int"),
    ],
)
def test_session_rejects_arguments_before_cuda(
    operations: Any, kwargs: dict[str, Any], what: str
) -> None:
    with pytest.raises(ContractError, match=what) as caught:
        CudaGraphSession(operations, **kwargs)
    _assert_message_shape(caught.value)


def test_session_rejection_calls_no_operation() -> None:
    calls: list[str] = []
    with pytest.raises(ContractError, match="after_prepare"):
        CudaGraphSession({"a": lambda: calls.append("a")}, after_prepare="restore")  # type: ignore[arg-type]
    assert calls == []


# --- streams --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("handle", "default", "label"),
    [
        pytest.param(0, True, "null", id="null"),
        pytest.param(1, True, "legacy", id="legacy"),
        pytest.param(2, True, "per-thread", id="per-thread"),
        pytest.param(0x4660, False, "stream 0x4660", id="explicit"),
    ],
)
def test_default_stream_handles(handle: int, default: bool, label: str) -> None:
    import cupy

    stream = cupy.cuda.Stream.from_external(ForeignStream(handle))
    assert _is_default_stream(stream) is default
    assert label in _stream_label(stream)


# --- source layouts -------------------------------------------------------------------------


def test_cai_v3_layout_is_read_host_side() -> None:
    layout = _host_layout(CaiArray((4, 6, 3), "|u1"))
    assert isinstance(layout, _Layout)
    assert layout.shape == (4, 6, 3)
    assert layout.dtype == np.dtype(np.uint8)
    assert layout.c_contiguous is True
    assert layout.device_id is None  # only importing the pointer can tell the device
    assert layout.readonly is False


@pytest.mark.parametrize(
    ("strides", "contiguous"),
    [
        pytest.param(None, True, id="strides-none"),
        pytest.param((48, 8, 2), True, id="c-strides"),
        pytest.param((8, 32, 2), False, id="transposed"),
        pytest.param((96, 8, 2), False, id="padded-rows"),
        pytest.param((48, 8), False, id="wrong-rank"),
    ],
)
def test_cai_contiguity_from_strides(strides: tuple[int, ...] | None, contiguous: bool) -> None:
    layout = _host_layout(CaiArray((4, 6, 4), "<f2", strides=strides))
    assert isinstance(layout, _Layout)
    assert layout.c_contiguous is contiguous


def test_extent_one_axes_take_any_stride() -> None:
    layout = _host_layout(CaiArray((1, 6, 1), "<f4", strides=(4096, 4, 999)))
    assert isinstance(layout, _Layout)
    assert layout.c_contiguous is True


def test_cai_shape_list_is_accepted() -> None:
    producer = CaiArray((2, 3), "<f4")
    producer.__cuda_array_interface__["shape"] = [2, 3]
    layout = _host_layout(producer)
    assert isinstance(layout, _Layout)
    assert layout.shape == (2, 3)


def test_c_strides() -> None:
    assert _c_strides((4, 6, 3), 4) == (72, 12, 4)
    assert _c_strides((5,), 2) == (2,)


@pytest.mark.parametrize(
    ("source", "refusal"),
    [
        pytest.param(CaiArray((2, 2), "<f4", version=2), "version 2", id="cai-v2"),
        pytest.param(CaiArray((2, 2), "<f4", mask=object()), "masked", id="cai-mask"),
        pytest.param(CaiArray((2, 2), "zz"), "typestr", id="cai-typestr"),
        pytest.param(CaiArray((2, 2), None), "typestr None", id="cai-typestr-missing"),  # type: ignore[arg-type]
        pytest.param(CaiArray((2, -1), "<f4"), "shape (2, -1)", id="cai-negative-shape"),
        pytest.param(CaiArray((2, True), "<f4"), "shape (2, True)", id="cai-bool-shape"),
        pytest.param(np.zeros((2, 2), np.float32), "CPU (host memory)", id="numpy-host"),
        pytest.param([[0.0, 1.0]], "neither DLPack nor", id="list"),
        pytest.param(3.5, "neither DLPack nor", id="float"),
    ],
)
def test_host_layout_refuses_non_cuda_sources(source: object, refusal: str) -> None:
    layout = _host_layout(source)
    assert isinstance(layout, str)
    assert refusal in layout


def test_dlpack_producer_gives_device_without_export() -> None:
    producer = CudaDlpackProducer(device_id=1)
    layout = _host_layout(producer)
    assert isinstance(layout, _Layout)
    assert layout.device_id == 1
    assert layout.shape is None
    assert producer.exports == 0


# --- request checks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        pytest.param(CaiArray((1, 6, 3), "<f4"), "shape (1, 6, 3) instead of (4, 6, 3)",
                     id="broadcastable-rows"),
        pytest.param(CaiArray((4, 6, 1), "<f4"), "shape (4, 6, 1)", id="broadcastable-channels"),
        pytest.param(CaiArray((6, 4, 3), "<f4"), "shape (6, 4, 3)", id="swapped"),
        pytest.param(CaiArray((4, 6, 3), "<f2"), "dtype float16 instead of float32", id="float16"),
        pytest.param(CaiArray((4, 6, 3), "<f8"), "dtype float64", id="float64"),
        pytest.param(CaiArray((4, 6, 3), "|u1"), "dtype uint8", id="uint8"),
        pytest.param(CaiArray((4, 6, 3), "<f4", strides=(4, 48, 16)), "not C-contiguous",
                     id="strided"),
        pytest.param(CudaDlpackProducer(device_id=1), "on device 1 instead of 0",
                     id="other-device"),
        pytest.param(np.zeros((4, 6, 3), np.float32), "host memory", id="numpy-host"),
    ],
)  # fmt: skip
def test_source_mismatch_is_reported(source: object, problem: str) -> None:
    problems = _layout_problems("frame", _expected((4, 6, 3), "float32"), _host_layout(source))
    assert len(problems) == 1
    assert problem in problems[0]


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(CaiArray((4, 6, 3), "<f4"), id="cai"),
        pytest.param(CaiArray((4, 6, 3), "<f4", strides=(72, 12, 4)), id="cai-c-strides"),
        pytest.param(CaiArray((4, 6, 3), "<f4", readonly=True), id="cai-readonly-source"),
        pytest.param(CudaDlpackProducer(device_id=0), id="dlpack-same-device"),
    ],
)
def test_matching_source_has_no_problem(source: object) -> None:
    assert _layout_problems("frame", _expected((4, 6, 3), "float32"), _host_layout(source)) == []


def test_params_need_exact_names() -> None:
    expected = {"strength": _expected((1,), "float32"), "noise": _expected((4, 6, 1), "float16")}
    problems = _param_request_problems(
        expected, {"strength": CaiArray((1,), "<f4"), "sigma": CaiArray((1,), "<f4")}
    )
    assert problems == ["missing params ['noise']", "undeclared params ['sigma']"]


def test_params_report_every_problem_at_once() -> None:
    expected = {"strength": _expected((1,), "float32"), "noise": _expected((4, 6, 1), "float16")}
    problems = _param_request_problems(
        expected,
        {"strength": np.float32(1.0), "noise": CaiArray((4, 6, 1), "<f4")},
    )
    assert len(problems) == 2
    assert "param 'noise': dtype float32 instead of float16" in problems
    assert any(p.startswith("param 'strength': ") for p in problems)


def test_params_matching_exactly() -> None:
    expected = {"strength": _expected((1,), "float32")}
    assert _param_request_problems(expected, {"strength": CaiArray((1,), "<f4")}) == []
    assert _param_request_problems({}, {}) == []


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        pytest.param("frame", "reserved", id="frame"),
        pytest.param("reset", "reserved", id="reset"),
        pytest.param("1x", "not a Python identifier", id="digit"),
        pytest.param("noise level", "not a Python identifier", id="space"),
        pytest.param("", "not a Python identifier", id="empty"),
        pytest.param(7, "not a Python identifier", id="int"),
    ],
)
def test_param_names(name: object, problem: str) -> None:
    problems = _param_name_problems([name])
    assert len(problems) == 1
    assert problem in problems[0]


def test_valid_param_names() -> None:
    assert _param_name_problems(["strength", "noise_sigma", "_aux2"]) == []


@pytest.mark.parametrize(
    ("destination", "problem"),
    [
        pytest.param(CaiArray((4, 4), "<f4", readonly=True), "read-only", id="readonly"),
        pytest.param(CaiArray((4, 4), "<f4", strides=(4, 16)), "not C-contiguous", id="strided"),
        pytest.param(CaiArray((0, 4), "<f4"), "empty shape", id="empty"),
        pytest.param(np.zeros((4, 4), np.float32), "host memory", id="numpy-host"),
    ],
)
def test_destination_problems(destination: object, problem: str) -> None:
    problems = _destination_layout_problems("param 'x'", _host_layout(destination))
    assert len(problems) == 1
    assert problem in problems[0]


@pytest.mark.parametrize(
    ("ranges", "pairs"),
    [
        pytest.param({"a": (0, 16), "b": (16, 16)}, [], id="adjacent"),
        pytest.param({"a": (0, 16), "b": (64, 8), "c": (32, 8)}, [], id="apart"),
        pytest.param({"a": (0, 16), "b": (8, 16)}, [("a", "b")], id="partial"),
        pytest.param({"a": (0, 100), "b": (10, 10), "c": (50, 10)}, [("a", "b"), ("a", "c")],
                     id="contains-two"),
        pytest.param({"b": (32, 4), "a": (32, 4)}, [("b", "a")], id="same-address"),
    ],
)  # fmt: skip
def test_overlapping_destinations(
    ranges: dict[str, tuple[int, int]], pairs: list[tuple[str, str]]
) -> None:
    problems = _overlap_problems(ranges)
    assert len(problems) == len(pairs)
    for problem, (first, second) in zip(problems, pairs, strict=True):
        assert problem.startswith(f"{first} and {second} share memory")


# --- CudaGraphBuffers arguments -------------------------------------------------------------


def test_buffers_reject_non_frames_before_cuda() -> None:
    with pytest.raises(ContractError) as caught:
        CudaGraphBuffers(np.zeros((4, 4, 3), np.float32), None)
    text = str(caught.value)
    _assert_message_shape(caught.value)
    assert "input_frame: numpy.ndarray is not a pixtreme Frame" in text
    assert "output_frame: builtins.NoneType is not a pixtreme Frame" in text


def test_buffers_report_every_param_problem() -> None:
    params = {
        "reset": CaiArray((1,), "<f4"),
        "host": np.zeros(3, np.float32),
        "readonly": CaiArray((2,), "<f4", readonly=True),
        "fine": CaiArray((2,), "<f4"),
    }
    with pytest.raises(ContractError) as caught:
        CudaGraphBuffers(None, None, params=params)
    text = str(caught.value)
    assert "param name 'reset' is reserved" in text
    assert "param 'host': " in text
    assert "host memory" in text
    assert "param 'readonly': read-only" in text
    assert "'fine'" not in text


def test_buffers_reject_params_that_are_not_a_mapping() -> None:
    with pytest.raises(ContractError, match=r"params is builtins\.list"):
        CudaGraphBuffers(None, None, params=[CaiArray((1,), "<f4")])  # type: ignore[arg-type]


def test_closed_error_shape() -> None:
    from pixtreme.infer._cuda_graph._context import _closed_error

    error = _closed_error("CudaGraphSession", "replay('a')")
    assert isinstance(error, CudaGraphStateError)
    _assert_message_shape(error)
    assert "replay('a') was called after close()" in str(error)


def _unowned_cupy_array(shape: tuple[int, ...], dtype: str, *, offset: int = 0) -> Any:
    """A real CuPy array over a reported device address: metadata only, no CUDA call."""
    import cupy

    memory = cupy.cuda.UnownedMemory(_POINTER, 4096, None, 0)  # device_id given: no query
    return cupy.ndarray(shape, dtype=dtype, memptr=cupy.cuda.MemoryPointer(memory, offset))


@pytest.mark.parametrize(
    ("other", "same"),
    [
        pytest.param(lambda a: _unowned_cupy_array((4, 6, 3), "float32"), True, id="same-bytes"),
        pytest.param(lambda a: a.reshape(6, 4, 3), False, id="other-shape"),
        pytest.param(lambda a: a.view("int32"), False, id="other-dtype"),
        pytest.param(
            lambda a: _unowned_cupy_array((4, 6, 3), "float32", offset=12), False, id="offset"
        ),
    ],
)
def test_shared_storage_is_recognised_for_one_output_object(other: Any, same: bool) -> None:
    # CudaGraphBuffers hands out one array object when the output views exactly the input's
    # bytes, so an in-place CuPy ufunc inside capture does not copy its input (an allocation).
    from pixtreme.infer._cuda_graph._buffers import _same_storage

    first = _unowned_cupy_array((4, 6, 3), "float32")
    assert _same_storage(first, other(first)) is same
