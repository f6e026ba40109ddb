"""onnx: run_onnx in the published form, and verify_onnx's reference comparison (CPU provider)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pixtreme.infer.errors import ContractError
from pixtreme.infer.onnx import (
    CONTRACT_METADATA_KEY,
    OnnxContractError,
    OnnxExecutionError,
    OnnxOutputContract,
    OnnxReferenceMismatchError,
    OnnxTolerance,
    contract_metadata,
    run_onnx,
    verify_onnx,
)

SCALE2 = OnnxOutputContract(batch=1, channels=3, spatial_scale=2, dtype="float32")


def _input(height: int = 4, width: int = 5) -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.random((1, height, width, 3), dtype=np.float32)


@pytest.fixture
def build_model(tmp_path: Path) -> Callable[..., Path]:
    """Write a tiny graph: output = Tile(input * gain, [1, s, s, 1]) with chosen metadata."""

    def build(
        *,
        scale: int = 2,
        gain: float = 0.5,
        metadata: dict[str, str] | None = None,
        input_name: str = "input",
        output_name: str = "output",
        extra_output: bool = False,
    ) -> Path:
        import onnx
        from onnx import TensorProto, helper

        dims = [1, "H", "W", 3]
        nodes = [
            helper.make_node("Mul", [input_name, "gain"], ["scaled"]),
            helper.make_node("Tile", ["scaled", "repeats"], [output_name]),
        ]
        outputs = [helper.make_tensor_value_info(output_name, TensorProto.FLOAT, None)]
        if extra_output:
            outputs.append(helper.make_tensor_value_info("scaled", TensorProto.FLOAT, None))
        graph = helper.make_graph(
            nodes,
            "pxi-test",
            [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, dims)],
            outputs,
            initializer=[
                helper.make_tensor("gain", TensorProto.FLOAT, [], [gain]),
                helper.make_tensor("repeats", TensorProto.INT64, [4], [1, scale, scale, 1]),
            ],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        props = contract_metadata(SCALE2) if metadata is None else metadata
        helper.set_model_props(model, props)
        path = tmp_path / f"model-{len(list(tmp_path.iterdir()))}.onnx"
        onnx.save(model, path)
        return path

    return build


def _expected(array: np.ndarray, scale: int = 2, gain: float = 0.5) -> np.ndarray:
    return np.tile(array * np.float32(gain), (1, scale, scale, 1))


def _metadata(**output: Any) -> dict[str, str]:
    fields: dict[str, Any] = {
        "batch": 1,
        "channels": 3,
        "spatial_scale": 2,
        "dtype": "float32",
        "layout": "NHWC",
    }
    fields.update(output)
    return {CONTRACT_METADATA_KEY: json.dumps({"output": fields})}


def test_contract_metadata_has_the_published_form() -> None:
    ((key, value),) = contract_metadata(SCALE2).items()
    assert key == CONTRACT_METADATA_KEY == "pixtreme.infer.contract"
    assert json.loads(value) == {
        "output": {
            "batch": 1,
            "channels": 3,
            "dtype": "float32",
            "layout": "NHWC",
            "spatial_scale": 2,
        }
    }
    assert OnnxOutputContract(**json.loads(value)["output"]) == SCALE2
    assert SCALE2.output_shape((1, 4, 5, 3)) == (1, 8, 10, 3)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"batch": 0}, "batch must be an int >= 1"),
        ({"channels": 0}, "channels must be an int >= 1"),
        ({"spatial_scale": -1}, "spatial_scale must be an int"),
        ({"dtype": "float33"}, "dtype must be a NumPy dtype name"),
        ({"layout": "NCHW"}, "layout must be one of"),
    ],
    ids=["batch", "channels", "scale", "dtype", "layout"],
)
def test_output_contract_rejects(fields: dict[str, Any], pattern: str) -> None:
    base: dict[str, Any] = {"batch": 1, "channels": 3, "spatial_scale": 1, "dtype": "float32"}
    base.update(fields)
    with pytest.raises(ContractError, match=pattern):
        OnnxOutputContract(**base)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"max_abs": -1.0}, "max_abs must be a non-negative finite number"),
        ({"max_abs": float("nan")}, "max_abs must be a non-negative"),
        ({"max_abs": float("inf")}, "max_abs must be finite"),
        ({"max_abs": 0.1, "mean_abs": "0"}, "mean_abs must be a non-negative"),
    ],
    ids=["negative", "nan", "inf", "mean-str"],
)
def test_tolerance_rejects(fields: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ContractError, match=pattern):
        OnnxTolerance(**fields)


@pytest.mark.parametrize(
    ("array", "pattern"),
    [
        ([[1.0]], "observed input type=builtins.list"),
        (np.zeros((1, 4, 4, 3), np.float64), "dtype=float64"),
        (np.zeros((4, 4, 3), np.float32), r"shape=\(4, 4, 3\)"),
        (np.zeros((2, 4, 4, 3), np.float32), r"shape=\(2, 4, 4, 3\)"),
        (np.zeros((1, 4, 4, 4), np.float32), r"shape=\(1, 4, 4, 4\)"),
        (np.zeros((1, 0, 4, 3), np.float32), r"shape=\(1, 0, 4, 3\)"),
    ],
    ids=["list", "float64", "hwc", "batch2", "rgba", "empty"],
)
def test_bad_inputs_are_rejected_before_onnxruntime(array: Any, pattern: str) -> None:
    with pytest.raises(OnnxContractError, match=pattern) as info:
        run_onnx("unused.onnx", array)
    assert isinstance(info.value, ValueError)


@pytest.mark.extras("onnx", "onnxruntime")
def test_run_checks_contract_and_returns_output(build_model: Callable[..., Path]) -> None:
    array = _input()
    output = run_onnx(build_model(), array)
    np.testing.assert_array_equal(output, _expected(array))


@pytest.mark.extras("onnx", "onnxruntime")
def test_reference_comparison(build_model: Callable[..., Path]) -> None:
    array = _input()
    path = build_model()
    reference = _expected(array) + np.float32(1e-4)
    run = verify_onnx(path, array, reference=reference, tolerance=OnnxTolerance(max_abs=2e-4))
    assert run.contract == SCALE2
    assert run.comparison is not None
    assert run.comparison.passed
    assert run.comparison.max_abs_difference == pytest.approx(1e-4, rel=1e-2)
    with pytest.raises(OnnxReferenceMismatchError, match=r"max abs difference 0\.0001"):
        verify_onnx(path, array, reference=reference, tolerance=OnnxTolerance(max_abs=1e-5))
    soft = verify_onnx(
        path,
        array,
        reference=reference,
        tolerance=OnnxTolerance(max_abs=1.0, mean_abs=1e-6),
        raise_on_mismatch=False,
    )
    assert soft.comparison is not None
    assert not soft.comparison.passed


@pytest.mark.extras("onnx", "onnxruntime")
def test_reference_problems_are_actionable(build_model: Callable[..., Path]) -> None:
    path = build_model()
    array = _input()
    with pytest.raises(OnnxContractError, match="needs a stated tolerance"):
        verify_onnx(path, array, reference=_expected(array), tolerance=None)  # type: ignore[arg-type]
    with pytest.raises(OnnxContractError, match="must have the output's shape"):
        verify_onnx(path, array, reference=array, tolerance=OnnxTolerance(max_abs=1.0))
    nan_reference = _expected(array)
    nan_reference[0, 0, 0, 0] = np.nan
    with pytest.raises(OnnxReferenceMismatchError, match="max abs difference inf"):
        verify_onnx(path, array, reference=nan_reference, tolerance=OnnxTolerance(max_abs=1.0))


@pytest.mark.extras("onnx", "onnxruntime")
@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"metadata": {}}, "no string contract metadata declaration"),
        ({"metadata": {CONTRACT_METADATA_KEY: "{"}}, "is not valid JSON"),
        ({"metadata": {CONTRACT_METADATA_KEY: "[1]"}}, "no complete output declaration"),
        ({"metadata": {CONTRACT_METADATA_KEY: '{"output": {"batch": NaN}}'}}, "not valid JSON"),
        ({"metadata": {CONTRACT_METADATA_KEY: '{"output": {"batch": 1}}'}}, "no complete output"),
        ({"metadata": _metadata(spatial_scale=0)}, "output declaration is invalid"),
        ({"metadata": _metadata(layout="NCHW")}, "output declaration is invalid"),
        ({"input_name": "x"}, r"observed input names=\['x'\]"),
        ({"output_name": "y"}, r"output names=\['y'\]"),
        ({"extra_output": True}, r"output names=\['output', 'scaled'\]"),
        ({"scale": 3}, r"observed shape=\(1, 12, 15, 3\), dtype=float32"),
        (
            {"metadata": _metadata(dtype="float16")},
            r"expected shape=\(1, 8, 10, 3\), dtype=float16",
        ),
    ],
    ids=[
        "no-metadata",
        "bad-json",
        "not-object",
        "nan",
        "missing-fields",
        "invalid-scale",
        "invalid-layout",
        "input-name",
        "output-name",
        "extra-output",
        "wrong-shape",
        "wrong-dtype",
    ],
)
def test_contract_violations_are_rejected(
    build_model: Callable[..., Path], options: dict[str, Any], pattern: str
) -> None:
    with pytest.raises(OnnxContractError, match=pattern) as info:
        run_onnx(build_model(**options), _input())
    assert "how=" in str(info.value)


@pytest.mark.extras("onnxruntime")
def test_unloadable_file_is_a_runtime_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    for path in (tmp_path / "absent.onnx", junk):
        with pytest.raises(OnnxExecutionError, match="could not load the artifact") as info:
            run_onnx(path, _input())
        assert isinstance(info.value, RuntimeError)


def test_absent_onnxruntime_names_the_ort_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from pixtreme.infer.errors import OptionalDependencyError

    monkeypatch.setitem(__import__("sys").modules, "onnxruntime", None)
    with pytest.raises(OptionalDependencyError, match=r"pip install 'pixtreme-infer\[ort\]'"):
        run_onnx("unused.onnx", _input())
