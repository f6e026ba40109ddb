"""TensorRT backend: declarations and cache conditions without TensorRT; engines where present."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pixtreme.infer.errors import ContractError
from pixtreme.infer.example import RECURSIVE_FILTER, UPSCALE_X2, weights_path
from pixtreme.infer.example._engine_evidence import damaged_engine_files, expected_bindings
from pixtreme.infer.example._onnx_export import build_onnx_model
from pixtreme.infer.example._tensorrt_backend import (
    TensorRTRecursiveFilter,
    TensorRTUpscaleX2,
    engine_declaration,
    network_definition,
    open_engine_handle,
    tensorrt_unavailable_reason,
)

TENSORRT_REASON = tensorrt_unavailable_reason()
needs_tensorrt = pytest.mark.skipif(TENSORRT_REASON is not None, reason=str(TENSORRT_REASON))


def test_upscaler_declaration_inputs_outputs_and_profile() -> None:
    declaration = engine_declaration(UPSCALE_X2, input_hw=(270, 480))
    assert declaration.engine_name == "pixtreme-arch-example.upscale-x2.fp32"
    assert declaration.graph_version == UPSCALE_X2.graph_version
    assert declaration.weights == (weights_path(UPSCALE_X2),)
    assert [(t.name, t.shape, t.dtype) for t in declaration.inputs] == [
        ("input", (1, 270, 480, 3), "float32")
    ]
    assert [(t.name, t.shape) for t in declaration.outputs] == [("output", (1, 540, 960, 3))]
    assert declaration.input_profiles() == {"input": ((1, 270, 480, 3),) * 3}


def test_expected_bindings_follow_the_declaration() -> None:
    declaration = engine_declaration(RECURSIVE_FILTER, input_hw=(4, 6))
    bindings = expected_bindings(declaration)
    assert [(b.name, b.direction, b.dtype) for b in bindings] == [
        ("input", "input", "float32"),
        ("history", "input", "float32"),
        ("output", "output", "float32"),
    ]
    assert all(b.min_shape == b.opt_shape == b.max_shape == (1, 4, 6, 3) for b in bindings)


def test_engine_evidence_without_tensorrt_is_unavailable() -> None:
    from pixtreme.infer.errors import EvidenceUnavailable
    from pixtreme.infer.example._engine_evidence import engine_incompatibility, engine_round_trip

    if TENSORRT_REASON is None:
        pytest.skip("TensorRT is installed here")
    for gather in (engine_round_trip, engine_incompatibility):
        with pytest.raises(EvidenceUnavailable):
            gather("upscale-x2")


def test_recursive_filter_declaration_has_history_input() -> None:
    declaration = engine_declaration(RECURSIVE_FILTER, input_hw=(4, 6))
    assert [t.name for t in declaration.inputs] == ["input", "history"]
    assert [(t.name, t.shape) for t in declaration.outputs] == [("output", (1, 4, 6, 3))]


@pytest.mark.extras("onnx")
@pytest.mark.parametrize("spec", [UPSCALE_X2, RECURSIVE_FILTER], ids=lambda s: s.name)
def test_declaration_binds_the_same_names_as_the_onnx_graph(spec) -> None:  # type: ignore[no-untyped-def]
    model = build_onnx_model(spec)
    declaration = engine_declaration(spec, input_hw=(8, 8))
    assert [t.name for t in declaration.inputs] == [i.name for i in model.graph.input]
    assert [t.name for t in declaration.outputs] == [o.name for o in model.graph.output]


def test_cache_conditions_are_stable_and_track_every_input() -> None:
    base = engine_declaration(UPSCALE_X2, input_hw=(8, 8))
    conditions = base.cache_conditions()
    assert conditions == engine_declaration(UPSCALE_X2, input_hw=(8, 8)).cache_conditions()
    assert conditions["weights"] == [
        "710e2730575ebf0221ba431d6ac8a65105129182f15ebd44ddff5285e0eb2d46"
    ]
    assert conditions["builder_settings"]["tf32"] is False
    changed = [
        engine_declaration(UPSCALE_X2, input_hw=(8, 9)),
        dataclasses.replace(base, graph_version="2"),
        dataclasses.replace(base, weights=(weights_path(RECURSIVE_FILTER),)),
        dataclasses.replace(base, optimization_level=5),
        engine_declaration(RECURSIVE_FILTER, input_hw=(8, 8)),
    ]
    for other in changed:
        assert other.cache_conditions() != conditions


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        pytest.param({"input_hw": (8, 8), "precision": "fp16"}, "fp32 engines only", id="fp16"),
        pytest.param({"input_hw": (0, 8)}, "positive input size", id="zero-height"),
    ],
)
def test_declaration_rejects_unsupported_settings(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ContractError, match=match):
        engine_declaration(UPSCALE_X2, **kwargs)  # type: ignore[arg-type]


def test_tensorrt_reason_names_the_missing_module() -> None:
    if TENSORRT_REASON is None:
        pytest.skip("TensorRT is installed here; the absent-TensorRT message is not shown")
    assert "tensorrt" in TENSORRT_REASON
    assert "install" in TENSORRT_REASON


def test_opening_an_engine_without_tensorrt_raises_module_not_found() -> None:
    if TENSORRT_REASON is None:
        pytest.skip("TensorRT is installed here")
    with pytest.raises(ModuleNotFoundError, match="tensorrt"):
        open_engine_handle(engine_declaration(UPSCALE_X2, input_hw=(2, 2)))


@pytest.mark.parametrize(
    "plan_end", [bytes(64), bytes(range(64))], ids=["plan-ends-in-zeros", "plan-ends-in-data"]
)
def test_every_damaged_engine_file_differs_from_the_cached_one(plan_end: bytes) -> None:
    original = b"TENSORACLE\x01" + bytes(8) + b"{}" + bytes(range(200)) + plan_end
    other = original[:-1] + b"\x7f"
    damaged = damaged_engine_files(original, other)
    assert [label for label, _ in damaged] == [
        "corrupt-plan",
        "truncated-file",
        "foreign-file",
        "other-conditions",
    ]
    assert all(data != original for _, data in damaged)
    assert len(damaged[0][1]) == len(original)  # corrupt, not shortened


class _RecordingRunner:
    """An engine runner stand-in that records calls, to prove buffers are checked first."""

    def __init__(self) -> None:
        self.calls: list[object] = []

    def enqueue(self, *args: object, **kwargs: object) -> None:
        self.calls.append(args)


@pytest.mark.parametrize(
    ("unit_type", "source_hw", "destination_hw", "kwargs"),
    [
        pytest.param(TensorRTUpscaleX2, (4, 6), (8, 11), {}, id="upscaler-destination"),
        pytest.param(TensorRTUpscaleX2, (4, 5), (8, 12), {}, id="upscaler-source"),
        pytest.param(
            TensorRTRecursiveFilter, (4, 6), (4, 7), {"restart": False}, id="filter-blend"
        ),
        pytest.param(
            TensorRTRecursiveFilter, (3, 6), (4, 6), {"restart": True}, id="filter-restart"
        ),
    ],
)
def test_tensorrt_units_check_buffers_before_enqueueing(  # type: ignore[no-untyped-def]
    unit_type, source_hw, destination_hw, kwargs
) -> None:
    # tensoracle cannot check buffer sizes: the unit must, before the engine runs.
    unit = unit_type.__new__(unit_type)
    unit.input_hw = (4, 6)
    unit.runner = runner = _RecordingRunner()
    unit._state = None  # the filter's CuPy state must not be reached either
    source = np.zeros((*source_hw, 3), np.float32)
    destination = np.zeros((*destination_hw, 3), np.float32)
    with pytest.raises(ContractError, match="opened shape"):
        unit.enqueue(source, destination, **kwargs)
    assert runner.calls == []


@pytest.mark.gpu
@needs_tensorrt
@pytest.mark.parametrize("spec", [UPSCALE_X2, RECURSIVE_FILTER], ids=lambda s: s.name)
def test_engine_builds_caches_and_matches_the_reference(spec, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import cupy
    from pixtreme.infer.example import recursive_filter_reference, upscale_x2_reference
    from pixtreme.infer.example._tensorrt_backend import TensorRTEngineRunner

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    declaration = engine_declaration(spec, input_hw=(5, 7))
    runner = TensorRTEngineRunner(declaration)
    assert runner.engine_path.parent == tmp_path / "tensoracle"
    rng = np.random.default_rng(3)
    image = rng.random((5, 7, 3), np.float32)
    history = rng.random((5, 7, 3), np.float32)
    output_shape = declaration.outputs[0].shape[1:]
    with cupy.cuda.Stream(non_blocking=True) as stream:
        source = cupy.asarray(image)
        previous = cupy.asarray(history)
        output = cupy.empty(output_shape, cupy.float32)
        addresses = {"input": source.data.ptr, "output": output.data.ptr}
        if spec.temporal:
            addresses["history"] = previous.data.ptr
        runner.enqueue(addresses, stream=stream.ptr)
        stream.synchronize()
    if spec.temporal:
        expected = recursive_filter_reference([history, image], [False, False])[1]
    else:
        expected = upscale_x2_reference(image)
    np.testing.assert_allclose(cupy.asnumpy(output), expected, rtol=0, atol=1e-5)
    runner.close()
    runner.close()
    # A second open reuses the cached file instead of building.
    again = TensorRTEngineRunner(declaration)
    assert again.engine_path == runner.engine_path
    again.close()


@pytest.mark.gpu  # trt.Builder initialises CUDA: it needs a GPU even without building
@needs_tensorrt
def test_network_definition_is_callable_without_building() -> None:
    import tensorrt as trt

    builder = trt.Builder(trt.Logger(trt.Logger.ERROR))
    network = builder.create_network(0)
    network_definition(engine_declaration(UPSCALE_X2, input_hw=(3, 4)))(network)
    assert network.num_inputs == 1
    assert network.get_output(0).name == "output"
    assert tuple(network.get_output(0).shape) == (1, 6, 8, 3)
