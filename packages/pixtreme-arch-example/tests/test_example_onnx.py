"""ONNX export: deterministic, carries the contract metadata, matches the numpy reference on
onnxruntime (CPU)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pixtreme.infer.example import (
    NETWORKS,
    RECURSIVE_FILTER,
    UPSCALE_X2,
    NetworkSpec,
    recursive_filter_reference,
    upscale_x2_reference,
)
from pixtreme.infer.example._onnx_export import build_onnx_model, export_onnx
from pixtreme.infer.onnx import CONTRACT_METADATA_KEY

pytestmark = pytest.mark.extras("onnx", "onnxruntime")

SPECS = list(NETWORKS.values())
SIZES = [(1, 1), (2, 3), (9, 16)]


def _session(spec: NetworkSpec):  # type: ignore[no-untyped-def]
    import onnxruntime

    model = build_onnx_model(spec).SerializeToString(deterministic=True)
    return onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_export_is_deterministic(spec: NetworkSpec, tmp_path: Path) -> None:
    first = export_onnx(spec, tmp_path / "a.onnx").read_bytes()
    second = export_onnx(spec, tmp_path / "b.onnx").read_bytes()
    assert first == second


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_export_carries_the_contract_metadata(spec: NetworkSpec) -> None:
    props = {prop.key: prop.value for prop in build_onnx_model(spec).metadata_props}
    assert json.loads(props[CONTRACT_METADATA_KEY]) == {
        "output": {
            "batch": 1,
            "channels": 3,
            "dtype": "float32",
            "layout": "NHWC",
            "spatial_scale": spec.spatial_scale,
        }
    }


def test_upscale_x2_export_runs_through_the_core_onnx_verification(tmp_path: Path) -> None:
    from pixtreme.infer.onnx import OnnxTolerance, run_onnx, verify_onnx

    path = export_onnx(UPSCALE_X2, tmp_path / "upscale_x2.onnx")
    image = np.random.default_rng(4).random((1, 5, 7, 3), np.float32)
    assert run_onnx(path, image).shape == (1, 10, 14, 3)
    run = verify_onnx(
        path,
        image,
        reference=upscale_x2_reference(image[0])[None],
        tolerance=OnnxTolerance(max_abs=1e-6),
    )
    assert run.comparison is not None
    assert run.comparison.passed
    assert run.contract.spatial_scale == 2


def test_bindings() -> None:
    upscale = _session(UPSCALE_X2)
    assert [item.name for item in upscale.get_inputs()] == ["input"]
    assert [item.name for item in upscale.get_outputs()] == ["output"]
    step = _session(RECURSIVE_FILTER)
    assert [item.name for item in step.get_inputs()] == ["input", "history"]
    assert [item.name for item in step.get_outputs()] == ["output"]


@pytest.mark.parametrize(("height", "width"), SIZES, ids=str)
def test_upscale_x2_on_onnxruntime_matches_the_reference(height: int, width: int) -> None:
    image = np.random.default_rng(height + 100 * width).random((1, height, width, 3), np.float32)
    (output,) = _session(UPSCALE_X2).run(None, {"input": image})
    assert output.shape == (1, 2 * height, 2 * width, 3)
    assert output.dtype == np.float32
    np.testing.assert_allclose(output[0], upscale_x2_reference(image[0]), rtol=0, atol=1e-6)


@pytest.mark.parametrize(("height", "width"), SIZES, ids=str)
def test_recursive_filter_steps_on_onnxruntime_match_the_reference(height: int, width: int) -> None:
    rng = np.random.default_rng(height * width)
    frames = [rng.random((height, width, 3), np.float32) for _ in range(5)]
    resets = [False, False, True, False, False]
    expected = recursive_filter_reference(frames, resets)
    session = _session(RECURSIVE_FILTER)
    history: np.ndarray | None = None
    for index, (frame, reset) in enumerate(zip(frames, resets, strict=True)):
        if history is None or reset:
            output = frame[None]  # the module copies the frame on the first call and on reset
        else:
            (output,) = session.run(None, {"input": frame[None], "history": history})
        np.testing.assert_allclose(output[0], expected[index], rtol=0, atol=1e-6)
        history = output
