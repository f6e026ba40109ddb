"""CUDA Graph components on a real GPU with synthetic CuPy operations (no TensorRT).

Correctness: python -m pytest -m 'gpu and not performance' <this file>
Performance: python -m pytest -m 'gpu and performance' -s <this file> (prints median and p90,
applies no threshold). tools/device-check.sh runs both and the benchmark on a lent GPU.
"""

from __future__ import annotations

import functools
import gc
import re
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pixtreme.infer.cuda_graph import CudaGraphBuffers, CudaGraphSession, CudaGraphStateError
from pixtreme.infer.errors import ContractError

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

pytestmark = pytest.mark.gpu

DTYPES = ("float32", "float16")
SHAPES = {"4x6": (4, 6, 3), "37x53": (37, 53, 3)}


def _cupy() -> Any:
    import cupy

    return cupy


@functools.cache
def _affine() -> Any:
    return _cupy().ElementwiseKernel(
        "T x, raw float32 scale, raw float32 bias",
        "T y",
        "y = (T)((float)x * scale[0] + bias[0])",
        "pixtreme_infer_test_affine",
    )


@functools.cache
def _accumulate() -> Any:
    # Output = input + previous input; the history then holds this input.
    return _cupy().ElementwiseKernel(
        "T x", "T y, T history", "y = x + history; history = x", "pixtreme_infer_test_accumulate"
    )


@functools.cache
def _spin() -> Any:
    return _cupy().RawKernel(
        r"""
        extern "C" __global__ void pixtreme_infer_test_spin(long long cycles) {
            long long start = clock64();
            while (clock64() - start < cycles) { }
        }
        """,
        "pixtreme_infer_test_spin",
    )


def _frame(array: Any, *, gamma: str = "linear", channels: str = "RGB") -> Any:
    from pixtreme.core import Frame

    return Frame(data=array, colorspace="sRGB", gamma=gamma, channels=channels)


def _random(shape: tuple[int, ...], dtype: str, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    return _cupy().asarray(rng.uniform(-2.0, 2.0, size=shape).astype(dtype))


def _scalar(value: float) -> Any:
    return _cupy().asarray(np.array([value], dtype=np.float32))


class CaiView:
    """Another library's view of a CuPy array, exported only through CUDA Array Interface v3."""

    def __init__(self, array: Any, *, producer: Any = None) -> None:
        self._array = array
        interface = dict(array.__cuda_array_interface__)
        if producer is not None:
            interface["stream"] = int(producer.ptr)  # the stream its producer works on
        self.__cuda_array_interface__ = interface


class DlpackView:
    """Another library's view of a CuPy array, exported only through DLPack."""

    def __init__(self, array: Any) -> None:
        self._array = array

    def __dlpack__(self, **kwargs: Any) -> object:
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return tuple(self._array.__dlpack_device__())


class Owner:
    """A resource whose lifetime the tests observe through a weak reference."""


@pytest.fixture
def stream() -> Iterator[Any]:
    explicit = _cupy().cuda.Stream(non_blocking=True)
    with explicit:
        yield explicit
    explicit.synchronize()


class AffineModule:
    """A synthetic stateless module: fixed storage and two operations that share it."""

    def __init__(self, shape: tuple[int, int, int], dtype: str) -> None:
        cupy = _cupy()
        self.buffers = CudaGraphBuffers(
            _frame(cupy.zeros(shape, dtype=dtype)),
            _frame(cupy.zeros(shape, dtype=dtype)),
            params={"scale": _scalar(1.0), "bias": _scalar(0.0)},
        )
        buffers = self.buffers

        def affine() -> None:
            params = buffers.param_arrays
            _affine()(buffers.input_array, params["scale"], params["bias"], buffers.output_array)

        def negate() -> None:
            cupy.negative(buffers.input_array, out=buffers.output_array)

        self.graphs = CudaGraphSession(
            {"affine": affine, "negate": negate}, resources=(self.buffers,)
        )

    def __call__(self, frame: Any, route: str, *, gamma: str = "linear", **params: Any) -> Any:
        self.graphs.check_context()
        self.buffers.copy_inputs(frame, **params)
        self.graphs.replay(route)
        return self.buffers.copy_output(
            channels=frame.channels, colorspace=frame.colorspace, gamma=gamma, matrix=None
        )

    def close(self) -> None:
        self.graphs.close()
        self.buffers.close()


def _normal_affine(x: Any, scale: Any, bias: Any) -> Any:
    out = _cupy().empty_like(x)
    _affine()(x, scale, bias, out)
    return out


# --- capture and replay ---------------------------------------------------------------------


@pytest.mark.parametrize("shape_id", list(SHAPES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_replay_matches_normal_path(stream: Any, dtype: str, shape_id: str) -> None:
    cupy = _cupy()
    shape = SHAPES[shape_id]
    module = AffineModule(shape, dtype)
    try:
        for seed, (scale, bias) in enumerate([(1.0, 0.0), (0.5, 0.25), (-3.0, 1.5)]):
            x = _random(shape, dtype, seed)
            s, b = _scalar(scale), _scalar(bias)
            result = module(_frame(x), "affine", scale=s, bias=b)
            expected = _normal_affine(x, s, b)
            stream.synchronize()
            cupy.testing.assert_array_equal(result.data, expected)
            np.testing.assert_allclose(
                cupy.asnumpy(result.data).astype(np.float64),
                cupy.asnumpy(x).astype(np.float64) * scale + bias,
                rtol=1e-2 if dtype == "float16" else 1e-6,
                atol=1e-2 if dtype == "float16" else 1e-6,
            )
    finally:
        module.close()


def test_named_operations_share_storage(stream: Any) -> None:
    cupy = _cupy()
    module = AffineModule((8, 8, 3), "float32")
    try:
        assert module.graphs.names == ("affine", "negate")
        x = _random((8, 8, 3), "float32", 3)
        two, one = _scalar(2.0), _scalar(1.0)
        doubled = module(_frame(x), "affine", scale=two, bias=one)
        negated = module(_frame(x), "negate", scale=two, bias=one)
        again = module(_frame(-x), "affine", scale=two, bias=one)
        stream.synchronize()
        cupy.testing.assert_array_equal(doubled.data, _normal_affine(x, two, one))
        cupy.testing.assert_array_equal(negated.data, -x)
        cupy.testing.assert_array_equal(again.data, _normal_affine(-x, two, one))
    finally:
        module.close()


def test_requests_accept_cai_and_dlpack_sources(stream: Any) -> None:
    cupy = _cupy()
    module = AffineModule((4, 6, 3), "float32")
    try:
        x = _random((4, 6, 3), "float32", 5)
        scale, bias = _scalar(3.0), _scalar(-1.0)
        result = module(_frame(x), "affine", scale=CaiView(scale), bias=DlpackView(bias))
        stream.synchronize()
        cupy.testing.assert_array_equal(result.data, _normal_affine(x, scale, bias))
    finally:
        module.close()


def test_cai_source_is_ordered_after_its_producer_stream(stream: Any) -> None:
    cupy = _cupy()
    module = AffineModule((8, 8, 3), "float32")
    x = _random((8, 8, 3), "float32", 13)
    scale, bias = _scalar(0.0), _scalar(0.5)
    scale.fill(1.0)  # compiles the fill kernel before the timed window below
    module(_frame(x), "affine", scale=scale, bias=bias)  # kernels loaded, pool warm
    stream.synchronize()
    producer = cupy.cuda.Stream(non_blocking=True)
    with producer:
        # The producer writes 3.0 only after 10**9 clock cycles on its own stream.
        _spin()((1,), (1,), (np.int64(10**9),))
        scale.fill(3.0)
    exported = CaiView(scale, producer=producer)
    result = module(_frame(x), "affine", scale=exported, bias=bias)
    # copy_inputs ordered the copy after the producer's stream with an event, not on the host.
    assert not producer.done
    stream.synchronize()
    cupy.testing.assert_array_equal(result.data, _normal_affine(x, _scalar(3.0), bias))
    producer.synchronize()
    module.close()


# --- temporal history -----------------------------------------------------------------------


class AccumulateModule:
    """A synthetic temporal module: output = input + previous input, with reset."""

    def __init__(self, shape: tuple[int, int, int], *, restore: bool, graph: bool) -> None:
        cupy = _cupy()
        self.history = cupy.zeros(shape, dtype=cupy.float32)
        self.controls = {"frames": 0}
        fixed_input = cupy.full(shape, 7.0, dtype=cupy.float32)  # preparation reads this
        self.graph = graph
        if not graph:
            return
        self.buffers = CudaGraphBuffers(
            _frame(fixed_input), _frame(cupy.zeros(shape, dtype=cupy.float32))
        )
        buffers = self.buffers

        def accumulate() -> None:
            # Preparation runs this twice (warm-up, capture): it writes GPU history and, like a
            # module's bookkeeping, a host control; replays run only the captured kernel.
            self.controls["frames"] += 1
            _accumulate()(buffers.input_array, buffers.output_array, self.history)

        def restore_initial_history() -> None:
            self.history.fill(0)
            self.controls["frames"] = 0

        self.graphs = CudaGraphSession(
            {"accumulate": accumulate},
            resources=(self.buffers, self.history),
            after_prepare=restore_initial_history if restore else None,
        )

    def __call__(self, frame: Any, *, reset: bool = False) -> Any:
        cupy = _cupy()
        if not self.graph:
            if reset:
                self.history.fill(0)
            out = cupy.empty_like(frame.data)
            _accumulate()(frame.data, out, self.history)
            self.controls["frames"] += 1
            return _frame(out)
        self.graphs.check_context()
        self.buffers.copy_inputs(frame)
        if reset:
            self.history.fill(0)
        self.graphs.replay("accumulate")
        self.controls["frames"] += 1
        return self.buffers.copy_output(
            channels="RGB", colorspace="sRGB", gamma="linear", matrix=None
        )


def test_after_prepare_restores_history(stream: Any) -> None:
    cupy = _cupy()
    x = _random((4, 4, 3), "float32", 11)
    restored = AccumulateModule((4, 4, 3), restore=True, graph=True)
    unrestored = AccumulateModule((4, 4, 3), restore=False, graph=True)
    first = restored(_frame(x))
    polluted = unrestored(_frame(x))
    stream.synchronize()
    # Preparation's warm-up wrote the fixed input (7) into history; after_prepare cleared it.
    cupy.testing.assert_array_equal(first.data, x)
    cupy.testing.assert_array_equal(polluted.data, x + 7.0)
    # The host control too: restored to 0 before the request, else 2 preparation calls + 1.
    assert restored.controls["frames"] == 1
    assert unrestored.controls["frames"] == 3
    for module in (restored, unrestored):
        module.graphs.close()
        module.buffers.close()


def test_temporal_sequence_matches_normal_instance(stream: Any) -> None:
    cupy = _cupy()
    shape = (5, 7, 3)
    graph = AccumulateModule(shape, restore=True, graph=True)
    normal = AccumulateModule(shape, restore=True, graph=False)
    steps = [(0, False), (1, False), (2, False), (3, True), (4, False), (4, True)]
    for seed, reset in steps:
        x = _random(shape, "float32", seed)
        from_graph = graph(_frame(x), reset=reset)
        from_normal = normal(_frame(x), reset=reset)
        stream.synchronize()
        cupy.testing.assert_array_equal(from_graph.data, from_normal.data)
    graph.graphs.close()
    graph.buffers.close()


def test_replay_equivalence_evidence_verifies(stream: Any, temporal_contract: Any) -> None:
    from pixtreme.infer.errors import EvidenceUnavailable
    from pixtreme.infer.verification import (
        CommonContractCases,
        CudaGraphContractSuite,
        SequenceFacts,
        TemporalContractSuite,
        verify_cuda_graph_contract,
    )

    shape = (6, 5, 3)
    graph = AccumulateModule(shape, restore=True, graph=True)
    normal = AccumulateModule(shape, restore=True, graph=False)
    plan = [(0, False), (1, False), (2, False), (3, True), (4, False)]

    def replay_equivalence() -> tuple[SequenceFacts, ...]:
        reference, candidate = [], []
        for seed, reset in plan:
            x = _random(shape, "float32", seed)
            candidate.append(graph(_frame(x), reset=reset))
            reference.append(normal(_frame(x), reset=reset))
        stream.synchronize()
        return (SequenceFacts(id(normal), id(graph), tuple(reference), tuple(candidate)),)

    def elsewhere() -> Any:
        raise EvidenceUnavailable(
            why="this test measures graph replay only",
            what="the other evidence is covered by other tests",
            how="see the module-contract tests",
        )

    def same(a: Any, b: Any) -> bool:
        return bool(_cupy().array_equal(a.data, b.data))

    common = CommonContractCases(
        frame_boundaries=lambda: (),
        dlpack_allocations=lambda: (),
        engine_round_trip=elsewhere,
        engine_incompatibilities=lambda: (),
        checkpoint_rejections=lambda: (),
        outputs_equivalent=same,
    )
    module = TemporalContractSuite(
        temporal_contract,
        common,
        elsewhere,
        elsewhere,
        elsewhere,
        elsewhere,
        lambda footprint: elsewhere(),  # normalize_footprint takes the declared footprint
        lambda a, b: a == b,
    )
    report = verify_cuda_graph_contract(CudaGraphContractSuite(module, replay_equivalence))
    check = report.checks[-1]
    assert check.name == "graph-replay-equivalence"
    assert check.status == "passed", check.findings
    graph.graphs.close()
    graph.buffers.close()


# --- failure cleanup --------------------------------------------------------------------------


def _step_on(array: Any) -> None:
    _cupy().add(array, 1.0, out=array)


def _assert_stream_usable(stream: Any) -> None:
    cupy = _cupy()
    assert not stream.is_capturing()
    probe = cupy.arange(4, dtype=cupy.float32)
    _step_on(probe)
    stream.synchronize()
    cupy.testing.assert_array_equal(probe, cupy.arange(1, 5, dtype=cupy.float32))


def _open_failing(stream: Any, failing: str) -> tuple[str, weakref.ref[Owner], Any]:
    """Open a session that fails at ``failing``; return the message and weak references."""
    cupy = _cupy()
    work = cupy.zeros(16, dtype=cupy.float32)
    owner = Owner()
    calls: list[str] = []

    def good() -> None:
        _step_on(work)

    def bad() -> None:
        calls.append("bad")
        _step_on(work)
        if failing == "warm-up" or (failing == "capture" and len(calls) == 2):
            raise ValueError(f"synthetic failure in {failing}")
        if failing == "sync-in-capture" and len(calls) == 2:
            stream.synchronize()  # not allowed while capturing

    def restore() -> None:
        if failing == "after_prepare":
            raise ValueError("synthetic failure in after_prepare")

    good_ref = weakref.ref(good)
    message = ""
    try:
        CudaGraphSession({"good": good, "bad": bad}, resources=(owner,), after_prepare=restore)
    except Exception as error:  # the traceback (and its frames) is dropped with `error`
        message = f"{type(error).__name__}: {error}"
    del good, bad, restore
    owner_ref = weakref.ref(owner)
    del owner
    gc.collect()
    return message, owner_ref, good_ref


@pytest.mark.parametrize("failing", ["warm-up", "capture", "after_prepare"])
def test_failure_releases_everything(stream: Any, failing: str) -> None:
    message, owner_ref, operation_ref = _open_failing(stream, failing)
    assert message == f"ValueError: synthetic failure in {failing}"
    assert owner_ref() is None
    assert operation_ref() is None
    _assert_stream_usable(stream)


def test_sync_inside_capture_fails_and_leaves_capture(stream: Any) -> None:
    message, owner_ref, operation_ref = _open_failing(stream, "sync-in-capture")
    print(f"[cuda-graph] synchronize inside a capture raised {message}")  # shown with -rA
    assert message.startswith("CUDARuntimeError")
    assert owner_ref() is None
    assert operation_ref() is None
    _assert_stream_usable(stream)


def test_operation_leaving_another_stream_current_fails(stream: Any) -> None:
    cupy = _cupy()
    other = cupy.cuda.Stream(non_blocking=True)
    try:
        with pytest.raises(CudaGraphStateError, match="left device"):
            CudaGraphSession({"switch": other.use})
    finally:
        stream.use()
    _assert_stream_usable(stream)


# --- context --------------------------------------------------------------------------------


@pytest.mark.parametrize("default", ["null", "ptds"])
def test_default_stream_is_refused(default: str) -> None:
    cupy = _cupy()
    chosen = cupy.cuda.Stream.null if default == "null" else cupy.cuda.Stream.ptds
    calls: list[int] = []
    with chosen, pytest.raises(ContractError, match="explicit non-default stream"):
        CudaGraphSession({"a": lambda: calls.append(1)})
    assert calls == []


def test_wrong_stream_is_refused_before_gpu_work(stream: Any) -> None:
    cupy = _cupy()
    module = AffineModule((4, 4, 3), "float32")
    other = cupy.cuda.Stream(non_blocking=True)
    x = _random((4, 4, 3), "float32", 1)
    module(_frame(x), "negate", scale=_scalar(1.0), bias=_scalar(0.0))
    stream.synchronize()
    before = module.buffers.output_array.copy()
    with other:
        with pytest.raises(CudaGraphStateError, match="current stream"):
            module.graphs.check_context()
        with pytest.raises(CudaGraphStateError, match="current stream"):
            module.graphs.replay("affine")
    stream.synchronize()
    cupy.testing.assert_array_equal(module.buffers.output_array, before)
    module.close()


def test_wrong_device_is_refused(stream: Any) -> None:
    cupy = _cupy()
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two CUDA devices to switch to another device")
    module = AffineModule((4, 4, 3), "float32")
    x = _random((4, 4, 3), "float32", 2)
    with cupy.cuda.Device(1), cupy.cuda.Stream(non_blocking=True):
        with pytest.raises(CudaGraphStateError, match="current device is 1"):
            module.graphs.check_context()
        with pytest.raises(CudaGraphStateError, match="device 1"):
            module.buffers.copy_inputs(_frame(x), scale=_scalar(1.0), bias=_scalar(0.0))
    module.close()


# --- validation on the GPU --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame_dtype", "params", "problem"),
    [
        pytest.param("float16", {}, "frame: dtype float16 instead of float32", id="frame-dtype"),
        pytest.param("float32", {"scale": "host"}, "host memory", id="host-param"),
        pytest.param("float32", {"bias": "float16"}, "dtype float16", id="param-dtype"),
        pytest.param("float32", {"bias": "broadcast"}, "shape (2,)", id="param-shape"),
        pytest.param("float32", {"bias": None}, "missing params ['bias']", id="missing"),
        pytest.param("float32", {"gain": "extra"}, "undeclared params ['gain']", id="undeclared"),
    ],
)
def test_rejected_request_leaves_storage_untouched(
    stream: Any, frame_dtype: str, params: dict[str, Any], problem: str
) -> None:
    cupy = _cupy()
    module = AffineModule((4, 4, 3), "float32")
    module.buffers.input_array.fill(9.0)
    module.buffers.param_arrays["scale"].fill(9.0)
    sources: dict[str, Any] = {"scale": _scalar(2.0), "bias": _scalar(1.0)}
    for name, kind in params.items():
        if kind is None:
            del sources[name]
        elif kind == "host":
            sources[name] = np.array([2.0], dtype=np.float32)
        elif kind == "float16":
            sources[name] = cupy.ones(1, dtype=cupy.float16)
        elif kind == "broadcast":
            sources[name] = cupy.ones(2, dtype=cupy.float32)
        else:
            sources[name] = _scalar(1.0)
    frame = _frame(_random((4, 4, 3), frame_dtype, 4))
    with pytest.raises(ContractError, match=re.escape(problem)):
        module.buffers.copy_inputs(frame, **sources)
    stream.synchronize()
    assert bool((module.buffers.input_array == 9.0).all())
    assert bool((module.buffers.param_arrays["scale"] == 9.0).all())
    module.close()


def test_buffers_refuse_storage_on_construction(stream: Any) -> None:
    cupy = _cupy()
    fixed = _frame(cupy.zeros((4, 4, 3), dtype=cupy.float32))
    strided = cupy.zeros((4, 8), dtype=cupy.float32)[:, ::2]
    with pytest.raises(ContractError, match="param 'gain': not C-contiguous"):
        CudaGraphBuffers(fixed, fixed, params={"gain": strided})
    with pytest.raises(ContractError, match="host memory"):
        CudaGraphBuffers(fixed, fixed, params={"gain": np.zeros(1, np.float32)})
    aliased = fixed.data.reshape(-1)[:3]  # the first pixel of the input storage
    with pytest.raises(ContractError, match="input_frame and param 'gain' share memory"):
        CudaGraphBuffers(fixed, fixed, params={"gain": aliased})
    # The output may share the input's storage: copy_inputs writes only the input.
    with CudaGraphBuffers(fixed, fixed) as shared:
        assert shared.input_array.data.ptr == shared.output_array.data.ptr == fixed.data.data.ptr
        assert shared.input_array is shared.output_array


def _capture_malloc_counter(stream: Any) -> Any:
    """A CuPy memory hook counting memory-pool requests made while ``stream`` captures."""
    cupy = _cupy()

    class CaptureMallocCounter(cupy.cuda.MemoryHook):  # type: ignore[misc]
        name = "pixtreme-infer-test-capture-malloc"

        def __init__(self) -> None:
            self.during_capture = 0

        def malloc_preprocess(self, **kwargs: Any) -> None:
            if stream.is_capturing():
                self.during_capture += 1

    return CaptureMallocCounter()


def test_shared_storage_in_place_ufunc_allocates_nothing_in_capture(stream: Any) -> None:
    cupy = _cupy()
    fixed = _frame(cupy.zeros((4, 6, 3), dtype=cupy.float32))
    x = _random((4, 6, 3), "float32", 12)
    counter = _capture_malloc_counter(stream)
    with CudaGraphBuffers(fixed, fixed) as buffers:

        def negate_in_place() -> None:
            # A ufunc copies an input that overlaps a different output object (an allocation).
            cupy.negative(buffers.input_array, out=buffers.output_array)

        with counter:
            session = CudaGraphSession({"negate": negate_in_place}, resources=(buffers,))
        try:
            buffers.copy_inputs(_frame(x))
            session.replay("negate")
            result = buffers.copy_output(
                channels="RGB", colorspace="sRGB", gamma="linear", matrix=None
            )
            stream.synchronize()
        finally:
            session.close()
    assert counter.during_capture == 0
    cupy.testing.assert_array_equal(result.data, -x)


def test_copy_output_validates_metadata_first(stream: Any) -> None:
    module = AffineModule((4, 4, 3), "float32")
    with pytest.raises(ValueError, match="channel"):
        module.buffers.copy_output(channels="RGBA", colorspace="sRGB", gamma="sRGB", matrix=None)
    with pytest.raises(ValueError, match="gamma"):
        module.buffers.copy_output(channels="RGB", colorspace="sRGB", gamma="gamma", matrix=None)
    module.close()


def test_copy_output_carries_request_metadata(stream: Any) -> None:
    module = AffineModule((4, 4, 3), "float32")
    x = _random((4, 4, 3), "float32", 6)
    result = module(_frame(x), "negate", gamma="Rec.709", scale=_scalar(1.0), bias=_scalar(0.0))
    other = module.buffers.copy_output(
        channels=("Y", "Cb", "Cr"), colorspace="Rec.709", gamma="linear", matrix="BT.709"
    )
    assert (result.channels, result.colorspace, result.gamma, result.matrix) == (
        ("R", "G", "B"),
        "sRGB",
        "Rec.709",
        None,
    )
    assert (other.channels, other.colorspace, other.gamma, other.matrix) == (
        ("Y", "Cb", "Cr"),
        "Rec.709",
        "linear",
        "BT.709",
    )
    assert result.data.data.ptr != module.buffers.output_array.data.ptr
    assert result.data.data.ptr != other.data.data.ptr
    module.close()


def test_requests_enqueue_without_host_wait(stream: Any) -> None:
    cupy = _cupy()
    module = AffineModule((64, 64, 3), "float32")
    x = _random((64, 64, 3), "float32", 8)
    scale, bias = _scalar(2.0), _scalar(0.5)
    # Steady state first: the kernels are loaded and the pool holds a block for copy_output's
    # result, so the measured request makes no first-use cudaMalloc or upload.
    module(_frame(x), "affine", scale=scale, bias=bias)
    stream.synchronize()
    # 10**9 clock cycles (about half a second at H200 clocks) ahead of the request.
    _spin()((1,), (1,), (np.int64(10**9),))
    result = module(_frame(x), "affine", scale=scale, bias=bias)
    # Had any call waited on the host, the spin kernel (and the request) would be done.
    assert not stream.done
    stream.synchronize()
    cupy.testing.assert_array_equal(result.data, _normal_affine(x, scale, bias))
    module.close()


# --- closed components ------------------------------------------------------------------------


def test_closed_components_fail_before_gpu_work(stream: Any) -> None:
    cupy = _cupy()
    module = AffineModule((4, 4, 3), "float32")
    x = _random((4, 4, 3), "float32", 9)
    kept = module(_frame(x), "negate", scale=_scalar(1.0), bias=_scalar(0.0))
    stream.synchronize()
    expected = cupy.asnumpy(kept.data)
    later = module(_frame(x * 3), "affine", scale=_scalar(2.0), bias=_scalar(1.0))
    stream.synchronize()  # callers finish outstanding work before closing
    module.close()
    module.close()  # idempotent
    assert module.graphs.closed
    assert module.buffers.closed
    assert module.graphs.names == ()
    with pytest.raises(CudaGraphStateError, match="after close"):
        module.graphs.check_context()
    with pytest.raises(CudaGraphStateError, match="after close"):
        module.graphs.replay("affine")
    with pytest.raises(CudaGraphStateError, match="after close"):
        module.buffers.copy_inputs(_frame(x), scale=_scalar(1.0), bias=_scalar(0.0))
    with pytest.raises(CudaGraphStateError, match="after close"):
        module.buffers.copy_output(channels="RGB", colorspace="sRGB", gamma="sRGB", matrix=None)
    with pytest.raises(CudaGraphStateError, match="after close"):
        _ = module.buffers.input_array
    stream.synchronize()
    # Returned Frames own their storage: later replays and close leave them unchanged.
    np.testing.assert_array_equal(cupy.asnumpy(kept.data), expected)
    cupy.testing.assert_array_equal(later.data, _normal_affine(x * 3, _scalar(2.0), _scalar(1.0)))


def test_unknown_operation_name(stream: Any) -> None:
    module = AffineModule((4, 4, 3), "float32")
    with pytest.raises(ContractError, match="did you mean 'affine'"):
        module.graphs.replay("afine")
    module.close()


# --- performance (opt-in; prints figures, applies no threshold) -------------------------------


@pytest.mark.performance
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32"])
@pytest.mark.parametrize("size", ["1080p", "4K"])
def test_copy_latency(stream: Any, size: str, dtype: str) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    from cuda_graph_timing import measure_copies

    result = measure_copies(size, dtype)
    print(
        f"\n[cuda-graph copy] {size} {dtype} {result.nbytes / 1e6:.1f} MB: "
        f"copy_inputs median {result.copy_inputs.median_ms:.4f} ms "
        f"p90 {result.copy_inputs.p90_ms:.4f} ms; "
        f"copy_output median {result.copy_output.median_ms:.4f} ms "
        f"p90 {result.copy_output.p90_ms:.4f} ms; "
        f"raw copy median {result.raw_copy.median_ms:.4f} ms "
        f"p90 {result.raw_copy.p90_ms:.4f} ms; "
        f"sustained copy_inputs {result.copy_inputs_bandwidth_gbps:.0f} GB/s = "
        f"{100 * result.copy_inputs_share_of_raw:.1f}% of raw "
        f"{result.raw_copy_bandwidth_gbps:.0f} GB/s"
    )
    assert result.copy_inputs.samples == 50
    assert 0 < result.raw_copy.median_ms <= result.raw_copy.p90_ms


@pytest.mark.performance
def test_replay_against_normal_launches(stream: Any) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    from cuda_graph_timing import measure_replay

    result = measure_replay()
    print(
        f"\n[cuda-graph replay] {result.kernels} kernels x {result.elements} elements: "
        f"replay median {result.replay.median_ms:.4f} ms p90 {result.replay.p90_ms:.4f} ms; "
        f"normal median {result.normal.median_ms:.4f} ms p90 {result.normal.p90_ms:.4f} ms; "
        f"speedup {result.speedup:.2f}x (sustained {result.sustained_speedup:.2f}x)"
    )
    assert result.replay.samples == 200
    assert result.speedup > 0
