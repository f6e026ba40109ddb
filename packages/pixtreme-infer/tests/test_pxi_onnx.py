"""ONNX verification on the CPU provider: metadata, bindings, shapes and reference comparison."""

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
    OnnxOutputContract,
    OnnxReferenceMismatchError,
    OnnxTolerance,
    contract_metadata,
    run_onnx,
)

pytestmark = pytest.mark.req("issue6.onnx")

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


def test_contract_metadata_round_trips() -> None:
    ((key, value),) = contract_metadata(SCALE2).items()
    assert key == CONTRACT_METADATA_KEY == "pixtreme.infer.contract"
    assert json.loads(value) == {
        "batch": 1,
        "channels": 3,
        "dtype": "float32",
        "layout": "NHWC",
        "spatial_scale": 2,
    }
    assert OnnxOutputContract(**json.loads(value)) == SCALE2
    assert SCALE2.output_shape((1, 4, 5, 3)) == (1, 8, 10, 3)


@pytest.mark.parametrize(
    ("fields", "pattern"),
    [
        ({"batch": 2}, "batch must be one of"),
        ({"channels": 0}, "channels must be an int >= 1"),
        ({"spatial_scale": -1}, "spatial_scale must be an int"),
        ({"dtype": "int8"}, "dtype must be one of"),
        ({"layout": "NCHW"}, "layout must be one of"),
    ],
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
        ([[1.0]], "takes a host numpy array"),
        (np.zeros((1, 4, 4, 3), np.float64), "dtype=float64"),
        (np.zeros((4, 4, 3), np.float32), r"shape=\(4, 4, 3\)"),
        (np.zeros((2, 4, 4, 3), np.float32), r"shape=\(2, 4, 4, 3\)"),
        (np.zeros((1, 4, 4, 4), np.float32), r"shape=\(1, 4, 4, 4\)"),
    ],
    ids=["list", "float64", "hwc", "batch2", "rgba"],
)
def test_bad_inputs_are_rejected_before_onnxruntime(array: Any, pattern: str) -> None:
    with pytest.raises(OnnxContractError, match=pattern):
        run_onnx("unused.onnx", array)


def test_tolerance_without_reference_is_rejected() -> None:
    with pytest.raises(OnnxContractError, match="only meaningful with a reference"):
        run_onnx("unused.onnx", _input(), tolerance=OnnxTolerance(max_abs=0.0))


@pytest.mark.extras("onnx", "onnxruntime")
def test_run_checks_contract_and_returns_output(build_model: Callable[..., Path]) -> None:
    array = _input()
    run = run_onnx(build_model(), array)
    assert run.contract == SCALE2
    assert run.comparison is None
    np.testing.assert_array_equal(run.output, _expected(array))


@pytest.mark.req("issue6.onnx.reference")
@pytest.mark.extras("onnx", "onnxruntime")
def test_reference_comparison_in_the_same_call(build_model: Callable[..., Path]) -> None:
    array = _input()
    path = build_model()
    reference = _expected(array) + np.float32(1e-4)
    run = run_onnx(path, array, reference=reference, tolerance=OnnxTolerance(max_abs=2e-4))
    assert run.comparison is not None
    assert run.comparison.passed
    assert run.comparison.max_abs_difference == pytest.approx(1e-4, rel=1e-2)
    with pytest.raises(OnnxReferenceMismatchError, match=r"max abs difference 0\.0001"):
        run_onnx(path, array, reference=reference, tolerance=OnnxTolerance(max_abs=1e-5))
    soft = run_onnx(
        path,
        array,
        reference=reference,
        tolerance=OnnxTolerance(max_abs=1.0, mean_abs=1e-6),
        raise_on_mismatch=False,
    )
    assert soft.comparison is not None
    assert not soft.comparison.passed


@pytest.mark.req("issue6.onnx.reference")
@pytest.mark.extras("onnx", "onnxruntime")
def test_reference_problems_are_actionable(build_model: Callable[..., Path]) -> None:
    path = build_model()
    array = _input()
    with pytest.raises(OnnxContractError, match="needs a stated tolerance"):
        run_onnx(path, array, reference=_expected(array))
    with pytest.raises(OnnxContractError, match="must have the output's shape"):
        run_onnx(path, array, reference=array, tolerance=OnnxTolerance(max_abs=1.0))
    nan_reference = _expected(array)
    nan_reference[0, 0, 0, 0] = np.nan
    with pytest.raises(OnnxReferenceMismatchError, match="max abs difference inf"):
        run_onnx(path, array, reference=nan_reference, tolerance=OnnxTolerance(max_abs=1.0))


@pytest.mark.extras("onnx", "onnxruntime")
@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"metadata": {}}, "states its output contract under 'pixtreme.infer.contract'"),
        ({"metadata": {CONTRACT_METADATA_KEY: "{"}}, "must be strict JSON"),
        ({"metadata": {CONTRACT_METADATA_KEY: "[1]"}}, "is a JSON object"),
        (
            {"metadata": {CONTRACT_METADATA_KEY: '{"batch": 1, "batch": 1}'}},
            "must be strict JSON",
        ),
        ({"metadata": {CONTRACT_METADATA_KEY: '{"batch": NaN}'}}, "must be strict JSON"),
        ({"metadata": {CONTRACT_METADATA_KEY: '{"batch": 1}'}}, "has exactly the fields"),
        (
            {
                "metadata": {
                    CONTRACT_METADATA_KEY: '{"batch":1,"channels":3,"spatial_scale":0,'
                    '"dtype":"float32"}'
                }
            },
            "contract metadata must be valid",
        ),
        ({"input_name": "x"}, r"inputs \['x'\]"),
        ({"output_name": "y"}, r"outputs \['y'\]"),
        ({"extra_output": True}, r"outputs \['output', 'scaled'\]"),
        ({"scale": 3}, r"output shape \(1, 12, 15, 3\) dtype float32; expected \(1, 8, 10, 3\)"),
    ],
    ids=[
        "no-metadata",
        "bad-json",
        "not-object",
        "duplicate-key",
        "nan",
        "missing-fields",
        "invalid-field",
        "input-name",
        "output-name",
        "extra-output",
        "wrong-shape",
    ],
)
def test_contract_violations_are_rejected(
    build_model: Callable[..., Path], options: dict[str, Any], pattern: str
) -> None:
    with pytest.raises(OnnxContractError, match=pattern):
        run_onnx(build_model(**options), _input())


@pytest.mark.extras("onnxruntime")
def test_missing_file_is_actionable(tmp_path: Path) -> None:
    with pytest.raises(OnnxContractError, match="how=export the graph first"):
        run_onnx(tmp_path / "absent.onnx", _input())


@pytest.mark.req("issue6.require-optional")
def test_absent_onnxruntime_names_the_ort_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from pixtreme.infer.errors import OptionalDependencyError

    monkeypatch.setitem(__import__("sys").modules, "onnxruntime", None)
    with pytest.raises(OptionalDependencyError, match=r"pip install 'pixtreme-infer\[ort\]'"):
        run_onnx("unused.onnx", _input())
