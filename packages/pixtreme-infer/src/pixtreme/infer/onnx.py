"""ONNX verification on the CPU provider (the ``ort`` extra).

A graph states its output contract in the model metadata under
``"pixtreme.infer.contract"`` as JSON, for example
``{"batch": 1, "channels": 3, "spatial_scale": 2, "dtype": "float32", "layout": "NHWC"}``,
and binds exactly one input called ``input`` and one output called ``output``.
onnxruntime is imported only when a graph is run.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pixtreme.infer import _validate as v
from pixtreme.infer.errors import ContractError, RecordError, require_optional

__all__ = (
    "CONTRACT_METADATA_KEY",
    "OnnxContractError",
    "OnnxOutputContract",
    "OnnxReferenceComparison",
    "OnnxReferenceMismatchError",
    "OnnxRun",
    "OnnxTolerance",
    "contract_metadata",
    "run_onnx",
)

CONTRACT_METADATA_KEY = "pixtreme.infer.contract"
INPUT_NAME = "input"
OUTPUT_NAME = "output"
_ONNX_DTYPES = {"float32": "tensor(float)", "float16": "tensor(float16)"}


class OnnxContractError(ContractError):
    """A graph, its metadata, bindings, input or output break the ONNX contract."""


class OnnxReferenceMismatchError(OnnxContractError):
    """The output differs from the reference by more than the stated tolerance."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OnnxOutputContract:
    """What the graph's single output must be for a [1, H, W, 3] float32 input."""

    batch: int
    channels: int
    spatial_scale: int
    dtype: Literal["float32", "float16"]
    layout: Literal["NHWC"] = "NHWC"

    def __post_init__(self) -> None:
        owner = "OnnxOutputContract"
        v.one_of(owner, "batch", self.batch, (1,))
        v.positive_int(owner, "channels", self.channels)
        v.positive_int(owner, "spatial_scale", self.spatial_scale)
        v.one_of(owner, "dtype", self.dtype, tuple(_ONNX_DTYPES))
        v.one_of(owner, "layout", self.layout, ("NHWC",))

    def as_dict(self) -> dict[str, object]:
        """The JSON fields stored in the model metadata."""
        return {
            "batch": self.batch,
            "channels": self.channels,
            "spatial_scale": self.spatial_scale,
            "dtype": self.dtype,
            "layout": self.layout,
        }

    def output_shape(self, input_shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The output shape this contract requires for ``input_shape`` (N, H, W, 3)."""
        _, height, width, _ = input_shape
        scale = self.spatial_scale
        return (self.batch, height * scale, width * scale, self.channels)


def contract_metadata(contract: OnnxOutputContract) -> dict[str, str]:
    """The metadata_props entry to store in a graph (key CONTRACT_METADATA_KEY)."""
    return {CONTRACT_METADATA_KEY: json.dumps(contract.as_dict(), sort_keys=True)}


@dataclass(frozen=True, slots=True, kw_only=True)
class OnnxTolerance:
    """Stated bounds for comparing against a reference: max and (optionally) mean abs error."""

    max_abs: float
    mean_abs: float | None = None

    def __post_init__(self) -> None:
        for field in ("max_abs", "mean_abs"):
            value = getattr(self, field)
            if value is None and field == "mean_abs":
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                v.fail(
                    "OnnxTolerance",
                    field,
                    value,
                    expected="a non-negative finite number",
                    how="state the bound the reference was validated with, such as 1e-5",
                )
            if value == float("inf"):
                v.fail(
                    "OnnxTolerance",
                    field,
                    value,
                    expected="finite",
                    how="state a finite bound; an infinite bound checks nothing",
                )


@dataclass(frozen=True, slots=True, kw_only=True)
class OnnxReferenceComparison:
    """How the output compared with the reference under the stated tolerance."""

    max_abs_difference: float
    mean_abs_difference: float
    tolerance: OnnxTolerance
    passed: bool

    def __post_init__(self) -> None:
        owner = "OnnxReferenceComparison"
        how = "pass the absolute differences, or math.inf when an output is not finite"
        worst = v.number(
            owner, "max_abs_difference", self.max_abs_difference, minimum=0, allow_inf=True, how=how
        )
        mean = v.number(
            owner,
            "mean_abs_difference",
            self.mean_abs_difference,
            minimum=0,
            allow_inf=True,
            how=how,
        )
        tolerance = v.instance_of(owner, "tolerance", self.tolerance, OnnxTolerance)
        v.flag(owner, "passed", self.passed)
        if mean > worst and not math.isclose(mean, worst, rel_tol=1e-9):
            v.fail(
                owner,
                "mean_abs_difference",
                mean,
                expected=f"at most max_abs_difference={worst!r}",
                how="compute both from the same differences",
            )
        within = math.isfinite(worst) and worst <= tolerance.max_abs
        if tolerance.mean_abs is not None:
            within = within and mean <= tolerance.mean_abs
        if self.passed != within:
            v.fail(
                owner,
                "passed",
                self.passed,
                expected=f"{within} for max {worst!r} and mean {mean!r} under {tolerance}",
                how="derive passed from the differences and the tolerance (run_onnx does)",
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class OnnxRun:
    """One checked run: the output, the contract it met and the optional comparison."""

    output: npt.NDArray[Any]
    contract: OnnxOutputContract
    comparison: OnnxReferenceComparison | None

    def __post_init__(self) -> None:
        owner = "OnnxRun"
        v.instance_of(owner, "output", self.output, np.ndarray)
        contract = v.instance_of(owner, "contract", self.contract, OnnxOutputContract)
        if self.comparison is not None:
            v.instance_of(owner, "comparison", self.comparison, OnnxReferenceComparison)
        shape = tuple(self.output.shape)
        if (
            len(shape) != 4
            or shape[0] != contract.batch
            or shape[3] != contract.channels
            or self.output.dtype != np.dtype(contract.dtype)
        ):
            v.fail(
                owner,
                "output",
                f"array of shape {shape} and dtype {self.output.dtype}",
                expected=f"an NHWC array of shape ({contract.batch}, H, W, {contract.channels}) "
                f"and dtype {contract.dtype}",
                how="keep the output run_onnx checked against the contract",
            )


def _error(why: str, what: str, how: str) -> OnnxContractError:
    return OnnxContractError(why=why, what=what, how=how)


def _check_input(array: object) -> npt.NDArray[np.float32]:
    if not isinstance(array, np.ndarray):
        raise _error(
            "run_onnx takes a host numpy array",
            f"received {type(array).__name__}",
            "copy the Frame to the host (cupy.asnumpy) and add a batch axis: array[None]",
        )
    if array.dtype != np.float32 or array.ndim != 4 or array.shape[0] != 1 or array.shape[3] != 3:
        raise _error(
            "run_onnx takes a float32 NHWC array of shape [1, H, W, 3]",
            f"received dtype={array.dtype}, shape={array.shape}",
            "convert with array.astype(np.float32) and reshape to [1, H, W, 3]",
        )
    return np.ascontiguousarray(array)


def _read_contract(metadata: dict[str, str], path: Path) -> OnnxOutputContract:
    from pixtreme.infer.verification._records import parse_json_strict

    raw = metadata.get(CONTRACT_METADATA_KEY)
    if raw is None:
        raise _error(
            f"a verified graph states its output contract under {CONTRACT_METADATA_KEY!r}",
            f"{path.name} has metadata keys {sorted(metadata)}",
            "add it with onnx.helper.set_model_props(model, contract_metadata(contract))",
        )
    try:
        fields = parse_json_strict(raw)
    except RecordError as error:
        raise _error("the contract metadata must be strict JSON", error.what, error.how) from error
    if not isinstance(fields, dict):
        raise _error(
            "the contract metadata is a JSON object",
            f"received {raw!r}",
            "store json.dumps(contract.as_dict())",
        )
    known = {"batch", "channels", "spatial_scale", "dtype", "layout"}
    if set(fields) - known or {"batch", "channels", "spatial_scale", "dtype"} - set(fields):
        raise _error(
            f"the contract metadata has exactly the fields {sorted(known)} (layout optional)",
            f"received fields {sorted(fields)}",
            "regenerate it with contract_metadata(OnnxOutputContract(...))",
        )
    try:
        return OnnxOutputContract(**fields)  # type: ignore[arg-type]
    except ContractError as error:
        raise _error("the contract metadata must be valid", error.what, error.how) from error


def _compare(
    output: npt.NDArray[Any], reference: object, tolerance: OnnxTolerance | None
) -> OnnxReferenceComparison:
    if tolerance is None:
        raise _error(
            "a reference comparison needs a stated tolerance",
            "reference was given with tolerance=None",
            "pass tolerance=OnnxTolerance(max_abs=..., mean_abs=...)",
        )
    expected = np.asarray(reference)
    if expected.shape != output.shape:
        raise _error(
            "the reference must have the output's shape",
            f"reference shape {expected.shape}, output shape {output.shape}",
            "regenerate the reference for this input size",
        )
    difference = np.abs(output.astype(np.float64) - expected.astype(np.float64))
    finite = bool(np.isfinite(difference).all())
    max_abs = float(difference.max()) if finite else float("inf")
    mean_abs = float(difference.mean()) if finite else float("inf")
    passed = finite and max_abs <= tolerance.max_abs
    if tolerance.mean_abs is not None:
        passed = passed and mean_abs <= tolerance.mean_abs
    return OnnxReferenceComparison(
        max_abs_difference=max_abs, mean_abs_difference=mean_abs, tolerance=tolerance, passed=passed
    )


def run_onnx(
    path: str | Path,
    input_nhwc: npt.NDArray[np.float32],
    *,
    reference: npt.ArrayLike | None = None,
    tolerance: OnnxTolerance | None = None,
    raise_on_mismatch: bool = True,
) -> OnnxRun:
    """Run a graph on ONNX Runtime's CPU provider and check it against its stated contract.

    Checks, in order: the input array, the contract metadata, the bindings (exactly
    ``input`` / ``output``), the output shape and dtype, and, when ``reference`` is given,
    the difference against it under ``tolerance`` (raising OnnxReferenceMismatchError unless
    ``raise_on_mismatch`` is False).
    """
    array = _check_input(input_nhwc)
    if reference is None and tolerance is not None:
        raise _error(
            "a tolerance is only meaningful with a reference",
            "tolerance was given with reference=None",
            "pass reference=... too, or drop tolerance",
        )
    ort: Any = require_optional("onnxruntime", extra="ort")
    file = Path(path)
    if not file.is_file():
        raise _error(
            "run_onnx needs an existing .onnx file",
            f"{str(file)!r} does not exist",
            "export the graph first, or fix the path",
        )
    session = ort.InferenceSession(str(file), providers=["CPUExecutionProvider"])
    contract = _read_contract(dict(session.get_modelmeta().custom_metadata_map), file)
    inputs = [(item.name, item.type) for item in session.get_inputs()]
    outputs = [(item.name, item.type) for item in session.get_outputs()]
    if [name for name, _ in inputs] != [INPUT_NAME] or [name for name, _ in outputs] != [
        OUTPUT_NAME
    ]:
        raise _error(
            f"a verified graph binds exactly one {INPUT_NAME!r} and one {OUTPUT_NAME!r}",
            f"inputs {[n for n, _ in inputs]}, outputs {[n for n, _ in outputs]}",
            "rename the graph's bindings when exporting (input_names/output_names)",
        )
    if inputs[0][1] != "tensor(float)" or outputs[0][1] != _ONNX_DTYPES[contract.dtype]:
        raise _error(
            "binding element types must match float32 input and the contract's output dtype",
            f"input {inputs[0][1]}, output {outputs[0][1]}, contract dtype {contract.dtype}",
            "export with a float32 input and the declared output dtype",
        )
    (output,) = session.run([OUTPUT_NAME], {INPUT_NAME: array})
    expected_shape = contract.output_shape(array.shape)
    if tuple(output.shape) != expected_shape or output.dtype != np.dtype(contract.dtype):
        raise _error(
            "the output must have the shape and dtype the contract states",
            f"output shape {tuple(output.shape)} dtype {output.dtype}; expected "
            f"{expected_shape} {contract.dtype}",
            "fix the graph or its contract metadata so they agree",
        )
    comparison = None
    if reference is not None:
        comparison = _compare(output, reference, tolerance)
        if raise_on_mismatch and not comparison.passed:
            raise OnnxReferenceMismatchError(
                why="the ONNX output must match the reference within the stated tolerance",
                what=f"max abs difference {comparison.max_abs_difference:.3g}, mean "
                f"{comparison.mean_abs_difference:.3g}; tolerance max "
                f"{comparison.tolerance.max_abs}, mean {comparison.tolerance.mean_abs}",
                how="fix the export or the weights, or regenerate the reference if it is stale",
            )
    return OnnxRun(output=output, contract=contract, comparison=comparison)
